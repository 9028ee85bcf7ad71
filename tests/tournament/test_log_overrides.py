"""A game's log records the switches it was played with, so it replays alone.

The runner gets the variant (already switched) and the overrides apart; a switch given
a value the variant was not loaded with would be written into the log as played, and
the log would replay another game or fail part-way (a Palermo game played at
``moves = 2`` but logged with ``moves = 1`` stops at its first second move).
"""

from __future__ import annotations

import pytest
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.agents.registry import make_agent
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import replay
from mafia_arena.runner.match import play_match_sync


def random_players(n: int) -> list:
    return [make_agent("random") for _ in range(n)]


def test_a_switch_the_variant_was_not_loaded_with_is_refused_before_a_log_is_written():
    with pytest.raises(ValueError, match=r"override moves=1 does not match .* moves=2"):
        play_match_sync(load_variant("palermo"), random_players(12), 3, {"moves": 1})


@pytest.mark.parametrize("given", [{"moves": 1}, {"moves": "1"}])
def test_a_log_played_with_switched_rules_replays_to_the_same_game(given):
    variant = load_variant("palermo", given)
    result = play_match_sync(variant, random_players(12), 3, given, host_key=FIXED_HOST_KEY)
    assert result.log.overrides["moves"] in (1, "1")
    game = replay(result.log)
    assert [e.to_json() for e in game.events] == [e.to_json() for e in result.log.events]


def test_the_switches_in_force_are_recorded_without_overrides():
    result = play_match_sync(
        load_variant("standard"), random_players(7), 2, host_key=FIXED_HOST_KEY
    )
    assert result.log.overrides == load_variant("standard").params
    game = replay(result.log)
    assert [e.to_json() for e in game.events] == [e.to_json() for e in result.log.events]
