"""A results folder's host key file appears whole or not at all.

Runs that create it at once (two tournaments started on one fresh folder) end with one
key that all of them use; an empty key file, which a run stopped while creating it left
with earlier versions, is reported as the user's to fix, naming the file and what is
wrong, and never used; a pending file that a killed creation left behind is neither
read as a key nor kept. A resume whose key file was removed or replaced since the stored
games were played is refused: it would deal their seats other seeds.
"""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path
from typing import Any

import pytest
from tests.cli.support import assert_one_paragraph, run_cli, run_cli_output
from tests.host_key import FIXED_HOST_KEY, with_host_key
from tests.tournament.conftest import write_spec

from mafia_arena.experiments import ResultsConflict, run_tournament
from mafia_arena.seat_seeds import (
    KEY_FILE,
    HostKeyError,
    host_key_fingerprint,
    load_or_create_host_key,
)

RACERS = 4
FOLDERS = 120


def _race(folders: list[str], start: Any, answers: Any) -> None:
    """In a process of its own: for each folder, wait for every racer, then read or
    create its key; put (folder, the key's hex or the error) on `answers`."""
    for folder in folders:
        start.wait()
        try:
            answers.put((folder, load_or_create_host_key(folder).hex()))
        except Exception as error:  # reported to the test, which fails on it
            answers.put((folder, f"{type(error).__name__}: {error}"))


def test_runs_creating_the_key_at_once_agree_on_one_key(tmp_path: Path) -> None:
    folders = [str(tmp_path / f"results-{i}") for i in range(FOLDERS)]
    context = multiprocessing.get_context("spawn")
    start, answers = context.Barrier(RACERS, timeout=60), context.Queue()
    racers = [context.Process(target=_race, args=(folders, start, answers)) for _ in range(RACERS)]
    for racer in racers:
        racer.start()
    got: dict[str, set[str]] = {folder: set() for folder in folders}
    for _ in range(RACERS * FOLDERS):
        folder, answer = answers.get(timeout=120)
        got[folder].add(answer)
    for racer in racers:
        racer.join(timeout=60)
        assert racer.exitcode == 0
    for folder, answer in got.items():
        assert len(answer) == 1, (folder, answer)  # one key, and no racer saw another
        (key,) = answer
        assert (Path(folder) / KEY_FILE).read_text(encoding="ascii") == key + "\n"
        assert sorted(p.name for p in Path(folder).iterdir()) == [KEY_FILE]


def test_an_empty_key_file_is_reported_and_left_alone(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    (results / KEY_FILE).write_bytes(b"")
    with pytest.raises(HostKeyError, match="host key file is empty") as raised:
        load_or_create_host_key(results)
    assert str(results / KEY_FILE) in str(raised.value)
    assert (results / KEY_FILE).read_bytes() == b""  # kept for its owner to restore


def test_the_tournament_command_names_an_empty_key_file_in_one_paragraph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write_spec(
        tmp_path,
        "empty-key",
        'base_seed = 1\npool = ["random"]\ngames = 1\n'
        '[[variants]]\nvariant = "simple"\nplayers = 5\n',
    )
    results = tmp_path / "results"
    results.mkdir()
    (results / KEY_FILE).write_bytes(b"\n")
    args = ["tournament", str(spec), "--no-ray", "--no-tracking", "--results", str(results)]
    code, err = run_cli(args, capsys)
    assert code == 2, err
    assert_one_paragraph(err, str(results / KEY_FILE), "host key file is empty")
    assert not (results / "games.jsonl").read_text()  # no game played with another key


@pytest.mark.parametrize("key_in_place", [False, True])
def test_a_pending_key_file_left_behind_is_ignored_and_removed(
    tmp_path: Path, key_in_place: bool
) -> None:
    results = tmp_path / "results"
    results.mkdir()
    leftover = results / f".{KEY_FILE}.4242.0123456789abcdef.pending"
    leftover.write_text("0" * 20, encoding="ascii")  # cut short when its run was killed
    if key_in_place:
        (results / KEY_FILE).write_text(FIXED_HOST_KEY.hex() + "\n", encoding="ascii")
    key = load_or_create_host_key(results, FIXED_HOST_KEY if not key_in_place else None)
    assert key == FIXED_HOST_KEY
    assert sorted(p.name for p in results.iterdir()) == [KEY_FILE]


def test_a_file_system_without_hard_links_still_gets_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fault injected: `os.link` refused as FAT or some network mounts refuse it. The key
    is then written in place, once, and never replaces one already there."""

    def no_links(*_args: object, **_kwargs: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr("mafia_arena.seat_seeds.os.link", no_links)
    key = load_or_create_host_key(tmp_path, FIXED_HOST_KEY)
    assert key == FIXED_HOST_KEY
    assert (tmp_path / KEY_FILE).read_text(encoding="ascii") == FIXED_HOST_KEY.hex() + "\n"
    assert load_or_create_host_key(tmp_path, bytes(32)) == FIXED_HOST_KEY  # never replaced
    assert not list(tmp_path.glob(".host_key.*.pending"))


def _cut_last_game(results: Path) -> None:
    """Leave `results` as a run stopped before its last game: the store without the last
    record, the logs without its log."""
    lines = (results / "games.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (results / "games.jsonl").write_text("".join(lines[:-1]), encoding="utf-8")
    logs = sorted((results / "logs").glob("game-*.jsonl"))
    logs[-1].unlink()


def test_a_resume_whose_key_file_was_removed_or_replaced_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Played for real (in-process), stopped before its last game, then resumed with the
    key file gone, with another key, and forced: each refused in one paragraph naming
    the file and both fingerprints, nothing played or written, no key created; with the
    key restored (or given, as a published board's) the resume stores what an
    uninterrupted run does, byte for byte."""
    spec = write_spec(
        tmp_path,
        "key-resume",
        'base_seed = 4\npool = ["random", "heuristic"]\ngames = 3\n'
        '[[variants]]\nvariant = "simple"\nplayers = 5\n',
    )
    whole, results = with_host_key(tmp_path / "whole"), with_host_key(tmp_path / "results")
    args = ["tournament", str(spec), "--no-ray", "--no-tracking"]
    for folder in (whole, results):
        code, err = run_cli([*args, "--results", str(folder)], capsys)
        assert code == 0, err
    _cut_last_game(results)
    stored = (results / "games.jsonl").read_bytes()
    manifest = (results / "manifest.json").read_bytes()
    played_with = host_key_fingerprint(FIXED_HOST_KEY)
    other_key = bytes(range(100, 132))
    key_file = results / KEY_FILE

    key_file.unlink()
    code, err = run_cli([*args, "--results", str(results)], capsys)
    assert code == 2, err
    assert_one_paragraph(
        err,
        f"{key_file} is missing, but the 2 stored games were played with the key of "
        f"fingerprint {played_with} (manifest.json)",
        "Restore that key file",
        "--no-resume",
        "--results",
    )
    assert not key_file.exists()  # no new key made

    key_file.write_text(other_key.hex() + "\n", encoding="ascii")
    for forced in ([], ["--force-resume"]):
        code, err = run_cli([*args, "--results", str(results), *forced], capsys)
        assert code == 2, err
        assert_one_paragraph(
            err,
            f"{key_file} holds another key (fingerprint {host_key_fingerprint(other_key)}), "
            f"but the 2 stored games were played with the key of fingerprint {played_with}",
        )
        assert key_file.read_text(encoding="ascii") == other_key.hex() + "\n"
    assert (results / "games.jsonl").read_bytes() == stored  # nothing played
    assert (results / "manifest.json").read_bytes() == manifest  # the evidence kept
    assert len(list((results / "logs").iterdir())) == 2

    key_file.unlink()  # a published board's key is taken only if it is the one that played
    options: dict[str, Any] = {"use_ray": False, "track": False, "progress": False}
    with pytest.raises(ResultsConflict, match="is missing"):
        run_tournament(spec, results_dir=results, host_key=other_key, **options)
    assert not key_file.exists()
    run_tournament(spec, results_dir=results, host_key=FIXED_HOST_KEY, **options)
    assert (results / "games.jsonl").read_bytes() == (whole / "games.jsonl").read_bytes()

    _cut_last_game(results)  # the key file restored from a copy resumes as well
    key_file.unlink()
    with_host_key(results)
    code, err = run_cli([*args, "--results", str(results)], capsys)
    assert code == 0, err
    assert (results / "games.jsonl").read_bytes() == (whole / "games.jsonl").read_bytes()

    key_file.write_text(other_key.hex() + "\n", encoding="ascii")  # starting over is taken
    code, err = run_cli([*args, "--results", str(results), "--no-resume"], capsys)
    assert code == 0, err
    fingerprint = json.loads((results / "manifest.json").read_text())["host_key_fingerprint"]
    assert fingerprint == host_key_fingerprint(other_key)


def _board_played(tmp_path: Path, name: str, games: int) -> tuple[list[str], Path, Path, Path]:
    """``mafia-arena leaderboard SPEC``'s arguments for a simple spec of `games` games,
    with a board folder that publishes a host key: the arguments, the results folder,
    the published key file and the results folder's key file."""
    spec = write_spec(
        tmp_path,
        name,
        f'base_seed = 4\npool = ["random", "heuristic"]\ngames = {games}\n'
        '[[variants]]\nvariant = "simple"\nplayers = 5\n',
    )
    board, results = with_host_key(tmp_path / "board"), tmp_path / "results"
    args = ["leaderboard", str(spec), "--out", str(board), "--results", str(results)]
    args += ["--no-ray", "--no-tracking"]
    return args, results, board / KEY_FILE, results / KEY_FILE


def test_the_board_command_says_what_the_published_key_is_taken_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``mafia-arena leaderboard SPEC`` takes the key published beside the board for a
    results folder without a key file. A new folder is played with it; one that holds
    stored games (its key file removed) is not called new: the line says it is resumed
    with that key when it is the one that played them, and that it is not otherwise,
    before the resume is refused."""
    args, results, published, key_file = _board_played(tmp_path, "board-key", 3)
    code, out, err = run_cli_output(args, capsys)
    assert code == 0, err
    assert f"{results}: a new results folder, played with the host key of {published}" in out

    _cut_last_game(results)
    key_file.unlink()
    code, out, err = run_cli_output(args, capsys)
    assert code == 0, err
    assert "a new results folder" not in out, out
    assert (
        f"{results}: holds stored games but no {KEY_FILE} file; resuming with the host key "
        f"of {published}, the one its stored games were played with (manifest.json)"
    ) in out
    assert key_file.read_text(encoding="ascii") == FIXED_HOST_KEY.hex() + "\n"

    _cut_last_game(results)
    key_file.unlink()
    other_key = bytes(range(100, 132))
    published.write_text(other_key.hex() + "\n", encoding="ascii")
    code, out, err = run_cli_output(args, capsys)
    assert code == 2, err
    assert "a new results folder" not in out, out
    assert (
        f"{results}: holds stored games but no {KEY_FILE} file; the host key of {published} "
        f"(fingerprint {host_key_fingerprint(other_key)}) is not the one its stored games "
        f"were played with (fingerprint {host_key_fingerprint(FIXED_HOST_KEY)}, manifest.json)"
    ) in out
    assert_one_paragraph(err, f"{key_file} is missing")
    assert not key_file.exists()


def test_the_board_command_calls_a_store_of_only_a_cut_line_one_without_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A store that holds only the cut line of a stopped write has no stored games, as
    the resume counts them (`StoredRecords`): the note does not say it holds games or
    that the published key is not the one that played them, and the resume plays every
    game with that key."""
    args, results, published, key_file = _board_played(tmp_path, "board-key-cut", 2)
    code, out, err = run_cli_output(args, capsys)
    assert code == 0, err
    store = results / "games.jsonl"
    whole = store.read_bytes()
    store.write_bytes(whole[: whole.index(b"\n") // 2])  # the first record, cut short
    for log in (results / "logs").glob("game-*.jsonl"):
        log.unlink()
    key_file.unlink()
    other_key = bytes(range(100, 132))
    published.write_text(other_key.hex() + "\n", encoding="ascii")
    code, out, err = run_cli_output(args, capsys)
    assert code == 0, err
    assert "holds stored games" not in out, out
    assert f"{results}: a new results folder, played with the host key of {published}" in out
    assert key_file.read_text(encoding="ascii") == other_key.hex() + "\n"
    assert len(store.read_text(encoding="utf-8").splitlines()) == 2
