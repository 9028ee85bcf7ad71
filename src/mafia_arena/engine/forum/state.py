"""The forum game's own bookkeeping: channels, forms of the phase, the office.

Kept beside `GameState` (in `game.derived`) so the phase-based variants carry none of
it. Only the forum modules read or change it; seats learn of it only through events.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mafia_arena.engine.catalogue import RandomDraw
from mafia_arena.engine.events import HOST
from mafia_arena.engine.game import Game

KEY = "forum"


@dataclass(slots=True)
class Form:
    """One form a seat handed in this phase: a verb, its target(s), a word, a text."""

    verb: str
    target: int | None = None
    value: str | None = None
    text: str = ""


@dataclass(slots=True)
class Ad:
    """An ad waiting for the phase's edition (its author is known to the host alone)."""

    author: int
    pseudonym: str
    text: str


@dataclass(slots=True)
class Testament:
    """A testament: its text and its recipients (None: public)."""

    text: str
    recipients: tuple[int, ...] | None
    round: int


@dataclass(slots=True)
class ForumState:
    """Everything the forum rules keep between decisions (see the module doc)."""

    # channels
    owners: dict[str, int] = field(default_factory=dict)
    """Pseudonym (case-folded) → owning seat, for pseudonyms in use."""
    spelled: dict[str, str] = field(default_factory=dict)
    """Pseudonym (case-folded) → the spelling it was created with."""
    retired: set[str] = field(default_factory=set)
    ads: list[Ad] = field(default_factory=list)
    testaments: dict[int, Testament] = field(default_factory=dict)
    posted: set[int] = field(default_factory=set)
    """Seats that posted in the thread this phase (inactivity, 8.5)."""
    thread: list[tuple[int, str]] = field(default_factory=list)
    """This window's thread posts, published when it closes (`window.window`)."""
    irrelevant: set[int] = field(default_factory=set)
    """Positions in `thread` of posts the game master marked irrelevant (`moderation`)."""
    warnings: dict[int, int] = field(default_factory=dict)
    inactive_day: set[int] = field(default_factory=set)
    # the phase's forms (revisable until the deadline: the last one of a verb counts)
    forms: dict[int, dict[str, Form]] = field(default_factory=dict)
    # the office and the mafia's authority
    dictator: int | None = None
    authority: int | None = None
    successor: int | None = None
    comrades: dict[int, set[int]] = field(default_factory=dict)
    """Seat → the informed mafia members its own stream has named (its comrade list, the
    sender of an authority it was handed): the only seats it may name as successor or
    hand the authority to, since the mafia is never told of a question mark that copied
    one of them (OP-D14)."""
    attacked: bool = False
    """A terrorist attack voided the dictator's order today."""
    # records of night forms
    pointing: dict[int, str] = field(default_factory=dict)
    """Boss seat → the status recorded at his most recent pointing."""
    passports: dict[int, int] = field(default_factory=dict)
    """Seat → the night of the forged passport he carries (valid the next day only)."""
    protected_last: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Angel seat → (night, target) of his last protection."""
    copied: dict[int, int] = field(default_factory=dict)
    """Question mark seat → the seat whose status he copied (told on Day 2)."""
    notices: list[tuple[int, str, str]] = field(default_factory=list)
    """Private game-master messages waiting for the next morning: (seat, topic, text)."""
    draws: dict[str, int] = field(default_factory=dict)
    """How many draws each purpose has made (`draw`)."""


def forum(game: Game) -> ForumState:
    """The game's forum state (created on first use)."""
    found = game.derived.get(KEY)
    if found is None:
        found = game.derived[KEY] = ForumState()
    return found


def forms_of(game: Game, seat: int) -> dict[str, Form]:
    return forum(game).forms.setdefault(seat, {})


def round_of(game: Game) -> int:
    """The testament round (OP-D27): Night 0 is round 0, Day n plus Night n round n."""
    return game.state.day


def draw(game: Game, purpose: str, options: Sequence[Any]) -> Any:
    """A uniform draw for `purpose` from a generator of its own, logged as a host event.

    Why not the game's one generator: some draws follow hidden facts (whether a dark
    past moved on, who inherits the kill authority), and a shared generator would then
    shift every later public draw (the newspaper's order, a lot between tied
    candidates), telling the table that something hidden happened. Each purpose's k-th
    draw comes from ``Random("<seed>:forum:<purpose>:<k>")`` instead, so it is fixed
    by the seed and the public course of the game alone, and a log still replays.
    """
    options = list(options)
    state = forum(game)
    k = state.draws[purpose] = state.draws.get(purpose, 0) + 1
    rng = random.Random(f"{game.seed}:forum:{purpose}:{k}")
    result = options[rng.randrange(len(options))]
    game.emit(RandomDraw(purpose, options, result), HOST)
    return result


def shuffled(game: Game, purpose: str, count: int) -> list[int]:
    """A drawn order of ``range(count)`` (the newspaper's ads), as `draw` does it."""
    state = forum(game)
    k = state.draws[purpose] = state.draws.get(purpose, 0) + 1
    order = list(range(count))
    random.Random(f"{game.seed}:forum:{purpose}:{k}").shuffle(order)
    game.emit(RandomDraw(purpose, list(range(count)), order), HOST)
    return order
