"""Drive a dictator game phase by phase in scenario tests (the canonical cast of SD-*).

Seats: B 0, R 1, F 2, T 3, Det 4, MM 5, A 6, DP1 7, DP2 8, Q 9, C1 10 … C8 17. By
default every seat posts once per phase (so nobody is warned), Night 0 ballots all
name C1, and Q points at C8; a test queues its own decisions per phase with `act`.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from mafia_arena.engine import PASS, Choice, Game, IllegalDecision, Speech
from mafia_arena.engine.catalogue import Fact, GameMasterNotice, StatusShown
from mafia_arena.engine.choices import Decision
from mafia_arena.rules import load_variant

B, R, F, T, DET, MM, A, DP1, DP2, Q = range(10)
C1, C2, C3, C4, C5, C6, C7, C8 = range(10, 18)
CAST = [
    "mafia_boss",
    "character_assassin",
    "forger",
    "terrorist",
    "detective",
    "matchmaker",
    "guardian_angel",
    "dark_past",
    "dark_past",
    "question_mark",
] + ["citizen"] * 8


def name(seat: int) -> str:
    return f"P{seat + 1}"


def c(verb: str, target: int | None = None, value: str | int | None = None) -> Choice:
    """A form; a matchmaker's pair is offered lower seat first."""
    if verb == "compare" and target is not None and value is not None:
        target, value = min(target, int(value)), max(target, int(value))
    return Choice(verb, target, None if value is None else str(value))


def w(text: str, verb: str, target: int | None = None, value: str | int | None = None) -> Speech:
    return Speech(text, c(verb, target, value))


class Table:
    def __init__(self, deal: list[str] | None = None, seed: int = 0, **overrides: object) -> None:
        deal = list(deal or CAST)
        self.game = Game(load_variant("dictator", overrides), len(deal), seed, deal=deal)
        self.queued: dict[int, list[Decision]] = {}
        self.silent: set[int] = set()
        self.night0_defaults = True
        self.marks: list[int] = []
        self.refusals: list[tuple[int, str]] = []
        """(seat, reason) of queued decisions the engine refused when they were asked."""

    # ----------------------------------------------------------------- driving
    @property
    def where(self) -> tuple[str, int]:
        return self.game.state.phase, self.game.state.day

    def act(self, seat: int, *decisions: Decision) -> Table:
        self.queued.setdefault(seat, []).extend(decisions)
        return self

    def refused(self, seat: int, decision: Decision) -> None:
        """`decision` is illegal for `seat` now (the seat must be asked now)."""
        assert seat in self.game.pending(), f"{name(seat)} is not asked now"
        with pytest.raises(IllegalDecision):
            self.game.submit(seat, decision)

    def accepted(self, seat: int, decision: Decision) -> None:
        """`decision` is legal for `seat` now: submitted at the phase's next round."""
        self.act(seat, decision)

    def phase(self) -> Table:
        """Play the current phase to its end (queued decisions, a post, then done)."""
        game = self.game
        start = self.where
        if start == ("night", 0) and self.night0_defaults:
            for seat in range(game.players):
                self.queued.setdefault(seat, []).insert(0, c("ballot", C1))
            own = self.queued.setdefault(Q, [])
            if not any(_verb(d) == "copy_status" for d in own):
                own.append(c("copy_status", C8))
        self.marks.append(len(game.events))
        posted: set[int] = set()
        while not game.over and self.where == start:
            for seat in sorted(game.pending()):
                queue = self.queued.get(seat)
                while queue:
                    try:
                        game.submit(seat, queue.pop(0))
                        break
                    except IllegalDecision as refused:
                        self.refusals.append((seat, refused.reason))
                else:
                    if seat not in posted and seat not in self.silent:
                        decision: Decision = Speech(f"{name(seat)} here.", c("post"))
                        posted.add(seat)
                    else:
                        decision = PASS
                    game.submit(seat, decision)
        leftover = {s: q for s, q in self.queued.items() if q and game.state.alive(s)}
        self.queued = {}
        assert not leftover or game.over, f"decisions never asked: {leftover}"
        return self

    def to(self, phase: str, day: int) -> Table:
        while self.where != (phase, day) and not self.game.over:
            self.phase()
        return self

    def leave_only(self, *seats: int, dictator: int | None) -> None:
        """A hand-made table (win checks, small electorates): everybody but `seats` is
        out of the game, and `dictator` holds the office."""
        for seat in range(self.game.players):
            if seat not in seats:
                self.game.state.mark_dead(seat)
        self.game.derived["forum"].dictator = dictator

    # ----------------------------------------------------------------- reading
    def facts(self, kind: type[Fact], since: int = 0) -> list:
        return [e.fact for e in self.game.events[since:] if isinstance(e.fact, kind)]

    def last_phase_facts(self, kind: type[Fact]) -> list:
        return self.facts(kind, self.marks[-1] if self.marks else 0)

    def seen(self, seat: int) -> list[Fact]:
        return [e.fact for e in self.game.stream(seat).pull()]

    def notices(self, seat: int, topic: str | None = None) -> list[str]:
        return [
            f.text
            for f in self.seen(seat)
            if isinstance(f, GameMasterNotice) and (topic is None or f.topic == topic)
        ]

    def alive(self, seat: int) -> bool:
        return self.game.state.alive(seat)


def _verb(decision: Decision) -> str | None:
    act = decision.act if isinstance(decision, Speech) else decision
    return None if act is None else act.verb


def texts(facts: Iterable[Fact], field: str = "text") -> list[str]:
    return [getattr(f, field) for f in facts]


def status(t: Table, seat: int) -> str | None:
    """The status last shown of `seat` (None before any)."""
    shown = [f.status for f in t.facts(StatusShown) if f.seat == seat]
    return shown[-1] if shown else None


def murder(victim: int, text: str = "Found in the river.") -> Speech:
    """The murder form on `victim`, with a standard death message."""
    return w(text, "murder", victim)


def dictator(t: Table) -> int | None:
    """The seat holding the office now (None while it is vacant)."""
    return t.game.derived["forum"].dictator


SMALL = [
    "mafia_boss", "character_assassin", "forger", "terrorist", "detective", "matchmaker",
    "guardian_angel", "dark_past", "dark_past", "question_mark", "citizen", "citizen",
]  # fmt: skip
"""A 12-player deal (OP-D31): the canonical seats 0–9, then two plain citizens 10, 11."""


def small(seed: int = 0) -> Table:
    """12 players at Day 1, seat 10 elected, the question mark a copy of seat 11."""
    t = Table(SMALL, seed=seed)
    t.night0_defaults = False
    for seat in range(12):
        t.act(seat, c("ballot", 10))
    return t.act(Q, c("copy_status", 11)).phase()


def revolt(t: Table, votes: dict[int, list[int]]) -> Table:
    """Queue revolution PNs: candidate → the seats naming him."""
    for candidate, voters in votes.items():
        for seat in voters:
            t.act(seat, c("revolution", candidate))
    return t
