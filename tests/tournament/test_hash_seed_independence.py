"""One spec played in processes with other hash seeds stores the same games and board.

docs/tournaments.md, *Record schema*: no field of a record depends on time or machine;
docs/leaderboard.md: the same set of games gives the same bytes on disk. Two processes
with ``PYTHONHASHSEED`` 0 and 1 each play `tests.tournament.seeded_store`'s spec
in-process (scripted players on every variant, the fixed host key, no MLflow) and write
its leaderboard. Everything they write must agree but the store's id, drawn at random
for each new results folder (docs/tournaments.md, *What two runs of a spec share*).
(In-process against Ray with two workers, in one driver, is `test_tournament.py`'s
reference comparison.)
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.hash_seeds import finish, run_module

from mafia_arena.experiments import read_records

MODULE = "tests.tournament.seeded_store"


def files(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` by its relative path."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def test_a_spec_stores_the_same_games_and_board_under_other_hash_seeds(tmp_path: Path) -> None:
    first, second = tmp_path / "hash-seed-0", tmp_path / "hash-seed-1"
    children = [
        run_module(MODULE, first, hash_seed="0"),
        run_module(MODULE, second, hash_seed="1"),
    ]
    for child in children:
        finish(child)

    records = read_records(first / "results" / "games.jsonl")
    assert len(records) == 10 and not any(r["void"] for r in records)
    assert read_records(second / "results" / "games.jsonl") == records

    stored, again = files(first / "results"), files(second / "results")
    assert sorted(stored) == sorted(again)
    manifests = [json.loads(f.pop("manifest.json")) for f in (stored, again)]
    assert manifests[0].pop("store_id") != manifests[1].pop("store_id")  # drawn per folder
    assert manifests[0] == manifests[1]
    differ = sorted(name for name in stored if stored[name] != again[name])
    assert differ == [], f"stored differently: {differ}"

    board, board_again = files(first / "board"), files(second / "board")
    assert sorted(board) == [
        "README.md",
        "leaderboard.csv",
        "ratings.png",
        "roles.csv",
        "win_rate_by_role.png",
    ]
    differ = sorted(name for name in board if board[name] != board_again.get(name))
    assert differ == [], f"boards differ: {differ}"
