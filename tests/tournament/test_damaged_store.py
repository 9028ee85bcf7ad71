"""Resuming into a results folder whose store or manifest was damaged (truncated, hand
edited) stops before anything is played, with one paragraph naming the file, the line
and the key (exit code 2, no traceback), and leaves the store and manifest as they were.

Each case runs the command line's entry point on a copy of a real two-game store of
`smoke.toml` with its last game cut off, so a run that let the damage through would
play that game and change the store.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.cli.test_cli_errors import assert_one_paragraph, run_cli
from tests.host_key import with_host_key
from tests.tournament.test_preflight_errors import tiny_smoke

from mafia_arena.experiments import run_tournament
from mafia_arena.experiments.provenance import MANIFEST_NAME, read_manifest

pytestmark = pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy")  # MLflow's


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding smoke.toml (one game per matchup) and its results ``r``, whose
    second (last) game is cut off: read only, copy before changing it."""
    folder = tmp_path_factory.mktemp("played")
    spec = tiny_smoke(folder)
    results = with_host_key(folder / "r")
    run_tournament(spec, use_ray=False, track=False, progress=False, results_dir=results)
    store = results / "games.jsonl"
    first, second = store.read_text().splitlines(keepends=True)
    assert json.loads(second)["game_index"] == 1
    store.write_text(first)
    for log in (results / "logs").glob("game-000001*"):
        log.unlink()  # as if the run had stopped before that game
    return folder


def copy(played: Path, tmp_path: Path) -> tuple[Path, Path]:
    """(spec, results) of a fresh copy of the played folder."""
    shutil.copytree(played, tmp_path / "w")
    return tmp_path / "w" / "smoke.toml", tmp_path / "w" / "r"


def resume(
    spec: Path, results: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, str]:
    """The tournament command resuming into `results`, with the options `extra` too:
    (exit code, stderr)."""
    args = ["tournament", str(spec), "--results", str(results), "--no-ray", "--no-tracking"]
    return run_cli([*args, *extra], capsys)


def edit_first(results: Path, edit: Callable[[dict[str, Any]], Any]) -> bytes:
    """Apply `edit` to the store's first record (what a hand edit does); its new bytes."""
    store = results / "games.jsonl"
    record = json.loads(store.read_text())
    replaced = edit(record)
    store.write_text(json.dumps(record if replaced is None else replaced) + "\n")
    return store.read_bytes()


# ------------------------------------------------------------- store lines


@pytest.mark.parametrize(
    ("edit", "parts"),
    [
        (lambda r: r.update(game_index="three"), ("game_index: 'three' is not a whole number",)),
        (lambda r: r.update(game_index=0.5), ("game_index: 0.5 is not a whole number",)),
        (lambda r: r.update(game_index=True), ("game_index: True is not a whole number",)),
        (lambda r: r.update(game_index=30000000000), ("game_index: 30000000000 is not below",)),
        (lambda r: r.update(game_index=5), ("game_index: 5 is not below 2", "indices 0..1")),
        (lambda r: [1, 2], ("not a game record", "not an object")),
        (lambda r: r["seats"][0].update(won="false"), ("seat #0: won: 'false' is not true",)),
        (lambda r: r.update(void="false"), ("void: 'false' is not true or false",)),
    ],
    ids=[
        "index-word",
        "index-float",
        "index-true",
        "index-huge",
        "index-past-spec",
        "array",
        "won-string",
        "void-string",
    ],
)
def test_a_damaged_store_line_stops_the_resume_naming_file_line_and_key(
    played: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Callable[[dict[str, Any]], Any],
    parts: tuple[str, ...],
) -> None:
    spec, results = copy(played, tmp_path)
    before = edit_first(results, edit)
    manifest = (results / MANIFEST_NAME).read_bytes()
    code, err = resume(spec, results, capsys)
    assert code == 2, err
    store = str(results / "games.jsonl")
    assert_one_paragraph(err, *parts)
    assert f"{store}: line 1: " in err, err
    assert (results / "games.jsonl").read_bytes() == before  # the missing game not played
    assert (results / MANIFEST_NAME).read_bytes() == manifest
    assert not list((results / "logs").glob("game-000001*"))


# ------------------------------------------------------------- the manifest


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda text: text[:60], "not JSON ("),  # truncated
        (lambda text: "[1, 2]\n", "not a JSON object"),
        (lambda text: "", "not JSON (Expecting value"),  # emptied
    ],
    ids=["truncated", "array", "empty"],
)
def test_a_damaged_manifest_stops_the_resume_and_is_left_as_it_is(
    played: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    damage: Callable[[str], str],
    reason: str,
) -> None:
    """An unreadable manifest is not a missing one: resuming would skip the check that
    this code played the stored games and overwrite the only record of the code that did."""
    spec, results = copy(played, tmp_path)
    path = results / MANIFEST_NAME
    path.write_text(damage(path.read_text()))
    manifest, store = path.read_bytes(), (results / "games.jsonl").read_bytes()
    code, err = resume(spec, results, capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"{path}: {reason}", "--no-resume")
    assert "have no manifest.json" not in err
    assert path.read_bytes() == manifest
    assert (results / "games.jsonl").read_bytes() == store


def test_a_manifest_of_invalid_utf8_is_named_as_such(tmp_path: Path) -> None:
    from mafia_arena.experiments.provenance import ManifestError

    (tmp_path / MANIFEST_NAME).write_bytes(b'{"code": "\xff"}\n')
    with pytest.raises(ManifestError, match=r"manifest\.json: not UTF-8 text"):
        read_manifest(tmp_path)
    assert read_manifest(tmp_path / "none") is None  # missing: a store from before manifests


def test_an_empty_manifest_object_is_checked_not_skipped(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``{}`` names no code: the resume is refused as played by other code, not waved on."""
    spec, results = copy(played, tmp_path)
    (results / MANIFEST_NAME).write_text("{}\n")
    store = (results / "games.jsonl").read_bytes()
    code, err = resume(spec, results, capsys)
    assert code == 2, err
    assert_one_paragraph(err, "played by other code", "package version None ->")
    assert (results / MANIFEST_NAME).read_text() == "{}\n"
    assert (results / "games.jsonl").read_bytes() == store


def test_no_resume_still_starts_over_past_a_damaged_manifest(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec, results = copy(played, tmp_path)
    (results / MANIFEST_NAME).write_text('{"code": ')
    code, err = resume(spec, results, capsys, "--no-resume")
    assert code == 0, err
    assert read_manifest(results) is not None
    assert len((results / "games.jsonl").read_text().splitlines()) == 2


def test_no_resume_starts_over_past_a_damaged_store_line(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--no-resume` archives the store as it is and plays afresh: a line that a resume
    refuses must not keep the user from starting over (it was read, and refused, before
    being archived)."""
    spec, results = copy(played, tmp_path)
    damaged = edit_first(results, lambda r: r.update(game_index="three"))
    code, err = resume(spec, results, capsys, "--no-resume")
    assert code == 0, err
    assert [p.read_bytes() for p in results.glob("games.jsonl.*.old")] == [damaged]
    assert len((results / "games.jsonl").read_text().splitlines()) == 2


def test_a_spec_with_more_games_than_a_store_holds_is_refused_before_playing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its records past `MAX_GAME_INDEX` would be written, then refused by every reader."""
    from mafia_arena.results_file import MAX_GAME_INDEX

    spec = tmp_path / "huge.toml"
    spec.write_text(
        f'name = "huge"\ngames = {MAX_GAME_INDEX + 1}\npool = ["random"]\n'
        '[[variants]]\nvariant = "simple"\nplayers = 5\n'
    )
    code, err = resume(spec, tmp_path / "r", capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"{spec}: games: {MAX_GAME_INDEX + 1} games in all", "at most")
    assert not (tmp_path / "r").exists()
