"""`Memory`: the heuristic's own incremental digest of the events its seat has seen.

`Knowledge` keeps claims per seat without dates and votes without their kind; the
heuristic needs both (today's accusations steer coordination, a final vote is not a
nomination), so it folds `knowledge.events` once more, from a cursor, into dated
records. It reads only the events already admitted to the seat's knowledge.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from mafia_arena.engine.choices import Choice
from mafia_arena.speech.claims import Claim, extract_claims
from mafia_arena.views.knowledge import Knowledge

_PLAN = re.compile(r"\bkill\s+p(\d{1,2})\b")


@dataclass(frozen=True, slots=True)
class Said:
    """One claim read from one speech: when, who, in which kind of speech."""

    day: int
    seat: int
    kind: str
    claim: Claim


@dataclass(frozen=True, slots=True)
class Ballot:
    """One published vote (`kind` is ``vote`` or ``final_vote``): voter → target."""

    day: int
    kind: str
    votes: dict[int, int | None]


@dataclass
class Memory:
    """Dated public and private records, folded from a seat's admitted events."""

    seat: int
    roles: tuple[str, ...] = ()
    said: list[Said] = field(default_factory=list)
    ballots: list[Ballot] = field(default_factory=list)
    nominations: list[tuple[int, int, int, int]] = field(default_factory=list)
    deaths: list[tuple[int, int, str]] = field(default_factory=list)
    picks: dict[tuple[int, str], list[dict[int, Choice]]] = field(default_factory=dict)
    plans: dict[int, dict[int, int]] = field(default_factory=dict)
    actions: list[tuple[int, str, tuple[Choice, ...]]] = field(default_factory=list)
    quiet_nights: set[int] = field(default_factory=set)
    nominees: dict[int, list[int]] = field(default_factory=dict)
    cursor: int = 0
    last_seq: int = -1

    def follows(self, knowledge: Knowledge) -> bool:
        """Whether `knowledge` extends what this memory has folded (same game, same seat)."""
        events = knowledge.events
        if knowledge.seat != self.seat or self.cursor > len(events):
            return False
        return self.cursor == 0 or events[self.cursor - 1].seq == self.last_seq

    def update(self, knowledge: Knowledge, roles: Iterable[str] = ()) -> None:
        """Fold the events added since the last call; the caller checks `follows` first."""
        if not self.roles:
            self.roles = tuple(dict.fromkeys([*knowledge.roles_in_play, *roles]))
        for event in knowledge.events[self.cursor :]:
            self._fold(event.kind, event.day, event.payload)
            self.last_seq = event.seq
        self.cursor = len(knowledge.events)

    def _fold(self, kind: str, day: int, p: dict) -> None:
        if kind == "speech":
            if p["kind"] == "night_chat":
                match = _PLAN.search(p["text"].lower())
                if match:
                    self.plans.setdefault(day, {})[p["seat"]] = int(match.group(1)) - 1
                return
            for claim in _claims(p["text"], self.roles):
                self.said.append(Said(day, p["seat"], p["kind"], claim))
        elif kind == "votes":
            votes = {int(v): t for v, t in p["votes"].items()}
            self.ballots.append(Ballot(day, p["kind"], votes))
        elif kind == "nomination":
            self.nominations.append((day, p.get("round", 1), p["seat"], p["target"]))
        elif kind == "nominees":
            self.nominees[day] = list(p["seats"])
        elif kind == "death":
            self.deaths.append((day, p["seat"], p["cause"]))
        elif kind == "no_death":
            self.quiet_nights.add(day)
        elif kind == "group_picks":
            picks = {int(s): Choice.parse(c) for s, c in p["picks"].items()}
            self.picks.setdefault((day, p["step"]), []).append(picks)
        elif kind == "night_action":
            choices = tuple(Choice.parse(c) for c in p["choices"])
            self.actions.append((day, p["step"], choices))

    # -- queries
    def today(self, day: int) -> list[Said]:
        return [s for s in self.said if s.day == day]

    def nominated_by(self, seat: int, day: int, round_no: int) -> list[int]:
        return [t for d, r, s, t in self.nominations if d == day and r == round_no and s == seat]

    def killed_at_night(self) -> list[int]:
        return [s for _, s, cause in self.deaths if cause == "night"]


@lru_cache(maxsize=8192)
def _claims(text: str, roles: tuple[str, ...]) -> tuple[Claim, ...]:
    """Claims in a speech (cached: canonical sentences repeat across seats and games)."""
    return tuple(extract_claims(text, roles))
