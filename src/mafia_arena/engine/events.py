"""Events: the append-only log that is the single source of truth of a game.

Every change of the game is one `Event` with an explicit `Visibility`. A seat's view is
the events whose visibility admits that seat, so hidden information cannot reach a seat
unless an event addressed to it carries it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from mafia_arena.engine.catalogue import Fact, fact_from_payload
from mafia_arena.engine.frozen import slot_setters

Scope = Literal["public", "seats", "host"]


@dataclass(frozen=True, slots=True)
class Visibility:
    """Who may see an event.

    - ``public``: every seat, alive or dead, and spectators;
    - ``seats``: exactly `seats` (a private result, a faction or clan channel resolved to
      its members at the moment of the event — later joiners do not see the past);
    - ``host``: nobody but the host (true roles, RNG draws, raw decisions).
    `channel` names the channel for rendering (e.g. ``mafia``); it grants nothing.
    """

    scope: Scope
    seats: frozenset[int] = frozenset()
    channel: str | None = None

    def admits(self, seat: int) -> bool:
        if self.scope == "public":
            return True
        if self.scope == "seats":
            return seat in self.seats
        return False

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"scope": self.scope}
        if self.scope == "seats":
            data["seats"] = sorted(self.seats)
        if self.channel:
            data["channel"] = self.channel
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Visibility:
        return cls(data["scope"], frozenset(data.get("seats", ())), data.get("channel"))


PUBLIC = Visibility("public")
HOST = Visibility("host")


def private(*seats: int, channel: str | None = None) -> Visibility:
    """Visible to the given seats only."""
    return _private(seats, channel)


@lru_cache(maxsize=4096)
def _private(seats: tuple[int, ...], channel: str | None) -> Visibility:
    """Cached: the same few audiences (one seat, a team, a channel) recur in every game,
    and a `Visibility` is immutable, so events may share one."""
    return Visibility("seats", frozenset(seats), channel)


@dataclass(frozen=True, slots=True, init=False)
class SeatEvent:
    """One event as the seats it admits receive it: no sequence number, no audience.

    Built once per event (when a stream first pulls it) and shared by every seat the
    event admits. A seat's events are numbered by their position in its own stream (0, 1, 2, …), so
    the number tells the seat nothing about events it was not shown; `private` says the
    event had a limited audience (a private result, a team channel) and `channel` names
    that channel. The audience itself, the global sequence number and host-only facts
    never appear here.
    """

    day: int
    phase: str
    fact: Fact
    private: bool
    channel: str | None

    def __init__(
        self, day: int, phase: str, fact: Fact, private: bool, channel: str | None
    ) -> None:
        set_day, set_phase, set_fact, set_private, set_channel = _SEAT_EVENT_SLOTS
        set_day(self, day)
        set_phase(self, phase)
        set_fact(self, fact)
        set_private(self, private)
        set_channel(self, channel)

    @property
    def kind(self) -> str:
        return self.fact.KIND


_SEAT_EVENT_SLOTS = slot_setters(SeatEvent)


@dataclass(frozen=True, slots=True, init=False)
class Event:
    """One entry of the host's log: a catalogued `fact` with its place and audience.

    `seq` is the global position in the log; it is host information and never reaches
    a seat: a seat reads its own `SeatStream` of `seen` forms (None for host events).
    """

    seq: int
    day: int
    phase: str
    fact: Fact
    visibility: Visibility = PUBLIC
    _seen: SeatEvent | None = field(default=None, compare=False, repr=False)

    def __init__(
        self, seq: int, day: int, phase: str, fact: Fact, visibility: Visibility = PUBLIC
    ) -> None:
        # what the generated __init__ does, through the slots (see engine.frozen)
        set_seq, set_day, set_phase, set_fact, set_visibility, set_seen = _EVENT_SLOTS
        set_seq(self, seq)
        set_day(self, day)
        set_phase(self, phase)
        set_fact(self, fact)
        set_visibility(self, visibility)
        set_seen(self, None)

    @property
    def seen(self) -> SeatEvent | None:
        """The event as the seats it admits receive it (None for a host event).

        Built on first use and then shared by every seat: a game played without
        seat streams (the engine alone, a replay) never builds one."""
        seen = self._seen
        if seen is None and self.visibility.scope != "host":
            visibility = self.visibility
            seen = SeatEvent(
                self.day, self.phase, self.fact, visibility.scope == "seats", visibility.channel
            )
            _EVENT_SLOTS[5](self, seen)
        return seen

    @property
    def kind(self) -> str:
        return self.fact.KIND

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "kind": self.fact.KIND,
            "day": self.day,
            "phase": self.phase,
            "payload": self.fact.to_payload(),
            "visibility": self.visibility.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Event:
        """Read a stored event (log versions 1 and 2, see `engine.catalogue`)."""
        return cls(
            data["seq"],
            data["day"],
            data["phase"],
            fact_from_payload(data["kind"], data["payload"]),
            Visibility.from_json(data["visibility"]),
        )


_EVENT_SLOTS = slot_setters(Event)


class SeatStream:
    """The events of one game admitted to one seat, in order, with a cursor.

    `pull()` returns the entries added since the last pull (and keeps them in
    `entries`, where an entry's position is its seat-local number). The stream reads
    the host log but hands out only `SeatEvent`s.
    """

    __slots__ = ("_cursor", "_log", "_seqs", "entries", "seat")

    def __init__(self, log: list[Event], seat: int) -> None:
        self._log = log
        self._cursor = 0
        self._seqs: list[int] = []
        self.seat = seat
        self.entries: list[SeatEvent] = []

    def host_seq(self, index: int) -> int:
        """Host side only: the log position of the seat's entry `index` (-1 before any),
        to place what a seat stated (beliefs) on the host's timeline."""
        if index < 0 or not self._seqs:
            return -1
        return self._seqs[min(index, len(self._seqs) - 1)]

    def pull(self, upto: int | None = None) -> list[SeatEvent]:
        """The seat's entries added since the last pull.

        `upto` (host side: a position in the host log) stops the pull before that
        position: a driver that shows the log in fixed steps (`engine.night_clock`) holds
        the rest back for a later pull. The cursor never moves backwards.
        """
        log = self._log
        end = len(log) if upto is None else min(upto, len(log))
        if self._cursor >= end:
            return []
        seat, entries, seqs = self.seat, self.entries, self._seqs
        start = len(entries)
        for event in log[self._cursor : end]:
            visibility = event.visibility
            scope = visibility.scope
            if scope == "public" or (scope == "seats" and seat in visibility.seats):
                seen = event._seen
                entries.append(event.seen if seen is None else seen)  # type: ignore[arg-type]
                seqs.append(event.seq)
        self._cursor = end
        return entries[start:]
