"""Choose the rule extensions a variant uses, once per variant.

Why per variant rather than global lists filled at import: the rules a game runs must
follow from its variant file alone (a module imported elsewhere must not switch a
trait on), and a variant whose roles carry no trait runs no trait hook at all.
"""

from __future__ import annotations

from types import MappingProxyType

from mafia_arena.engine.actions import ACTIONS
from mafia_arena.engine.copying import COPY
from mafia_arena.engine.hooks import Hooks
from mafia_arena.engine.per_variant import per_variant
from mafia_arena.engine.traits import trait_hooks
from mafia_arena.rules import Variant


def hooks_for(variant: Variant) -> Hooks:
    """The night primitives and trait hooks of `variant` (see `engine.hooks`).

    Chosen once per variant and shared by its games (`engine.per_variant`): they follow
    from the variant alone, and the actions are a read-only mapping."""
    return per_variant(variant, "hooks", lambda: _hooks(variant))


def _hooks(variant: Variant) -> Hooks:
    actions = dict(ACTIONS)
    if any(step.action == COPY.name for step in variant.night):
        actions[COPY.name] = COPY
    dawn, death, night, day_end = trait_hooks(variant)
    return Hooks(MappingProxyType(actions), dawn, death, night, day_end)
