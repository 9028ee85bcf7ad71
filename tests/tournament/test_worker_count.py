"""One spec played on a private local Ray of 1 worker and of 2 stores the same games and
builds the same board.

docs/tournaments.md, *What two runs of a spec share*: two results folders of one spec,
played by the same code with the same host key, hold the same records and log files
and give the same leaderboard folder, on Ray with one worker or several. Two processes
each play `tests.tournament.worker_count_store`'s spec (scripted players and the shipped
policy on four variants, two games a batch) on the private cluster the driver starts,
one of 1 CPU and one of 2, and write its board. With two workers the batches finish
out of game order and the games of a matchup are split between two processes, each
with its own caches; with one, every game runs in one process after the other.
Everything they write must agree but what those docs name as the run's own: the order
of the lines of ``games.jsonl`` and the manifest's ``store_id``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.hash_seeds import finish, run_module
from tests.tournament.same_results import assert_same_results

pytest.importorskip("ray")

MODULE = "tests.tournament.worker_count_store"
GAMES = 16
"""The spec's games: 4 on each of its 4 variants."""


def cluster(folder: Path) -> dict[str, object]:
    """What the driver in `folder` recorded of the cluster it started."""
    return dict(json.loads((folder / "cluster.json").read_text(encoding="utf-8")))


def test_one_worker_and_two_store_the_same_games_and_build_the_same_board(
    tmp_path: Path,
) -> None:
    one, two = tmp_path / "one-worker", tmp_path / "two-workers"
    children = [
        run_module(MODULE, one, "1", hash_seed="0"),
        run_module(MODULE, two, "2", hash_seed="0"),
    ]
    for child in children:
        finish(child, timeout=400)
    assert cluster(one) == {"started": True, "cpus": 1.0}
    assert cluster(two) == {"started": True, "cpus": 2.0}

    assert_same_results(one, two, GAMES, any_line_order=True)
