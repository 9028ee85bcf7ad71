"""Helpers for the agent tests: play games with strict legality, build views by hand."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tests.scenario import answer

from mafia_arena.agents import RandomAgent, SyncAgent
from mafia_arena.agents.by_side import BySideAgent
from mafia_arena.agents.heuristic import HeuristicAgent
from mafia_arena.agents.heuristic.rulebook import rulebook
from mafia_arena.agents.heuristic.style import BALANCED, Style
from mafia_arena.engine.catalogue import fact_from_payload
from mafia_arena.engine.choices import PASS, Choice, Decision, Request
from mafia_arena.engine.events import SeatEvent
from mafia_arena.engine.game import Game
from mafia_arena.rules import load_variant
from mafia_arena.views.knowledge import KnowledgeFold
from mafia_arena.views.view import SeatTracker, View, view_of

Script = Callable[[Game, int, Request], Decision | None]


def play_strict(game: Game, agents: Sequence[SyncAgent]) -> Game:
    """Play to the end submitting each agent's decision as is.

    Unlike the runner there is no fallback: an illegal decision raises
    `IllegalDecision` and fails the test where it happened.
    """
    for seat, agent in enumerate(agents):
        agent.reset(seat, game.seed)
    trackers = [SeatTracker(s) for s in range(len(agents))]
    while not game.over:
        for seat in sorted(game.pending()):
            game.submit(seat, agents[seat].decide(trackers[seat].view(game)))
    return game


def play_heuristic(game: Game, style: Style = BALANCED) -> Game:
    """Play to the end with a strict heuristic player of one style in every seat (seat
    seeds ``seed * 1000 + seat``): a strategy error fails the test where it happened."""
    seats = []
    for seat in range(game.players):
        agent = HeuristicAgent(game.seed, strict=True, style=style)
        agent.reset(seat, game.seed * 1000 + seat)
        seats.append((agent, SeatTracker(seat)))
    while not game.over and game.pending():
        for seat in sorted(game.pending()):
            agent, tracker = seats[seat]
            game.submit(seat, agent.decide(tracker.view(game)))
    return game


def neutral(request: Request) -> Decision:
    if PASS in request.choices or request.default == "pass":
        return PASS
    return request.choices[0]


def dealt(variant: str, roles: list[str], seed: int = 0) -> Game:
    return Game(load_variant(variant), len(roles), seed, deal=roles)


def drive(game: Game, script: Script, until: Callable[[Game], bool]) -> Game:
    """Answer requests by `script` (None → pass / first choice) until `until(game)`."""
    while not game.over and not until(game):
        for seat, request in sorted(game.pending().items()):
            decision = script(game, seat, request)
            answer(game, seat, request, decision if decision is not None else neutral(request))
    return game


def pending_kind(kind: str, seat: int | None = None) -> Callable[[Game], bool]:
    """`until` condition: a request of `kind` (for `seat`, if given) is pending."""

    def check(game: Game) -> bool:
        return any(
            r.kind == kind and (seat is None or s == seat) for s, r in game.pending().items()
        )

    return check


def heuristic_decides(game: Game, seat: int, seed: int = 0) -> Decision:
    """A fresh strict heuristic's decision for `seat`'s pending request."""
    agent = HeuristicAgent(strict=True)
    agent.reset(seat, seed)
    return agent.decide(view_of(game, seat))


def target(decision: Decision) -> int | None:
    return decision.target if isinstance(decision, Choice) else None


def synthetic_view(
    variant: str,
    composition: dict[str, int],
    seat: int,
    role: str,
    faction: str,
    request: Request,
    events: Sequence[tuple[str, dict, frozenset[int] | None]] = (),
    day: int = 1,
    phase: str = "day",
) -> View:
    """A view built from hand-made events (kind, payload, private seats or None)."""
    players = sum(composition.values())
    fold = KnowledgeFold(seat, tuple(composition))
    made = [
        ("setup", {"variant": variant, "players": players, "composition": composition}, None),
        ("role", {"seat": seat, "role": role, "faction": faction}, frozenset({seat})),
        *events,
    ]
    for index, (kind, payload, seats) in enumerate(made):
        fact = fact_from_payload(kind, payload)
        at_day, at_phase = (0, "setup") if index < 2 else (day, phase)
        fold.apply(SeatEvent(at_day, at_phase, fact, seats is not None, None))
    return View(seat, load_variant(variant), fold.snapshot(), request)


def by_side(
    variant: str, town: Callable[[], SyncAgent], mafia: Callable[[], SyncAgent], players: int
) -> list[SyncAgent]:
    """One `BySideAgent` per seat: `town()` if dealt a town role, else `mafia()`."""
    side_of = rulebook(load_variant(variant)).side_of_faction
    factories = {"town": town, "*": mafia}
    return [BySideAgent(factories, side_of) for _ in range(players)]  # type: ignore[misc]


def town_vs_random(
    town: Callable[[], SyncAgent], players: int, variant: str = "standard"
) -> list[SyncAgent]:
    """Every seat plays `town()` when dealt a town role and `random` otherwise."""
    return by_side(variant, town, RandomAgent, players)
