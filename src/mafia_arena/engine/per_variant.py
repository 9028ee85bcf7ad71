"""Values derived from a variant alone, worked out once and shared by its games.

Why: a tournament or a benchmark starts thousands of games of one variant, and each
game used to derive the same things again at its start (its hooks, its round limit). A
`Variant` is frozen but not hashable (it holds dicts), so entries are keyed by
`id(variant)` and keep the variant itself, which keeps its id from being reused, and
are checked by identity. Bounded by clearing, since variants built with switches are
many but short-lived. Only immutable values belong here: every game of the variant
gets the same object.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from mafia_arena.rules import Variant

T = TypeVar("T")

_TABLE: dict[int, tuple[Variant, dict[Hashable, Any]]] = {}
_MAX_VARIANTS = 64


def per_variant(variant: Variant, key: Hashable, compute: Callable[[], T]) -> T:
    """The value `compute()` gives for `variant` under `key`, computed on first use."""
    entry = _TABLE.get(id(variant))
    if entry is None or entry[0] is not variant:
        if len(_TABLE) >= _MAX_VARIANTS:
            _TABLE.clear()
        entry = _TABLE[id(variant)] = (variant, {})
    values = entry[1]
    if key in values:
        return values[key]
    value = values[key] = compute()
    return value
