"""Trait hooks and the copy step come from the variant, not from what was imported."""

from __future__ import annotations

import importlib

from mafia_arena.engine import Game
from mafia_arena.engine.extensions import hooks_for
from mafia_arena.rules import load_variant


def _names(game: Game) -> list[str]:
    hooks = game.hooks
    return [h.__name__ for h in (*hooks.dawn, *hooks.death, *hooks.night, *hooks.day_end)]


def test_a_variant_without_traits_runs_no_trait_hook() -> None:
    importlib.import_module("mafia_arena.engine.traits")  # importing switches nothing on
    importlib.import_module("mafia_arena.engine.copying")
    game = Game(load_variant("standard"), 7, 1)
    assert _names(game) == [] and "copy" not in game.hooks.actions


def test_club_runs_the_hooks_of_its_traits_in_order() -> None:
    game = Game(load_variant("club"), 12, 1)
    assert _names(game) == [
        "immunity",
        "retaliation",
        "succession",
        "inheritance",
        "conversion",
        "introductions",
        "activation",
    ]
    assert "copy" in game.hooks.actions


def test_one_trait_brings_only_its_own_hook() -> None:
    """Giving the standard doctor one trait adds that hook alone."""
    standard = load_variant("standard")
    doctor = standard.roles["doctor"].model_copy(update={"traits": {"night_immune": True}})
    variant = standard.model_copy(update={"roles": {**standard.roles, "doctor": doctor}})
    hooks = hooks_for(variant)
    assert [h.__name__ for h in hooks.dawn] == ["immunity"]
    assert hooks.death == hooks.night == hooks.day_end == ()
