"""A results folder whose files cannot be read as they must be: a store line nested too
deeply for the JSON parser or holding a number of more digits than Python converts, a
store that is a symbolic-link loop, a device (``/dev/zero`` never ends a line) or a
folder, a manifest nested too deeply. A resume and the leaderboard stop with one
paragraph naming the file (and line) and the reason, exit code 2, leaving the store as
it was; a line of ``failed.jsonl`` nested too deeply is history, skipped like a torn one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from tests.cli.support import assert_one_paragraph, run_cli
from tests.tournament.test_damaged_store import copy, played, resume

from mafia_arena.experiments.provenance import MANIFEST_NAME

__all__ = ["played"]  # the fixture, shared with test_damaged_store

pytestmark = pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy")  # MLflow's

NESTED = '{"a": ' + "[" * 5000 + "]" * 5000 + "}"
HUGE_NUMBER = '{"game_index": ' + "1" * 5000 + "}"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (NESTED, "nested too deeply to read"),
        (HUGE_NUMBER, "a number of more digits than can be read"),
    ],
    ids=["nested", "huge-number"],
)
@pytest.mark.parametrize("command", ["tournament", "leaderboard"])
def test_an_unparsable_store_line_is_named_with_file_and_line(
    played: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    line: str,
    reason: str,
) -> None:
    spec, results = copy(played, tmp_path)
    store = results / "games.jsonl"
    store.write_text(store.read_text() + line + "\n")
    before = store.read_bytes()
    if command == "tournament":
        code, err = resume(spec, results, capsys)
    else:
        code, err = run_cli(["leaderboard", str(results), "--out", str(tmp_path / "b")], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"{store}: line 2: not a JSON record ({reason})")
    assert store.read_bytes() == before
    assert not (tmp_path / "b").exists()


def _link_loop(store: Path) -> str:
    other = store.with_name("other.jsonl")
    store.symlink_to(other)
    other.symlink_to(store)
    return "cannot read: Too many levels of symbolic links"


def _device(store: Path) -> str:
    store.symlink_to("/dev/null")  # a device; /dev/zero would never end
    return "cannot read: not a regular file (a pipe or a device), not a results store"


def _folder(store: Path) -> str:
    store.mkdir()
    return "cannot read: it is a folder, not a results store"


@pytest.mark.parametrize("damage", [_link_loop, _device, _folder], ids=["loop", "device", "folder"])
@pytest.mark.parametrize("command", ["tournament", "leaderboard"])
def test_a_store_that_is_no_regular_file_is_refused_before_it_is_read(
    played: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    damage: Callable[[Path], str],
) -> None:
    spec, results = copy(played, tmp_path)
    store = results / "games.jsonl"
    store.unlink()
    reason = damage(store)
    if command == "tournament":
        code, err = resume(spec, results, capsys)
    else:
        code, err = run_cli(["leaderboard", str(results), "--out", str(tmp_path / "b")], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"{store}: {reason}")
    assert not list((results / "logs").glob("game-000001*"))
    assert not (tmp_path / "b").exists()


def test_a_manifest_nested_too_deeply_stops_the_resume(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec, results = copy(played, tmp_path)
    path = results / MANIFEST_NAME
    path.write_text(NESTED)
    code, err = resume(spec, results, capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"{path}: not JSON (nested too deeply to read", "--no-resume")
    assert path.read_text() == NESTED


def test_a_failed_list_line_nested_too_deeply_is_skipped(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec, results = copy(played, tmp_path)
    (results / "failed.jsonl").write_text(NESTED + "\n")
    code, err = resume(spec, results, capsys)
    assert code == 0, err
    assert not (results / "failed.jsonl").exists()  # nothing of this spec failed
    assert len((results / "games.jsonl").read_text().splitlines()) == 2
