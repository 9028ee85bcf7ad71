"""Events: the append-only log that is the single source of truth of a game.

Every change of the game is one `Event` with an explicit `Visibility`. A seat's view is
the events whose visibility admits that seat, so hidden information cannot reach a seat
unless an event addressed to it carries it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

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


_NO_PAYLOAD: Any = object()


@dataclass(frozen=True, slots=True, init=False)
class Event:
    """One entry of the log. `payload` holds only JSON-compatible values."""

    seq: int
    kind: str
    day: int
    phase: str
    payload: dict[str, Any] = field(default_factory=dict)
    visibility: Visibility = PUBLIC

    def __init__(
        self,
        seq: int,
        kind: str,
        day: int,
        phase: str,
        payload: dict[str, Any] = _NO_PAYLOAD,
        visibility: Visibility = PUBLIC,
    ) -> None:
        # what the generated __init__ does, through the slots (see engine.frozen)
        set_seq, set_kind, set_day, set_phase, set_payload, set_visibility = _EVENT_SLOTS
        set_seq(self, seq)
        set_kind(self, kind)
        set_day(self, day)
        set_phase(self, phase)
        set_payload(self, {} if payload is _NO_PAYLOAD else payload)
        set_visibility(self, visibility)

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "kind": self.kind,
            "day": self.day,
            "phase": self.phase,
            "payload": self.payload,
            "visibility": self.visibility.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Event:
        return cls(
            data["seq"],
            data["kind"],
            data["day"],
            data["phase"],
            data["payload"],
            Visibility.from_json(data["visibility"]),
        )


_EVENT_SLOTS = slot_setters(Event)
