"""`mafia-arena leaderboard`: a file that is not a results store is refused before anything
is written, and the README records the command that was actually run.

The real command line runs in a subprocess on a real store of the `smoke` spec (one
game per matchup, in-process, no tracking).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from tests.host_key import with_host_key
from tests.tournament.conftest import REPO
from tests.tournament.test_preflight_errors import assert_user_error, mafia_arena, tiny_smoke

from mafia_arena.experiments import run_tournament
from mafia_arena.leaderboard import write_leaderboard


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real results folder of two smoke games (read only: copy before changing it)."""
    folder = tmp_path_factory.mktemp("store")
    spec = tiny_smoke(folder)
    run_tournament(
        spec, use_ray=False, track=False, progress=False, results_dir=with_host_key(folder / "r")
    )
    return folder / "r"


# ------------------------------------------------------------- not a results store


def test_a_game_log_is_refused_as_a_game_log_before_the_folder_is_made(
    store: Path, tmp_path: Path
) -> None:
    log = store / "logs" / "game-000000.jsonl"
    board = tmp_path / "board"
    done = mafia_arena(["leaderboard", str(log), "--out", str(board)], tmp_path)
    assert_user_error(done, str(log), "line 1", "looks like a game log, not a results store")
    assert not board.exists()


@pytest.mark.parametrize("given", ["file", "folder"])
def test_a_record_whose_seat_lacks_side_names_file_and_line(
    store: Path, tmp_path: Path, given: str
) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    lines = (store / "games.jsonl").read_text().splitlines()
    record = json.loads(lines[1])
    del record["seats"][0]["side"]
    lines[1] = json.dumps(record)
    (bad / "games.jsonl").write_text("\n".join(lines) + "\n")
    board = tmp_path / "board"
    source = bad / "games.jsonl" if given == "file" else bad
    done = mafia_arena(["leaderboard", str(source), "--out", str(board)], tmp_path)
    assert_user_error(done, str(bad / "games.jsonl"), "line 2", "lacks required key 'side'")
    assert not board.exists()


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("game_index", "three", "'three' is not a whole number"),
        ("game_index", 2.5, "2.5 is not a whole number"),  # int() made it game 2: one lost
        ("game_index", True, "True is not a whole number"),
        ("game_index", 30_000_000_000, "30000000000 is not below 10000000"),  # MemoryError
        ("void", "false", "'false' is not true or false"),  # bool() voided the game
        ("won", "false", "'false' is not true or false"),  # bool() made it a win
    ],
)
def test_a_value_the_board_would_misread_names_file_line_and_key(
    store: Path, tmp_path: Path, key: str, value: object, reason: str
) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    lines = (store / "games.jsonl").read_text().splitlines()
    record = json.loads(lines[1])
    (record["seats"][0] if key == "won" else record)[key] = value
    lines[1] = json.dumps(record)
    (bad / "games.jsonl").write_text("\n".join(lines) + "\n")
    before = (bad / "games.jsonl").read_bytes()
    board = tmp_path / "board"
    done = mafia_arena(["leaderboard", str(bad), "--out", str(board)], tmp_path)
    shown = f"seat #0: {key}" if key == "won" else key
    assert_user_error(done, f"{bad / 'games.jsonl'}: line 2: ", f"{shown}: {reason}")
    assert not board.exists()
    assert (bad / "games.jsonl").read_bytes() == before


def test_write_leaderboard_makes_no_folder_for_a_record_it_cannot_rate(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="seats"):
        write_leaderboard([{"experiment": "x"}], tmp_path / "board", title="t", provenance={})
    assert not (tmp_path / "board").exists()


# ------------------------------------------------------------- the recorded command


def readme_command(readme: Path) -> str:
    """The command line of a README's "How this was produced" section."""
    found = re.search(r"\*\*Command\*\*:\n\n  ```\n  (.+)\n  ```", readme.read_text())
    assert found, readme
    return found.group(1)


def test_the_readme_records_the_spec_and_options_actually_given(tmp_path: Path) -> None:
    tiny_smoke(tmp_path)
    args = ["--results", "r", "--out", "board", "--view", "bot", "--no-ray", "--no-tracking"]
    done = mafia_arena(["leaderboard", "smoke.toml", *args], tmp_path)
    assert done.returncode == 0, done.stderr
    readme = tmp_path / "board" / "README.md"
    assert readme_command(readme) == "mafia-arena leaderboard smoke.toml " + " ".join(args)
    text = readme.read_text()
    assert "- **Experiment spec**: `smoke.toml`" in text and "- **Seed**: `7`" in text


def test_a_board_of_a_results_store_records_that_store_and_no_guessed_spec(
    store: Path, tmp_path: Path
) -> None:
    results = tmp_path / "results" / "smoke"  # where the smoke spec's games would be
    shutil.copytree(store, results)
    done = mafia_arena(["leaderboard", "results/smoke", "--out", "lb"], tmp_path)
    assert done.returncode == 0, done.stderr
    readme = tmp_path / "lb" / "README.md"
    assert readme_command(readme) == "mafia-arena leaderboard results/smoke --out lb"
    assert "Experiment spec" not in readme.read_text()


def test_an_invocation_shows_paths_under_the_working_folder_relative_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mafia_arena.leaderboard.cli import Invocation

    monkeypatch.chdir(tmp_path)
    invocation = Invocation(tmp_path / "my specs" / "a.toml", out=tmp_path / "lb")
    assert invocation.command() == "mafia-arena leaderboard 'my specs/a.toml' --out lb"
    assert Invocation(Path("/elsewhere/r")).command() == "mafia-arena leaderboard /elsewhere/r"


PUBLISHED = sorted(p.parent.name for p in (REPO / "leaderboards").glob("*/README.md"))


@pytest.mark.parametrize("name", PUBLISHED)
def test_a_published_readme_names_the_command_that_writes_its_own_folder(name: str) -> None:
    folder = REPO / "leaderboards" / name
    words = readme_command(folder / "README.md").split()
    assert words[:2] == ["mafia-arena", "leaderboard"]
    spec = REPO / words[2]
    assert spec.is_file(), spec
    if "--out" in words:
        out = words[words.index("--out") + 1]
    else:  # the default: leaderboards/<the spec's name>
        name_line = next(line for line in spec.read_text().splitlines() if line.startswith("name"))
        out = "leaderboards/" + name_line.split("=", 1)[1].strip().strip('"')
    assert REPO / out == folder
