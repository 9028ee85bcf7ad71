"""A results store holds standard JSON: its writers refuse a number that is not finite
(NaN, Infinity), naming the field, before anything of the record is written, and its
readers refuse the ``NaN``/``Infinity``/``-Infinity`` tokens Python's JSON writes and
reads, naming file and line."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest

from mafia_arena.experiments.records import log_path
from mafia_arena.experiments.store import ResultsStore
from mafia_arena.leaderboard.records import LeaderboardError, check_store
from mafia_arena.results_file import StoredRecords, StoreFormatError, record_line
from mafia_arena.web.storage import append_record

TOKENS = ["NaN", "Infinity", "-Infinity"]


def _record(index: int, **extra: Any) -> dict[str, Any]:
    return {"spec_hash": "h", "game_index": index, "log_path": log_path(index), **extra}


def _game(index: int, **extra: Any) -> dict[str, Any]:
    return {"record": _record(index, **extra), "log": f'{{"game": {index}}}\n'}


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"metrics": {"game": {"share": math.nan}}}, "metrics.game.share"),
        ({"seats": [{"cost": 0.5}, {"cost": math.inf}]}, "seats[1].cost"),
        ({"metrics": {"per_seat": {"x": [0.0, -math.inf]}}}, "metrics.per_seat.x[1]"),
    ],
)
def test_the_store_refuses_a_number_that_is_not_finite_naming_its_field(
    tmp_path: Path, extra: dict[str, Any], field: str
) -> None:
    with ResultsStore(tmp_path) as store:
        store.append([_game(0)])
        with pytest.raises(ValueError, match=f"^{re.escape(field)}: .* not a finite"):
            store.append([_game(1), _game(2, **extra)])
    assert (tmp_path / "games.jsonl").read_text().count("\n") == 1  # nothing of the batch
    assert sorted(p.name for p in (tmp_path / "logs").iterdir()) == ["game-000000.jsonl"]


def test_the_web_store_refuses_a_number_that_is_not_finite_naming_its_field(
    tmp_path: Path,
) -> None:
    path = tmp_path / "games.jsonl"
    with pytest.raises(ValueError, match=r"^seats\[0\]\.cost: nan is not a finite number"):
        append_record(path, _record(0, seats=[{"cost": math.nan}]))
    assert not path.exists() or path.read_bytes() == b""


def test_a_finite_record_is_written_as_before() -> None:
    assert record_line({"a": [1.5, None]}, sort_keys=True) == '{"a": [1.5, null]}'


@pytest.mark.parametrize("token", TOKENS)
def test_a_stored_nan_token_is_refused_naming_file_and_line(tmp_path: Path, token: str) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(
        f'{{"spec_hash": "h", "game_index": 0, "metrics": {{"game": {{"x": {token}}}}}}}\n'
        '{"spec_hash": "h", "game_index": 1}\n'
    )
    message = rf"{path}: line 1: not a JSON record \({token} is not standard JSON"
    with pytest.raises(StoreFormatError, match=message):
        StoredRecords(path)
    with pytest.raises(LeaderboardError, match=message):
        check_store(path)
