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
