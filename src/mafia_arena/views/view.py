"""`View`: one seat's knowledge plus its current request (legal choices with labels).

`SeatTracker` follows a game's log with a cursor and feeds a seat's `Knowledge` only
the events whose visibility admits that seat. Every encoder — the text for LLMs and
humans, the tensor for RL, the web page — consumes a `View`, never the game state.
"""

from __future__ import annotations

from dataclasses import dataclass

from mafia_arena.engine.choices import Request
from mafia_arena.engine.game import Game
from mafia_arena.views.knowledge import Knowledge


@dataclass(frozen=True)
class View:
    """A snapshot for one seat. `request` is None when the seat has nothing to decide."""

    seat: int
    variant: str
    knowledge: Knowledge
    request: Request | None

    @property
    def alive(self) -> bool:
        return bool(self.knowledge.alive) and self.knowledge.alive[self.seat]


class SeatTracker:
    """Incrementally maintains one seat's `Knowledge` from a game's event log."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.knowledge = Knowledge(seat)
        self._cursor = 0

    def update(self, game: Game, upto: int | None = None) -> Knowledge:
        """Fold the new admitted events; with `upto`, only those before that index
        (a driver that shows the log in fixed steps, `env.night_clock`, holds the rest
        back; the cursor never moves backwards)."""
        events = game.events
        end = len(events) if upto is None else min(upto, len(events))
        for index in range(self._cursor, end):
            event = events[index]
            if event.visibility.admits(self.seat):
                self.knowledge.apply(event)
        self._cursor = max(self._cursor, end)
        return self.knowledge

    def view(self, game: Game) -> View:
        return View(self.seat, game.variant.name, self.update(game), game.request(self.seat))


def view_of(game: Game, seat: int) -> View:
    """A fresh view of `seat` built from the whole log (slower; for tests and replays)."""
    return SeatTracker(seat).view(game)
