"""`View`: an immutable snapshot of one seat's knowledge plus its current request.

`SeatTracker` is the one way a seat follows a game: it owns the seat's `SeatStream`
(the events admitted to the seat, numbered per seat) and the seat's `KnowledgeFold`,
and applies only the new entries. Every encoder — the text for LLMs and humans, the
tensor for RL, the web page — consumes a `View`, never the game state.
"""

from __future__ import annotations

from dataclasses import dataclass
from weakref import WeakKeyDictionary

from mafia_arena.engine.choices import Request
from mafia_arena.engine.events import SeatStream
from mafia_arena.engine.game import Game
from mafia_arena.rules import Variant
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.knowledge import Knowledge, KnowledgeFold
from mafia_arena.views.transcript import Renders


@dataclass(frozen=True, slots=True)
class View:
    """A frozen snapshot for one seat. `request` is None when the seat has nothing to
    decide; `rules` is the variant being played (its public rules: agents read the
    rules from here and never load files)."""

    seat: int
    rules: Variant
    knowledge: Knowledge
    request: Request | None

    @property
    def variant(self) -> str:
        """The variant's name."""
        return self.rules.name

    @property
    def alive(self) -> bool:
        return bool(self.knowledge.alive) and self.knowledge.alive[self.seat]


_RENDERS: WeakKeyDictionary[Game, tuple[Renders, DisplayNames]] = WeakKeyDictionary()
"""One line cache per game and the readable names its lines are written with (the
variant's, `views.display_names`), shared by the trackers of its seats (dropped with the
game)."""


class SeatTracker:
    """Follows one seat of a game: its stream, its fold, and views of both."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.fold = KnowledgeFold(seat)
        self.stream: SeatStream | None = None
        self._game: Game | None = None
        self._view: View | None = None

    def _bind(self, game: Game) -> SeatStream:
        if self._game is not game or self.stream is None:
            self._game = game
            self.stream = game.stream(self.seat)
            shared = _RENDERS.get(game)
            if shared is None:
                shared = _RENDERS[game] = ({}, DisplayNames.of(game.variant))
            renders, names = shared
            variant = game.variant
            roles, role_names = tuple(variant.roles), variant.role_names()
            self.fold = KnowledgeFold(self.seat, roles, renders, names, role_names)
            self._view = None
        return self.stream

    @property
    def knowledge(self) -> Knowledge:
        """The latest snapshot (without reading new events)."""
        return self.fold.snapshot()

    def update(self, game: Game, upto: int | None = None) -> Knowledge:
        """Fold the seat's new events; the snapshot after them. With `upto` (a host log
        position), only the events before it: a driver that shows the log in fixed
        steps (`engine.night_clock`) holds the rest back; the cursor never moves backwards."""
        return self.advance(game, upto).snapshot()

    def advance(self, game: Game, upto: int | None = None) -> KnowledgeFold:
        """`update` without the snapshot: the live fold, for readers that take what they
        need at once (the numeric encoder) and so need no frozen copy."""
        new = self._bind(game).pull(upto)  # binding first: a new game gets a new fold
        self.fold.extend(new)
        return self.fold

    def view(self, game: Game) -> View:
        """The seat's view now. Views are frozen, so the last one is handed out again
        while neither the seat's knowledge nor its request changed (an env observes and
        describes the same seat several times per step)."""
        knowledge = self.update(game)
        request = game.request(self.seat)
        last = self._view
        if last is not None and last.knowledge is knowledge and last.request is request:
            return last
        self._view = View(self.seat, game.variant, knowledge, request)
        return self._view


def view_of(game: Game, seat: int) -> View:
    """A fresh view of `seat` built from the whole log (slower; for tests and replays)."""
    return SeatTracker(seat).view(game)
