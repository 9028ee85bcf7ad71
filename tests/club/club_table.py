"""A test table for club scenarios: a forced deal by short labels, and plans per phase.

Seats are dealt in the order of the labels (``Table("D M K Dr C1 C2 C3 C4")``); a label
is a role abbreviation with an optional index (club.md section 9 notation). A plan
maps labels to what that player picks: ``"C1"`` (a target), ``"check:M"``/``"kill:M"``
(a mode and target), ``"pass"``, or a list for successive picks (the journalist's pair,
the cardsharp's source then target). Unplanned night requests get a neutral answer:
decline where allowed, the planned pick of a fellow group member, else the first legal
choice; unplanned kills and copies fail the test, so a scenario states every attack.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from mafia_arena.engine import PASS, Choice, Game, Request
from mafia_arena.rules.loader import build_variant, variant_path

ROLES = {
    "C": "civilian",
    "M": "mafia",
    "D": "don",
    "K": "commissar",
    "X": "maniac",
    "Dr": "doctor",
    "Lv": "lover",
    "I": "immortal",
    "W": "werewolf",
    "Sg": "sergeant",
    "Dt": "detective",
    "Sh": "sheriff",
    "Sw": "sleepwalker",
    "J": "journalist",
    "Cs": "cardsharp",
    "Kz": "kamikaze",
    "T": "thief",
    "Cp": "captain",
    "L": "lawyer",
    "Y": "yakuza",
    "S": "sensei",
    "F": "framer",
    "P": "psychopath",
    "Dp": "deputy",
}
STRICT = ("kill", "copy", "check_or_kill")


def role_of(label: str) -> str:
    return ROLES[re.sub(r"\d+$", "", label)]


def club_document(**changes: Any) -> dict[str, Any]:
    """The parsed club.toml, with top-level keys replaced by `changes`."""
    with variant_path("club").open("rb") as handle:
        document = tomllib.load(handle)
    document.update(changes)
    return document


def club_game(
    roles: list[str],
    seed: int = 0,
    *,
    votes: bool = True,
    stalemate: int | None = None,
    **overrides: Any,
) -> Game:
    """A club game with seat i dealt roles[i] (the deck gets its own composition row).

    `votes=False` drops the day's vote, for scenarios about nights; the stalemate draw
    is off unless `stalemate` is given, so quiet nights can be studied.
    """
    document = club_document(min_players=2)
    document["composition"] = {"table": {str(len(roles)): dict(Counter(roles))}}
    if not votes:
        document["day"] = [step for step in document["day"] if step["type"] != "vote"]
    if stalemate is None:
        del document["rules"]["stalemate_cycles"]
    else:
        document["params"]["stalemate_cycles"] = stalemate
    variant = build_variant(document, "club (test deck)", overrides)
    return Game(variant, len(roles), seed, deal=roles)


class Table:
    """A club game dealt by labels, driven phase by phase."""

    def __init__(self, labels: str, seed: int = 0, **options: Any) -> None:
        self.labels = labels.split()
        self.game = club_game([role_of(label) for label in self.labels], seed, **options)
        self.plan: dict[int, list[str]] = {}
        self.asked: list[Request] = []
        """Every request the table answered, in order (what each seat was offered)."""
        self._day_votes: tuple[str | None, Mapping[str, str], Mapping[str, str]] = (None, {}, {})
        self._revotes: Mapping[str, str] | None = None

    def __getitem__(self, label: str) -> int:
        return self.labels.index(label)

    def label(self, seat: int | None) -> str:
        """The label at `seat` (a choice's target: one that names no seat fails)."""
        assert seat is not None, "no seat to label"
        return self.labels[seat]

    # ------------------------------------------------------------------ driving
    def night(self, plan: Mapping[str, str | list[str]] | None = None) -> Table:
        """Play the rest of the current day and the next night, up to the morning."""
        self.day()
        number = self.game.state.day
        self._set_plan(plan or {})
        self._run(lambda g: g.state.phase == "day" and g.state.day >= number)
        return self

    def day(
        self,
        execute: str | None = None,
        *,
        votes: Mapping[str, str] | None = None,
        finals: Mapping[str, str] | None = None,
        revotes: Mapping[str, str] | None = None,
    ) -> Table:
        """Play the day (if one is under way) to its end.

        `execute` makes everyone vote against that player (he names someone else);
        `votes` and `finals` give round-1 and round-2 choices by voter, `revotes` the
        re-vote's (by default the same as `finals`).
        """
        if self.game.state.phase != "day":
            return self
        number = self.game.state.day
        self._day_votes = (execute, votes or {}, finals or {})
        self._revotes = revotes
        self._run(lambda g: g.state.phase != "day" or g.state.day > number)
        return self

    def tie_day(self, a: str, b: str) -> Table:
        """Play the day so that nobody is executed: `a` and `b` are the only accused and
        tie in the final vote and in the re-vote (needs an even number of other voters)."""
        state = self.game.state
        others = [
            self.label(s)
            for s in state.living()
            if s not in state.silenced_today and self.label(s) not in (a, b)
        ]
        assert len(others) % 2 == 0, "a tie needs an even number of other voters"
        half = len(others) // 2
        votes = {a: b, b: a, **dict.fromkeys(others[:half], a), **dict.fromkeys(others[half:], b)}
        return self.day(votes=votes, finals=votes)

    def until(
        self, label: str, kind: str, plan: Mapping[str, str | list[str]] | None = None
    ) -> Request:
        """Play by `plan` until `label` is asked a decision whose kind starts with `kind`."""
        self._set_plan(plan or {})
        seat = self[label]

        def asked(game: Game) -> bool:
            request = game.request(seat)
            return request is not None and request.kind.startswith(kind)

        self._run(asked)
        request = self.game.request(seat)
        assert request is not None, f"{label} was never asked {kind}"
        return request

    def _set_plan(self, plan: Mapping[str, str | list[str]]) -> None:
        self.plan = {self[k]: [v] if isinstance(v, str) else list(v) for k, v in plan.items()}
        self._last: dict[object, str] = {}
        self._day_votes = (None, {}, {})
        self._revotes = None

    def _run(self, stop: Callable[[Game], bool]) -> None:
        game = self.game
        while not game.over and not stop(game):
            pending = sorted(game.pending().items())
            assert pending, "the game is waiting for nobody"
            for seat, request in pending:
                self.asked.append(request)
                game.submit(seat, self._answer(seat, request))

    def _answer(self, seat: int, request: Request) -> Choice:
        if request.kind.startswith("night:"):
            return self._night_answer(seat, request)
        execute, votes, finals = self._day_votes
        if request.info.get("revote") and self._revotes is not None:
            finals = self._revotes
        wanted = {"nominate": votes, "final_vote": finals}.get(request.kind, {})
        target = wanted.get(self.label(seat), execute)
        if request.kind in ("nominate", "final_vote"):
            if target is not None and Choice("target", self[target]) in request.choices:
                return Choice("target", self[target])
            return request.choices[0]  # the accused himself names someone else
        return PASS

    def _night_answer(self, seat: int, request: Request) -> Choice:
        step = request.info.get("step")
        planned = self.plan.get(seat)
        if planned:
            self._last[step] = planned[0]
            return self.choice(planned.pop(0), request)
        if PASS in request.choices:
            return PASS
        if request.info.get("action") == "kill" and step in self._last:
            return self.choice(self._last[step], request)  # follow a fellow group member
        for other, picks in self.plan.items():
            fellow = self.game.pending().get(other)
            if picks and fellow is not None and fellow.info.get("step") == step:
                return self.choice(picks[0], request)
        assert request.info.get("action") not in STRICT and request.info.get("pick") is None, (
            f"unplanned {request.kind} for {self.label(seat)}"
        )
        return request.choices[0]

    def choice(self, value: str, request: Request | None = None) -> Choice:
        if value == "pass":
            return PASS
        verb, _, target = value.rpartition(":")
        return Choice(verb or "target", self[target])

    # ------------------------------------------------------------------ reading
    def events(self, kind: str, day: int | None = None) -> list[dict[str, Any]]:
        return [
            e.fact.to_payload()
            for e in self.game.events
            if e.kind == kind and (day is None or e.day == day)
        ]

    def seen_by(self, label: str, kind: str, day: int | None = None) -> list[dict[str, Any]]:
        """Payloads of `kind` that `label`'s seat may see (private results included)."""
        seat = self[label]
        return [
            e.fact.to_payload()
            for e in self.game.events
            if e.kind == kind and e.visibility.admits(seat) and (day is None or e.day == day)
        ]

    def result(self, label: str, day: int, action: str | None = None) -> Any:
        """The one night result `label` received on night `day` (of `action` if given)."""
        results = [
            p
            for p in self.seen_by(label, "night_result", day)
            if action is None or p.get("action") == action
        ]
        assert len(results) == 1, results
        # a watch answers with the seats it saw (``attackers``), other actions a word
        return results[0].get("attackers", results[0]["result"])

    def dead(self, day: int | None = None) -> set[str]:
        return {self.label(p["seat"]) for p in self.events("death", day)}

    def alive(self, label: str) -> bool:
        return self.game.state.alive(self[label])

    def role(self, label: str) -> str:
        return self.game.state.role(self[label])

    def blocked(self, label: str, day: int) -> list[str]:
        return [p["step"] for p in self.seen_by(label, "blocked", day)]
