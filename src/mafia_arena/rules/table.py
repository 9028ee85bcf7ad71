"""Load a variant for the tables it will be played at, and say which switch broke it.

Why: `load_variant` checks count expressions at the variant's smallest and largest
table only, so a deck that cannot be dealt at the requested size (``run --players 7``
of a variant from 8, ``mafia = "n/3"`` at 7 players) would surface after a progress
bar or a tournament has started. `load_table` also works out the deck at every
requested player count, before anything is played.

When the error is the overrides' fault — the variant without them loads and deals at
those sizes — the raised `VariantError` says which ones in ``overrides`` (those that
fail on their own, else all of them), so the caller can point at its own spelling of
them (``--set mafia=n/0``, ``variants.0.set.mafia``). ``players`` is the player count
whose deal failed, or None when loading itself failed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mafia_arena.rules.composition import deck_counts
from mafia_arena.rules.errors import VariantError
from mafia_arena.rules.loader import load_variant
from mafia_arena.rules.spec import Variant


def load_table(
    name_or_path: str | Path, overrides: Mapping[str, Any], players: Iterable[int]
) -> Variant:
    """The variant with `overrides`, checked to deal at each of `players`.

    Raises `VariantError` (file, key, reason) with ``overrides`` and ``players`` set
    as the module docstring describes.
    """
    counts = list(players)
    try:
        return _dealt(name_or_path, overrides, counts)
    except VariantError as error:
        error.overrides = _to_blame(name_or_path, overrides, counts)
        raise


def _dealt(name_or_path: str | Path, overrides: Mapping[str, Any], players: list[int]) -> Variant:
    variant = load_variant(name_or_path, overrides)
    for n in players:
        try:
            deck_counts(variant, n)
        except VariantError as error:
            error.players = n
            raise
    return variant


def _fails(name_or_path: str | Path, overrides: Mapping[str, Any], players: list[int]) -> bool:
    try:
        _dealt(name_or_path, overrides, players)
    except VariantError:
        return True
    return False


def _to_blame(
    name_or_path: str | Path, overrides: Mapping[str, Any], players: list[int]
) -> dict[str, Any]:
    """The overrides a failure comes from; empty when the variant fails without them."""
    if not overrides or _fails(name_or_path, {}, players):
        return {}
    alone = {k: v for k, v in overrides.items() if _fails(name_or_path, {k: v}, players)}
    return alone or dict(overrides)
