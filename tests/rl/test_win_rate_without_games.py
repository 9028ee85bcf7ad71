"""A win rate over no games measured nothing: it is NaN, as its interval is, and every
printed form says "no games", never 0.000 (a side that lost every game) nor nan."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from benchmarks.rl_gain import HEURISTIC, markdown

from mafia_arena.rl.evaluate import NO_GAMES, WinRate, shown_margin, win_rate
from mafia_arena.rl.team_env import TeamSetup

ROOT = Path(__file__).resolve().parents[2]


def test_a_win_rate_over_no_games_is_nan_and_prints_no_games() -> None:
    rate = win_rate(TeamSetup(), "policy", None, "heuristic", games=0)
    assert (rate.games, rate.wins) == (0, 0)
    assert math.isnan(rate.rate)
    assert all(math.isnan(end) for end in rate.interval)
    for text in (rate.row(), rate.shown(), rate.shown(interval=False)):
        assert NO_GAMES in text
        assert "0.000" not in text and "nan" not in text


def test_a_margin_with_a_rate_over_no_games_is_no_margin() -> None:
    played = WinRate("heuristic votes", "random", 10, 4)
    unplayed = WinRate("policy", "random", 0, 0)
    assert shown_margin(played, WinRate("random votes", "random", 10, 3)) == "+0.100"
    assert shown_margin(unplayed, played) == NO_GAMES
    assert shown_margin(played, unplayed) == NO_GAMES


def test_the_gain_tables_say_no_games_where_none_were_played() -> None:
    played = [WinRate(HEURISTIC, "random", 10, 4)]
    unplayed = {"policy seed 0": [WinRate("policy seed 0", "random", 0, 0)]}
    text = markdown(["random"], {HEURISTIC: played}, unplayed, 0)
    policy_lines = [line for line in text.splitlines() if line.startswith("| policy seed 0 |")]
    assert policy_lines == ["| policy seed 0 | no games |"] * 2  # win rate, then margin
    assert "nan" not in text
    assert "| heuristic votes | 0.400 [" in text


@pytest.mark.parametrize("script", ["rl_gain.py", "rl_ceiling.py"])
def test_the_benchmarks_refuse_to_play_no_games(script: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), "--games", "0"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "--games must be at least 1" in done.stderr
