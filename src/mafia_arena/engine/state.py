"""The mutable state of a game: seats, phase counters, and per-night bookkeeping.

Only the engine mutates it. Nothing here is shown to players directly; every fact a
player learns reaches them through an event.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class SeatState:
    """One player. `card` is the dealt role and never changes; `role` is the current one."""

    seat: int
    card: str
    role: str
    faction: str
    alive: bool = True
    flags: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Attempt:
    """A kill attempt, resolved at dawn: its target, its attackers and its kind."""

    target: int
    attackers: tuple[int, ...]
    kind: str
    step: str


@dataclass(slots=True)
class NightState:
    """What the current night's steps have done so far (cleared at dawn)."""

    number: int
    arrested: set[int] = field(default_factory=set)
    robbed: set[int] = field(default_factory=set)
    framed: set[int] = field(default_factory=set)
    healed: set[int] = field(default_factory=set)
    defended: set[int] = field(default_factory=set)
    silenced: set[int] = field(default_factory=set)
    attempts: list[Attempt] = field(default_factory=list)
    watches: list[tuple[tuple[int, ...], int]] = field(default_factory=list)
    deaths: list[int] = field(default_factory=list)
    changed: set[int] = field(default_factory=set)
    """Seats whose role changed during this night (a disqualification's triggers): they
    act in their new role from the next night on, as after any other death (club D21)."""

    def is_void(self, target: int) -> bool:
        """An arrested player is immune to every action aimed at them tonight."""
        return target in self.arrested

    def is_blocked(self, actor: int) -> bool:
        """Arrested or robbed actors do not act (they are shown crossed arms)."""
        return actor in self.arrested or actor in self.robbed


@dataclass(slots=True)
class GameState:
    """Seats plus the counters of the phase machine."""

    seats: list[SeatState]
    day: int = 0
    phase: str = "setup"
    death_order: list[int] = field(default_factory=list)
    usage: dict[tuple[int, str], dict[str, Any]] = field(default_factory=dict)
    night: NightState | None = None
    silenced_today: set[int] = field(default_factory=set)
    defended_today: set[int] = field(default_factory=set)
    first_speaker: int | None = None
    winner: str | None = None
    winners: tuple[int, ...] = ()
    over: bool = False
    quiet_cycles: int = 0
    accused_today: set[int] = field(default_factory=set)
    disqualified: set[int] = field(default_factory=set)
    """Seats the host removed (`Game.disqualify`): dead, and never asked or offered again."""
    banned: list[int] = field(default_factory=list)
    """Seats the rules bar from the next game (Palermo: removed for absences), in the
    order they were barred; `end_game` publishes them in `GameEnded.banned`."""
    _living: tuple[int, ...] | None = field(default=None, init=False, repr=False, compare=False)

    def living_seats(self) -> tuple[int, ...]:
        """The living seats in seat order, as one shared tuple.

        Cached because the rules ask for it several times per decision (targets, speech
        acts, win checks) while it changes only when someone dies: `mark_dead`, the one
        place a seat dies, drops the cache.
        """
        living = self._living
        if living is None:
            living = self._living = tuple(s.seat for s in self.seats if s.alive)
        return living

    def living(self) -> list[int]:
        """The living seats in seat order (a fresh list the caller may change)."""
        return list(self.living_seats())

    def mark_dead(self, seat: int) -> None:
        """Mark `seat` dead (and drop the cached living seats)."""
        self.seats[seat].alive = False
        self._living = None

    def alive(self, seat: int) -> bool:
        return self.seats[seat].alive

    def role(self, seat: int) -> str:
        return self.seats[seat].role

    def faction(self, seat: int) -> str:
        return self.seats[seat].faction

    def living_in(self, faction: str) -> list[int]:
        return [s.seat for s in self.seats if s.alive and s.faction == faction]

    def holders(self, roles: tuple[str, ...] | set[str]) -> list[int]:
        return [s.seat for s in self.seats if s.alive and s.role in roles]

    @property
    def last_dead(self) -> int | None:
        return self.death_order[-1] if self.death_order else None
