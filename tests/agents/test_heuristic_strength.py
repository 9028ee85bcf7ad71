"""Statistics: the heuristic town beats random mafia far more often than random town.

Standard, 7 players, 2,000 seeded games per arm. Every seat is a `BySideAgent`, so the
deal decides who plays which way: town seats play `heuristic` (or `random`, the
baseline) and mafia seats play `random`. The 95 % Wilson intervals must not overlap.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.agents.support import town_vs_random
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.agents import RandomAgent, SyncAgent
from mafia_arena.agents.heuristic import HeuristicAgent
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match_sync
from mafia_arena.stats import wilson_interval as wilson

GAMES = 2000
PLAYERS = 7


def town_wins(town: Callable[[], SyncAgent]) -> int:
    spec = load_variant("standard")
    wins = 0
    for seed in range(GAMES):
        result = play_match_sync(spec, town_vs_random(town, PLAYERS), seed, host_key=FIXED_HOST_KEY)
        wins += result.winner == "town"
    return wins


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(81, 263)
    assert abs(low - 0.2553) < 1e-3 and abs(high - 0.3662) < 1e-3
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] > 0.999


def test_heuristic_town_beats_random_mafia_clearly_more_than_random_town() -> None:
    heuristic = town_wins(HeuristicAgent)
    baseline = town_wins(RandomAgent)
    h_low, h_high = wilson(heuristic, GAMES)
    r_low, r_high = wilson(baseline, GAMES)
    report = (
        f"heuristic town {heuristic / GAMES:.3f} [{h_low:.3f}, {h_high:.3f}], "
        f"random town {baseline / GAMES:.3f} [{r_low:.3f}, {r_high:.3f}]"
    )
    assert h_low > r_high, report
    assert heuristic / GAMES > 0.5, report
