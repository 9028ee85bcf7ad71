"""`Memory`: the heuristic's dated records, read from its seat's `Knowledge`.

The seat's one fold (`views.knowledge.KnowledgeFold`) already keeps dated records —
claims with the day and speaking turn, published votes with their kind, nominations by
round, deaths, team picks, own night actions — so the heuristic folds nothing itself:
`Memory.of(knowledge)` only reshapes those facts into the lookups its strategy modules
use (choice keys parsed, team plans read from the team chat).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from mafia_arena.engine.choices import Choice
from mafia_arena.views.knowledge import Knowledge, Said

_PLAN = re.compile(r"\bkill\s+p(\d{1,2})\b")

__all__ = ["Ballot", "Memory", "Said"]


@dataclass(frozen=True, slots=True)
class Ballot:
    """One published vote (`kind` is ``vote`` or ``final_vote``): voter → target."""

    day: int
    kind: str
    votes: dict[int, int | None]


@dataclass
class Memory:
    """Dated public and private records of one seat (see the module docstring)."""

    seat: int
    said: tuple[Said, ...] = ()
    ballots: list[Ballot] = field(default_factory=list)
    nominations: tuple[tuple[int, int, int, int], ...] = ()
    deaths: tuple[tuple[int, int, str], ...] = ()
    picks: dict[tuple[int, str], list[dict[int, Choice]]] = field(default_factory=dict)
    plans: dict[int, dict[int, int]] = field(default_factory=dict)
    actions: list[tuple[int, str, tuple[Choice, ...]]] = field(default_factory=list)
    quiet_nights: frozenset[int] = frozenset()
    nominees: dict[int, list[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, k: Knowledge) -> Memory:
        """The records in `k`, reshaped (cheap: the fold did the reading)."""
        picks: dict[tuple[int, str], list[dict[int, Choice]]] = {}
        for day, group in k.team_picks:
            parsed = {s: _choice(c) for s, c in group.picks.items()}
            picks.setdefault((day, group.step), []).append(parsed)
        plans: dict[int, dict[int, int]] = {}
        for day, seat, text in k.team_chat:
            target = _plan(text)
            if target is not None:
                plans.setdefault(day, {})[seat] = target
        return cls(
            k.seat,
            said=k.said,
            ballots=[Ballot(day, v.kind, dict(v.votes)) for day, v in k.ballots],
            nominations=k.nominations,
            deaths=k.deaths,
            picks=picks,
            plans=plans,
            actions=[(day, a.step, tuple(_choice(c) for c in a.choices)) for day, a in k.actions],
            quiet_nights=k.quiet_nights,
            nominees={day: list(seats) for day, seats in k.nominees.items()},
        )

    # -- queries
    def today(self, day: int) -> list[Said]:
        return [s for s in self.said if s.day == day]

    def nominated_by(self, seat: int, day: int, round_no: int) -> list[int]:
        return [t for d, r, s, t in self.nominations if d == day and r == round_no and s == seat]

    def killed_at_night(self) -> list[int]:
        return [s for _, s, cause in self.deaths if cause == "night"]


@lru_cache(maxsize=8192)
def _choice(key: str) -> Choice:
    return Choice.parse(key)


@lru_cache(maxsize=8192)
def _plan(text: str) -> int | None:
    """The seat a team-chat line proposes to kill ("kill P3"), if any."""
    match = _PLAN.search(text.lower())
    return int(match.group(1)) - 1 if match else None
