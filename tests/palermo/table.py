"""A Palermo table for scenario tests: the standard setups S16 and S20 of the rules
digest (section 11), cards handed out by the fixture, and a driver that plays neutral
moves until a given round and phase.

Neutral play: every Active player who has no ballot votes in the afternoon for the
`fodder` target (the highest Active seat not protected by the test), everything else
passes. Players are named P1..Pn in the tests, as in the digest; `P(n)` is the seat.
"""

from __future__ import annotations

from collections.abc import Mapping

from mafia_arena.engine import PASS, Choice, Game, Speech
from mafia_arena.engine.palermo.state import PalermoState, of
from mafia_arena.engine.player_states import PlayerState
from mafia_arena.rules import load_variant

S16 = [
    "known_a", "known_b", "hidden", "archmafioso", "corrupt_cop", "rival", "detective",
    "medium", "informant", "mayor", "lawyer", "roommate", "roommate", "citizen", "citizen",
    "citizen",
]  # fmt: skip
S20 = [
    "known_a", "known_b", "hidden", "hidden", "archmafioso", "corrupt_cop", "prostitute",
    "rival", "detective", "medium", "informant", "mayor", "lawyer", "roommate", "roommate",
    "citizen", "citizen", "citizen", "citizen", "citizen",
]  # fmt: skip


def P(number: int) -> int:
    return number - 1


class Table:
    def __init__(
        self,
        setup: list[str] = S16,
        hands: Mapping[int, str] | None = None,
        seed: int = 1,
        keep: set[int] = frozenset(),  # type: ignore[assignment]
        absent: set[int] = frozenset(),  # type: ignore[assignment]
        **overrides: object,
    ) -> None:
        variant = load_variant("palermo", {"moves": 3, **overrides})
        hands = {P(k): v for k, v in (hands or {}).items()}
        self.game = Game(variant, len(setup), seed, deal=setup, hands=hands)
        self.keep = {P(k) for k in keep}
        self.absent = {P(k) for k in absent}
        self.votes: dict[int, int] = {}
        """Planned ballots for the next afternoon (P-numbers): voter → target."""

    @property
    def ps(self) -> PalermoState:
        return of(self.game)

    def state(self, number: int) -> PlayerState:
        return self.ps.states.of(P(number))

    def at(self, round_: int, phase: str) -> bool:
        return self.ps.round == round_ and self.ps.phase == phase and bool(self.game.pending())

    def fodder(self, voter: int) -> int | None:
        from mafia_arena.engine.palermo.vote import legal_targets

        options = [t for t in legal_targets(self.game, voter) if t not in self.keep]
        return options[-1] if options else None

    def neutral(self, seat: int) -> Choice:
        game, ps = self.game, self.ps
        request = game.request(seat)
        assert request is not None
        if request.kind == "turn" and ps.phase == "afternoon" and seat not in self.absent:
            planned = self.votes.get(seat + 1)
            if planned is not None and ps.ballots.get(seat) != P(planned):
                choice = Choice("vote", P(planned))
                if choice in request.choices:
                    return choice
            if seat not in ps.ballots and ps.states.is_active(seat) and planned is None:
                target = self.fodder(seat)
                if target is not None and Choice("vote", target) in request.choices:
                    return Choice("vote", target)
        return PASS

    def step(self, moves: Mapping[int, str | Choice | Speech] | None = None) -> None:
        """Answer the waiting prompt: the given moves (P-number → choice key, or a
        `Speech`), neutral otherwise."""
        moves = {P(k): v for k, v in (moves or {}).items()}
        for seat in sorted(self.game.pending()):
            if seat in moves:
                move = moves[seat]
                self.game.submit(seat, Choice.parse(move) if isinstance(move, str) else move)
            else:
                self.game.submit(seat, self.neutral(seat))

    def until(self, round_: int, phase: str, limit: int = 2000) -> None:
        """Play neutral moves until a prompt in `phase` of `round_` is waiting."""
        for _ in range(limit):
            if self.game.over:
                raise AssertionError(f"the game ended before round {round_} {phase}")
            if self.at(round_, phase):
                return
            self.step()
        raise AssertionError(f"never reached round {round_} {phase}")

    def finish_round(self, round_: int) -> None:
        """Play neutral moves until round `round_` is over (or the game)."""
        while not self.game.over and self.ps.round <= round_:
            self.step()

    def offers(self, number: int, key: str) -> bool:
        request = self.game.request(P(number))
        return request is not None and Choice.parse(key) in request.choices

    def facts_absence(self) -> list:
        from mafia_arena.engine.catalogue import Absence

        return self.facts(Absence)

    def facts(self, kind: type) -> list:
        return [e.fact for e in self.game.events if isinstance(e.fact, kind)]
