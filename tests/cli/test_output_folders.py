"""Every folder a command is given to write into (a results store, a board, a training
run, a host key, a game log's, the web server's live store and its results and logs)
is refused alike when it cannot be made or written: one line naming the folder, the
reason and the option that gave it (``FOLDER: REASON (OPTION)``, `output_folders.unusable_folder`),
exit 2, before anything is written. Before: ``serve --db`` under a file was a
traceback from the live store's ``mkdir``, and the other commands each worded it their
own way, some naming only the option first."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest
from tests.cli.support import REPO, assert_one_paragraph, run_cli, run_cli_output


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def no_server(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """`serve` never starts a server here: the calls it would have made."""
    import mafia_arena.web

    started: list[dict[str, Any]] = []
    monkeypatch.setattr(mafia_arena.web, "serve", lambda **kwargs: started.append(kwargs))
    return started


def _store(tmp_path: Path) -> Path:
    from mafia_arena.leaderboard.synthetic import synthetic_records

    store = tmp_path / "results"
    store.mkdir()
    records = synthetic_records(12, strengths={"a": 1.0, "b": 0.0})
    (store / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return store


def _command(tmp_path: Path, command: str, folder: Path) -> tuple[list[str], str]:
    """The arguments that give `folder` to `command`, and the option that gives it."""
    smoke = shutil.copy(REPO / "experiments" / "smoke.toml", tmp_path / "smoke.toml")
    training = shutil.copy(REPO / "experiments" / "rl-town-votes.toml", tmp_path / "t.toml")
    quiet = ["--no-ray", "--no-tracking"]
    cases = {
        "tournament": (["tournament", str(smoke), *quiet, "--results", str(folder)], "--results"),
        "leaderboard-spec": (["leaderboard", str(smoke), *quiet, "--out", str(folder)], "--out"),
        "leaderboard-store": (
            ["leaderboard", str(_store(tmp_path)), "--out", str(folder)],
            "--out",
        ),
        "train": (["train", str(training), "--no-tracking", "--out", str(folder)], "--out"),
        "play": (["play", "--players", "5", "--key-dir", str(folder)], "--key-dir"),
        "run": (["run", "--games", "1", "--key-dir", str(folder)], "--key-dir"),
        "play-log": (
            ["play", "--players", "5", "--log", str(folder / "game.jsonl")],
            f"the folder of --log {folder / 'game.jsonl'}",
        ),
    }
    return cases[command]


COMMANDS = [
    "tournament",
    "leaderboard-spec",
    "leaderboard-store",
    "train",
    "play",
    "run",
    "play-log",
]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("where", ["a-file", "under-a-file"])
def test_an_output_folder_that_cannot_be_made_is_named_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, where: str
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    folder = blocker if where == "a-file" else blocker / "out"
    args, option = _command(tmp_path, command, folder)
    before = sorted(tmp_path.rglob("*"))
    code, err = run_cli(args, capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"error: {folder}: ", "is a file, not a folder", f"({option}")
    assert sorted(tmp_path.rglob("*")) == before  # nothing made or written


def test_play_refuses_a_log_that_is_a_folder_before_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found only when the game was over, it lost the game played ("cannot write")."""
    code, err = run_cli(["play", "--players", "5", "--log", str(tmp_path)], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"error: {tmp_path}: is a folder, not a file (--log)")
    assert list(tmp_path.iterdir()) == []


def test_play_writes_its_log_into_a_folder_it_makes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing folder is an output folder to make, as ``--key-dir``'s is, not "no
    such folder"."""
    log = tmp_path / "logs" / "today" / "game.jsonl"
    args = ["play", "--players", "5", "--seed", "3", "--log", str(log)]
    code, out, err = run_cli_output(args, capsys)
    assert code == 0, err
    assert log.is_file() and f"log written to {log}" in out


def test_serve_with_a_live_store_under_a_file_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_server: list[dict[str, Any]]
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    db = blocker / "live.sqlite"
    code, err = run_cli(["serve", "--port", str(_free_port()), "--db", str(db)], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"error: {blocker}: is a file, not a folder", f"--db {db}")
    assert not no_server


def test_serve_with_a_folder_as_its_live_store_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_server: list[dict[str, Any]]
) -> None:
    code, err = run_cli(["serve", "--port", str(_free_port()), "--db", str(tmp_path)], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"error: {tmp_path}: is a folder, not a file (--db)")
    assert not no_server


@pytest.mark.parametrize(
    ("blocked", "named"),
    [
        ("runs", "runs/web: cannot be made: runs is a file, not a folder"),
        ("results", "results/web: cannot be made: results is a file, not a folder"),
    ],
)
def test_serve_refuses_default_folders_it_could_not_write(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    no_server: list[dict[str, Any]],
    blocked: str,
    named: str,
) -> None:
    """The default live store (runs/web/live.sqlite) and the results folder
    (results/web), written only when a game ends, are checked before the server starts."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / blocked).write_text("")
    code, err = run_cli(["serve", "--port", str(_free_port())], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"error: {named}")
    assert not no_server


def test_serve_with_usable_folders_starts_the_server(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    no_server: list[dict[str, Any]],
) -> None:
    monkeypatch.chdir(tmp_path)
    code, err = run_cli(["serve", "--port", str(_free_port()), "--db", "s/live.sqlite"], capsys)
    assert code == 0, err
    assert [call["db"] for call in no_server] == [Path("s/live.sqlite")]
    assert list(tmp_path.iterdir()) == []  # checked, nothing made
