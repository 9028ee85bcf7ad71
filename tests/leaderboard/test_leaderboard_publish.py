"""write_leaderboard: files, byte-identical reruns, plots."""

from __future__ import annotations

import errno
import os
import random
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mafia_arena.leaderboard import OUTPUT_FILES, publish, write_leaderboard
from mafia_arena.leaderboard.plots import plot_ratings, plot_win_rate_by_role
from mafia_arena.leaderboard.table import leaderboard_table, roles_table

GameFactory = Callable[..., dict[str, Any]]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PROVENANCE: dict[str, Any] = {
    "spec": "experiments/scripted-baseline.yaml",
    "seed": 12345,
    "package_version": "0.1.0",
    "command": "mafia-arena leaderboard results/scripted-baseline.jsonl",
    "notes": {"b": 2, "a": 1},
}


def _write(records: list[dict[str, Any]], out: Path) -> list[Path]:
    return write_leaderboard(records, out, title="Test board", provenance=PROVENANCE, n_boot=20)


def test_a_board_of_void_games_only_shows_the_agents_fallbacks(
    tmp_path: Path, game: GameFactory
) -> None:
    """Every game void (the endpoint was down all along): nothing is rated, yet the
    README's agents table shows what the CSV has, each agent's fallback rates and void
    games, rather than "No games" over a CSV that says the endpoint failed."""
    records = []
    for index in range(2):
        record = game(
            [("down", "villager", "town"), ("heuristic", "mafioso", "mafia")],
            "town",
            game_index=index,
            kinds={"down": "llm"},
        )
        record["void"] = True
        record["seats"][0].update(fallbacks=10, fallbacks_infrastructure=10)
        records.append(record)
    readme = _write(records, tmp_path)[0].read_text(encoding="utf-8")
    agents = readme.split("## Agents", 1)[1].split("## By role", 1)[0]
    assert "_No games._" not in agents
    (row,) = [line for line in agents.splitlines() if "| down | llm |" in line]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[3] == "0"  # no game counted
    assert "1.000" in cells and "2" in cells[-3:]  # infrastructure fallbacks, void games
    assert "2 void games (decided by infrastructure failures) not counted." in readme


def test_writes_all_files_byte_identically(
    tmp_path: Path, graded_records: list[dict[str, Any]]
) -> None:
    first = _write(graded_records, tmp_path / "one")
    shuffled = list(graded_records)
    random.Random(2).shuffle(shuffled)
    second = _write(shuffled, tmp_path / "two")
    again = _write(graded_records, tmp_path / "one")
    assert [p.name for p in first] == list(OUTPUT_FILES)
    assert again == first
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    for png in first[3:]:
        data = png.read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 5_000
        assert b"Software" not in data and b"matplotlib" not in data


def test_readme_contents(tmp_path: Path, graded_records: list[dict[str, Any]]) -> None:
    readme = _write(graded_records, tmp_path)[0].read_text(encoding="utf-8")
    assert readme.startswith("# Test board\n")
    for value in ("experiments/scripted-baseline.yaml", "12345", "0.1.0", PROVENANCE["command"]):
        assert value in readme
    assert '{"a": 1, "b": 2}' in readme
    assert "| 1 | A | llm |" in readme
    assert "ratings.png" in readme and "win_rate_by_role.png" in readme


def test_views_and_empty_input(tmp_path: Path, graded_records: list[dict[str, Any]]) -> None:
    paths = write_leaderboard(
        graded_records, tmp_path / "human", title="Humans", provenance={}, view="human", n_boot=5
    )
    assert "0 games" in paths[0].read_text(encoding="utf-8")
    assert all(p.exists() and p.stat().st_size > 0 for p in paths)


def test_plot_functions_produce_pngs(tmp_path: Path, graded_records: list[dict[str, Any]]) -> None:
    table = leaderboard_table(graded_records, n_boot=10)
    p1 = plot_ratings(table, tmp_path / "r.png", title="Ratings")
    p2 = plot_win_rate_by_role(
        roles_table(graded_records, n_boot=0), tmp_path / "h.png", agent_order=list(table["agent"])
    )
    for p in (p1, p2):
        assert p.read_bytes().startswith(PNG_MAGIC)
    p3 = plot_ratings(table, tmp_path / "r2.png", title="Ratings")
    assert p3.read_bytes() == p1.read_bytes()


@pytest.mark.parametrize(
    "stop", [KeyboardInterrupt(), OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))]
)
def test_an_interrupted_publish_leaves_the_previous_board_as_it_was(
    tmp_path: Path,
    graded_records: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    stop: BaseException,
) -> None:
    """Ctrl-C or a full disk during the last figure: the README and tables of the new
    games must not stand beside the old board's figures, nor a truncated file remain;
    a failed write names the board's folder (the system's error names no file)."""
    out = tmp_path / "board"
    _write(graded_records, out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def stopped(*args: Any, **kwargs: Any) -> None:
        raise stop

    monkeypatch.setattr(publish, "plot_win_rate_by_role", stopped)
    with pytest.raises(type(stop)) as caught:
        _write(graded_records[: len(graded_records) // 2], out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    if isinstance(stop, OSError):
        assert isinstance(caught.value, OSError) and caught.value.filename == str(out)


def test_ctrl_c_while_the_board_is_renamed_waits_until_all_of_it_is(
    tmp_path: Path, graded_records: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C after the first of the new board's files replaced the published one: the
    others are renamed too before it stops, so the README never describes other games
    than the tables and figures beside it, and no staged file is left."""
    half = graded_records[: len(graded_records) // 2]
    expected = {p.name: p.read_bytes() for p in _write(half, tmp_path / "expected")}
    out = tmp_path / "board"
    _write(graded_records, out)
    replace = os.replace
    renamed: list[str] = []

    def interrupted(source: Any, target: Any) -> None:
        replace(source, target)
        renamed.append(str(target))
        if len(renamed) == 1:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _write(half, out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == expected


@pytest.mark.parametrize(
    "stop", [KeyboardInterrupt(), OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))]
)
def test_a_stopped_publish_removes_the_empty_folders_it_made(
    tmp_path: Path,
    graded_records: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    stop: BaseException,
) -> None:
    """Ctrl-C (or a failure) while the ratings are fitted, before any file is written:
    the board's folder, and the parent it made for it, are gone again, rather than an
    empty folder of a board that was never published."""

    def stopped(*args: Any, **kwargs: Any) -> None:
        raise stop

    monkeypatch.setattr(publish, "compute_ratings", stopped)
    with pytest.raises(type(stop)):
        _write(graded_records, tmp_path / "boards" / "new")
    assert list(tmp_path.iterdir()) == []


def test_a_stopped_publish_keeps_a_folder_that_was_there(
    tmp_path: Path, graded_records: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder the call did not make is the user's: left there, even empty."""
    out = tmp_path / "board"
    out.mkdir()

    def stopped(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(publish, "compute_ratings", stopped)
    with pytest.raises(KeyboardInterrupt):
        _write(graded_records, out)
    assert out.is_dir() and list(out.iterdir()) == []
