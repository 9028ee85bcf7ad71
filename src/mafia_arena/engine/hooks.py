"""Extension points for roles with passive traits (retaliation, succession, conversion).

A game's `Hooks` are chosen from its variant when the game starts
(`engine.extensions.hooks_for`): the night primitives its steps use (the copy step
included only where a step copies) and the trait hooks of the traits its roles carry.
The core night, death and day code calls them in order. Nothing is registered at
import, so which rules run depends on the variant alone, not on which modules some
caller happened to import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mafia_arena.engine.actions import Action
    from mafia_arena.engine.game import Game
    from mafia_arena.engine.state import NightState

DawnHook = Callable[["Game", "NightState", list[int]], list[int]]
"""Called at dawn with the seats about to die; returns the final list (e.g. retaliation)."""

DeathHook = Callable[["Game", list[int], str], None]
"""Called after deaths with (seats, cause) for triggers (succession, conversion, ...)."""

NightHook = Callable[["Game", int], None]
"""Called at the start of each night with its number, before any step (introductions of
players who joined a team since the last night)."""

DayEndHook = Callable[["Game"], None]
"""Called by a day's ``end_day`` step, before its win check (activation when accused)."""


@dataclass(frozen=True)
class Hooks:
    """The rule extensions one game runs, in calling order (see the module doc)."""

    actions: Mapping[str, Action]
    dawn: tuple[DawnHook, ...] = ()
    death: tuple[DeathHook, ...] = ()
    night: tuple[NightHook, ...] = ()
    day_end: tuple[DayEndHook, ...] = ()
