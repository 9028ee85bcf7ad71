"""Two results folders of one spec, each with its leaderboard in ``board``, compared
byte for byte but for what docs/tournaments.md (*What two runs of a spec share*) names
as a run's own: the manifest's ``store_id`` (drawn for each new folder) and, where the
games of a run may finish in any order, the order of ``games.jsonl``'s lines.
"""

from __future__ import annotations

import json
from pathlib import Path

from mafia_arena.experiments import read_records

BOARD_FILES = ["README.md", "leaderboard.csv", "ratings.png", "roles.csv", "win_rate_by_role.png"]
"""The files a leaderboard folder holds."""


def files(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` by its relative path."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def assert_same_results(first: Path, second: Path, games: int, *, any_line_order: bool) -> None:
    """`first` and `second` (each holding ``results`` and ``board``) stored the same
    `games` games, none void, and built the same board; with `any_line_order` the lines
    of ``games.jsonl`` are compared as sets of lines."""
    records = read_records(first / "results" / "games.jsonl")
    assert len(records) == games and not any(r["void"] for r in records)
    assert read_records(second / "results" / "games.jsonl") == records

    stored, again = files(first / "results"), files(second / "results")
    assert sorted(stored) == sorted(again)
    if any_line_order:
        lines = [sorted(f.pop("games.jsonl").splitlines()) for f in (stored, again)]
        assert lines[0] == lines[1], "the stores hold other lines (their order aside)"
    manifests = [json.loads(f.pop("manifest.json")) for f in (stored, again)]
    assert manifests[0].pop("store_id") != manifests[1].pop("store_id")  # drawn per folder
    assert manifests[0] == manifests[1]
    differ = sorted(name for name in stored if stored[name] != again[name])
    assert differ == [], f"stored differently: {differ}"

    board, board_again = files(first / "board"), files(second / "board")
    assert sorted(board) == BOARD_FILES
    differ = sorted(name for name in board if board[name] != board_again.get(name))
    assert differ == [], f"boards differ: {differ}"
