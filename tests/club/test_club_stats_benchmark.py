"""The club statistics' count of ability uses (`benchmarks/club_stats.py`, the tables of
docs/rules/club.md), on real random games."""

from __future__ import annotations

from benchmarks.club_stats import PresetStats, play_random, record

from mafia_arena.engine.catalogue import NightAction
from mafia_arena.rules import load_variant

VARIANT = load_variant("club")


def copies(seed: int) -> tuple[PresetStats, list[NightAction]]:
    """A 20-player random game's statistics and its cardsharp's copy actions."""
    game = play_random(VARIANT, 20, seed)
    stats = PresetStats(20)
    record(stats, game)
    actions = [
        e.fact
        for e in game.events
        if isinstance(e.fact, NightAction) and e.fact.step == "cardsharp_copy"
    ]
    return stats, actions


def test_a_copy_with_nothing_to_copy_is_no_use_of_the_ability() -> None:
    stats, actions = copies(4)
    assert [a.skill for a in actions] == [None]  # the game's one copy was blocked
    assert stats.dealt["cardsharp"] == 1
    assert stats.fired_games["cardsharp"] == 0
    assert stats.fired_total["cardsharp"] == 0


def test_each_copy_that_took_effect_is_one_use() -> None:
    stats, actions = copies(6)
    taken = [a for a in actions if a.skill is not None]
    assert 0 < len(taken) < len(actions)  # both kinds in one game
    assert stats.fired_games["cardsharp"] == 1
    assert stats.fired_total["cardsharp"] == len(taken)
