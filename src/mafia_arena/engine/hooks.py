"""Extension points for roles with passive traits (retaliation, succession, conversion).

Hooks are plain functions registered by trait modules; the core night and death code
calls them in order. Keeping them here lets a variant's traits add behaviour without the
core knowing each role.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mafia_arena.engine.game import Game
    from mafia_arena.engine.state import NightState

DawnHook = Callable[["Game", "NightState", list[int]], list[int]]
DeathHook = Callable[["Game", list[int], str], None]

DAWN_HOOKS: list[DawnHook] = []
"""Called at dawn with the seats about to die; returns the final list (e.g. retaliation)."""

DEATH_HOOKS: list[DeathHook] = []
"""Called after deaths with (seats, cause) for triggers (succession, conversion, ...)."""

NightHook = Callable[["Game", int], None]
DayEndHook = Callable[["Game"], None]

NIGHT_HOOKS: list[NightHook] = []
"""Called at the start of each night with its number, before any step (introductions of
players who joined a team since the last night)."""

DAY_END_HOOKS: list[DayEndHook] = []
"""Called by a day's ``end_day`` step, before its win check (activation when accused)."""
