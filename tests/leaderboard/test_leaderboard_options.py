"""`mafia-arena leaderboard` refuses, before anything is written, a source or option it
cannot honour: a store that does not exist, a store holding two specs' games, an output
folder that is a file, under a file, the results store itself or inside it, or a folder
whose README is not a board's, ``--results`` next to a store (where it is ignored), and
an experiment name that would put the default folder outside leaderboards/. Each is one
paragraph naming the path or option and the reason, with exit code 2, and every file
stays as it was.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.cli.support import assert_one_paragraph, run_cli

from mafia_arena.leaderboard.synthetic import synthetic_records

STRENGTHS = {"a": 1.0, "b": 0.0, "c": -1.0}


def write_store(folder: Path, records: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(record, sort_keys=True) + "\n" for record in records)
    (folder / "games.jsonl").write_text(lines)
    return folder


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return write_store(tmp_path / "results", synthetic_records(30, strengths=STRENGTHS))


def snapshot(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _a_file(tmp_path: Path, store: Path) -> Path:
    path = tmp_path / "a-file"
    path.write_text("keep\n")
    return path


def _under_a_file(tmp_path: Path, store: Path) -> Path:
    return _a_file(tmp_path, store) / "board"


def _the_store(tmp_path: Path, store: Path) -> Path:
    return store


def _inside_the_store(tmp_path: Path, store: Path) -> Path:
    return store / "board"


def _a_folder_with_its_own_readme(tmp_path: Path, store: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# My project\n\nkeep this\n")
    return folder


OUT_ERRORS: list[tuple[str, Callable[[Path, Path], Path], str]] = [
    ("file", _a_file, "is a file, not a folder"),
    ("under-a-file", _under_a_file, "is a file"),
    ("the-store", _the_store, "inside the results store"),
    ("inside-the-store", _inside_the_store, "inside the results store"),
    ("foreign-readme", _a_folder_with_its_own_readme, "README.md is not a leaderboard's"),
]


@pytest.mark.parametrize(
    ("make", "reason"), [c[1:] for c in OUT_ERRORS], ids=[c[0] for c in OUT_ERRORS]
)
def test_an_output_folder_that_cannot_take_the_board_is_refused_untouched(
    tmp_path: Path,
    store: Path,
    capsys: pytest.CaptureFixture[str],
    make: Callable[[Path, Path], Path],
    reason: str,
) -> None:
    out = make(tmp_path, store)
    before = snapshot(tmp_path)
    code, err = run_cli(["leaderboard", str(store), "--out", str(out)], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"error: {out}: ", reason, "(--out)")  # FOLDER: REASON (OPTION)
    assert snapshot(tmp_path) == before


def test_a_store_that_does_not_exist_is_named_as_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-results"
    code, err = run_cli(["leaderboard", str(missing), "--out", str(tmp_path / "b")], capsys)
    assert code == 2, err
    assert_one_paragraph(err, str(missing), "no such results store")
    assert not (tmp_path / "b").exists()


def test_a_binary_file_given_as_the_store_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = tmp_path / "picture.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00\n")
    code, err = run_cli(["leaderboard", str(binary), "--out", str(tmp_path / "b")], capsys)
    assert code == 2, err
    assert_one_paragraph(err, str(binary), "not a results store", "not UTF-8")
    assert not (tmp_path / "b").exists()


def test_a_store_of_two_specs_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = synthetic_records(20, strengths=STRENGTHS, experiment="one")
    second = synthetic_records(20, strengths=STRENGTHS, experiment="two", seed=1)
    mixed = write_store(tmp_path / "mixed", first + second)
    out = tmp_path / "board"
    code, err = run_cli(["leaderboard", str(mixed), "--out", str(out)], capsys)
    assert code == 2, err
    store = mixed / "games.jsonl"
    assert_one_paragraph(err, f"{store}: spec_hash: the store holds games of 2 specs", "(one)")
    assert not out.exists()


def test_results_next_to_a_results_store_is_refused_not_ignored(
    tmp_path: Path, store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other"
    args = ["leaderboard", str(store), "--results", str(other), "--out", str(tmp_path / "b")]
    code, err = run_cli(args, capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"error: {other}: --results ", "is a results store, not a spec")
    assert not (tmp_path / "b").exists() and not other.exists()


@pytest.mark.parametrize("name", ["../../escaped", "a/b", ".."])
def test_an_experiment_name_that_leaves_leaderboards_needs_an_out_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    records = synthetic_records(20, strengths=STRENGTHS, experiment=name)
    folder = write_store(tmp_path / "deep" / "er" / "results", records)
    work = tmp_path / "deep" / "er" / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    before = snapshot(tmp_path)
    code, err = run_cli(["leaderboard", str(folder)], capsys)
    assert code == 2, err
    store = folder / "games.jsonl"
    assert_one_paragraph(err, f"{store}: experiment: {name!r} cannot name a folder", "give --out")
    assert snapshot(tmp_path) == before


def test_a_previous_board_is_published_over_as_before(
    tmp_path: Path, store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Valid options are untouched: a board folder (with its host key) is rewritten."""
    out = tmp_path / "board"
    assert run_cli(["leaderboard", str(store), "--out", str(out)], capsys)[0] == 0
    (out / "host_key").write_text("kept\n")
    code, err = run_cli(["leaderboard", str(store), "--out", str(out)], capsys)
    assert code == 0, err
    assert (out / "README.md").read_text().startswith("# Leaderboard: synthetic")
    assert (out / "host_key").read_text() == "kept\n"


@pytest.mark.parametrize(
    "option",
    [["--no-ray"], ["--no-tracking"], ["--tracking-uri", "sqlite:///x.db"]],
    ids=["no-ray", "no-tracking", "tracking-uri"],
)
def test_playing_options_beside_a_store_are_refused(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    """They say how a spec's missing games are played; beside a results store they were
    silently ignored."""
    out = tmp_path / "board"
    code, err = run_cli(["leaderboard", str(store), "--out", str(out), *option], capsys)
    assert code == 2, err
    assert_one_paragraph(err, option[0], "results store, not a spec")
    assert not out.exists()


def test_ctrl_c_before_the_board_is_out_leaves_no_out_folder_it_made(
    tmp_path: Path,
    store: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C while the ratings are fitted: one line, exit 130, and the ``--out`` folder
    the command made (with its parent) is removed again, not left behind empty."""
    from mafia_arena.leaderboard import publish

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(publish, "compute_ratings", interrupted)
    out = tmp_path / "boards" / "x"
    code, err = run_cli(["leaderboard", str(store), "--out", str(out)], capsys)
    assert code == 130, err
    assert_one_paragraph(err, "interrupted before the board was written")
    assert not (tmp_path / "boards").exists()
