"""The caches on the decision path give what the uncached code gave.

Shared choices keep their rendered key, prompts are built once per round or night,
and hooks once per variant: each must still say the right thing at every decision.
"""

from __future__ import annotations

import random

import pytest

from mafia_arena.engine import Game
from mafia_arena.engine.choices import Choice, shared_choice
from mafia_arena.engine.per_variant import per_variant
from mafia_arena.rules import load_variant


def test_a_shared_choice_has_the_key_of_an_equal_choice_built_elsewhere():
    for verb, target, value in [
        ("pass", None, None),
        ("target", 3, None),
        ("claim_role", 2, "doctor"),
        ("bid", None, "4"),
    ]:
        shared = shared_choice(verb, target, value)
        built = Choice(verb, target, value)
        assert shared.key == built.key == Choice.parse(built.key).key
        assert Choice.parse(shared.key) == shared


@pytest.mark.parametrize("name", ["standard", "classic", "simple"])
def test_every_prompt_names_the_current_day_or_night(name):
    """Prompts are cached per round and per night: none may carry a stale number."""
    for seed in range(3):
        game, rng = Game(load_variant(name), 10, seed), random.Random(seed)
        while not game.over:
            for seat, request in sorted(game.pending().items()):
                day = game.state.day
                if request.kind.startswith("night:"):
                    assert request.prompt.startswith(f"Night {day}:"), request.prompt
                elif request.kind in ("speak", "nominate"):
                    assert request.prompt.startswith(f"Day {day}"), request.prompt
                game.submit(seat, rng.choice(request.choices))


def test_games_of_one_variant_share_its_hooks_read_only():
    variant = load_variant("club")
    first, second = Game(variant, 16, 1), Game(variant, 16, 2)
    assert first.hooks is second.hooks
    with pytest.raises(TypeError):
        first.hooks.actions["kill"] = first.hooks.actions["check"]  # type: ignore[index]


def test_a_value_is_derived_once_per_variant_object_and_key():
    standard, again = load_variant("standard"), load_variant("standard")
    calls: list[str] = []

    def compute(tag: str) -> str:
        calls.append(tag)
        return tag

    assert per_variant(standard, "probe", lambda: compute("a")) == "a"
    assert per_variant(standard, "probe", lambda: compute("b")) == "a"
    assert per_variant(again, "probe", lambda: compute("c")) == "c"
    assert per_variant(standard, ("probe", 2), lambda: compute("d")) == "d"
    assert calls == ["a", "c", "d"]
