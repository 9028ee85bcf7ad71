"""The same games give the same log bytes in any process, and replay in any other.

README, *Determinism*: variant, switches, players, seed and decisions determine a game's
log byte for byte. Two processes with different ``PYTHONHASHSEED`` values (0 and 1) play
the cases of `tests.engine.seeded_logs` (every variant, the largest club and Palermo
tables, scripted players with the fixed host key), and a third (hash seed 2) replays the
first one's logs with the Python API and ``mafia-arena replay``. In-process tests play
every game under one hash seed, where a set of strings is iterated in one order however
often the game is played; a log that depended on that order would differ here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.engine.seeded_logs import CASES
from tests.hash_seeds import finish, run_module

MODULE = "tests.engine.seeded_logs"


def test_games_log_the_same_bytes_under_other_hash_seeds_and_replay_there(
    tmp_path: Path,
) -> None:
    first, second = tmp_path / "hash-seed-0", tmp_path / "hash-seed-1"
    children = [
        run_module(MODULE, "play", first, hash_seed="0"),
        run_module(MODULE, "play", second, hash_seed="1"),
    ]
    for child in children:
        finish(child)
    names = sorted(f"{name}.jsonl" for name in CASES)
    assert sorted(p.name for p in first.iterdir()) == names
    for name in names:
        a, b = (first / name).read_bytes(), (second / name).read_bytes()
        if a != b:
            pairs = enumerate(zip(a.splitlines(), b.splitlines(), strict=False), 1)
            line = next((n for n, (x, y) in pairs if x != y), "the end")
            pytest.fail(f"{name}: the logs of hash seeds 0 and 1 differ from line {line} on")

    children = [
        run_module(MODULE, "replay", first, hash_seed="2"),
        run_module(MODULE, "replay", second, hash_seed="0"),
    ]
    replayed, again = ([json.loads(line) for line in finish(c).splitlines()] for c in children)
    assert [r["log"] for r in replayed] == names
    for report in replayed:
        assert report["differs"] is None and report["exit"] == 0 and report["matches"], report
    # the replay command's transcript is the same whichever process prints it
    assert [r["transcript"] for r in replayed] == [r["transcript"] for r in again]
