"""Ctrl-C and SIGTERM stop `play`, `run`, `replay`, `tournament` and `leaderboard` with
one line saying what was (not) written, and exit 130, as a training run does.

Typer turns a `KeyboardInterrupt` into a bare exit 130, and Python's default ends the
process by SIGTERM with nothing said: without the line, a user (or a script reading
``run --json``, ended by ``timeout``) cannot tell a run that stopped from one that
printed nothing, nor whether a board folder holds the old board or the new one. Each
case stops a real command in a child process by a real signal, sent from inside the step
it interrupts (a test double wraps it), as a user's Ctrl-C or a `kill` would land there.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.cli.support import assert_quiet, run_cli, run_cli_output, run_stopped, signal_on_call

#: Wraps the transcript's renderer (`play`, `replay`): {signal} at the {at}-th event shown.
RENDER_STOPPED = signal_on_call("mafia_arena.views.text", "render_event", at="{at}")

#: Wraps the game of `run`: {signal} as its third game starts.
GAME_STOPPED = signal_on_call("mafia_arena.runner.match", "play_match_sync", at=3)

#: Wraps the seating of `play` and `run`: {signal} as the players are first seated, after
#: the variant is loaded and before any game starts.
SEATING_STOPPED = signal_on_call("mafia_arena.cli.games", "_seat")

#: Wraps the replay `play` runs of its finished game to say why it ended: {signal} there.
ENDING_STOPPED = signal_on_call("mafia_arena.runner.log", "replay_or_why")

#: Wraps the summary's text: {signal} once the tournament's games are all stored, as the
#: command is about to print their summary.
SUMMARY_STOPPED = signal_on_call("mafia_arena.experiments.summary", "Summary.__str__")

SIGNALS = ["SIGINT", "SIGTERM"]

SPEC = """name = "stopped"
base_seed = 1
pool = ["random"]
games = {games}
[[variants]]
variant = "simple"
players = 5
"""

#: Wraps the board's renames: Ctrl-C as the first file of the new board replaces the old.
RENAME_STOPPED = """
import os as _os
replace = _os.replace

def stopped(source, target, *args, **kwargs):
    if _os.path.basename(str(source)) == ".README.md.tmp":
        _os.kill(_os.getpid(), signal.SIGINT)
    return replace(source, target, *args, **kwargs)

_os.replace = stopped
"""

#: Wraps the removal of the board's staged files: Ctrl-C as the first is removed, once
#: all of them have replaced the old board's.
STAGED_REMOVAL_STOPPED = """
import pathlib
unlink = pathlib.Path.unlink

def stopped(self, *args, **kwargs):
    if self.name == ".README.md.tmp":
        os.kill(os.getpid(), signal.SIGINT)
    return unlink(self, *args, **kwargs)

pathlib.Path.unlink = stopped
"""

#: Wraps the store's check: Ctrl-C while `leaderboard` reads the store, before any file.
STORE_READ_STOPPED = """
from mafia_arena.leaderboard import cli
check_store = cli.check_store

def stopped(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGINT)
    return check_store(*args, **kwargs)

cli.check_store = stopped
"""


def last_line(stderr: str) -> str:
    """The last line on stderr: what the command said as it stopped."""
    lines = stderr.strip().splitlines()
    return lines[-1] if lines else ""


def stopped_at(setup: str, stop: str, at: int = 0) -> str:
    """`setup` (one of the wrappers above) sending `stop`, at the `at`-th event shown."""
    return setup.replace("{signal}", stop).replace("{at}", str(at))


@pytest.mark.parametrize("stop", SIGNALS)
def test_play_stopped_mid_game_says_nothing_was_recorded_and_its_seed(
    tmp_path: Path, stop: str
) -> None:
    """Ctrl-C or SIGTERM while a game plays: exit 130, one line saying that nothing was
    recorded, that no log was written where ``--log`` said, and the seed that deals the
    game again; no file is left."""
    log = tmp_path / "game.jsonl"
    args = ("play", "--variant", "simple", "--players", "5", "--agents", "random")
    setup = stopped_at(RENDER_STOPPED, stop, 5)
    done = run_stopped(tmp_path, setup, *args, "--seed", "3", "--log", str(log))
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    assert last_line(done.stderr) == (
        f"interrupted before the game ended: nothing was recorded; no log written to {log} "
        "(game seed: 3; --seed 3 deals it again)"
    )
    assert "game seed: 3" not in done.stdout  # the line of a finished game
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("stop", SIGNALS)
def test_play_stopped_as_it_finds_why_the_game_ended_says_nothing_was_recorded(
    tmp_path: Path, stop: str
) -> None:
    """Ctrl-C or SIGTERM once the game is over, while `play` replays it to say why it
    ended: exit 130, one line saying it stopped as the game ended (not before: it did
    end), that nothing was recorded and no log written, and the seed; no file is left."""
    log = tmp_path / "game.jsonl"
    args = ("play", "--variant", "simple", "--players", "5", "--agents", "random")
    done = run_stopped(
        tmp_path, stopped_at(ENDING_STOPPED, stop), *args, "--seed", "3", "--log", str(log)
    )
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    assert last_line(done.stderr) == (
        f"interrupted as the game ended: nothing was recorded; no log written to {log} "
        "(game seed: 3; --seed 3 deals it again)"
    )
    assert "game seed: 3" not in done.stdout
    assert list(tmp_path.iterdir()) == []


SETUP_STOPPED_SAYS = {
    "play": "interrupted before the game started: nothing was recorded; no log written to {log}",
    "run": (
        "interrupted after 0 of 50 games: no summary printed, nothing written; run the same "
        "command to play them all"
    ),
}


@pytest.mark.parametrize("command", ["play", "run"])
@pytest.mark.parametrize("stop", SIGNALS)
def test_play_and_run_stopped_while_seating_say_no_game_was_played(
    tmp_path: Path, command: str, stop: str
) -> None:
    """Ctrl-C or SIGTERM after the variant is loaded, as the players are seated, before
    any game: exit 130 and the command's own line saying that no game was played and
    nothing written (not a bare exit 130, nor a process ended by the signal), with no
    traceback and no output a script could take for a game's or a run's."""
    log = tmp_path / "game.jsonl"
    args = [command, "--variant", "simple", "--players", "5", "--agents", "random"]
    args += ["--log", str(log)] if command == "play" else ["--games", "50"]
    done = run_stopped(tmp_path, stopped_at(SEATING_STOPPED, stop), *args)
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    assert last_line(done.stderr) == SETUP_STOPPED_SAYS[command].format(log=log)
    assert done.stdout == ""
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("stop", SIGNALS)
@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
def test_run_stopped_mid_run_says_how_far_it_got_and_prints_no_summary(
    tmp_path: Path, as_json: bool, stop: str
) -> None:
    """Ctrl-C or SIGTERM as the third of 50 games starts: exit 130, one line saying 2 of
    50 games were played and no summary printed; stdout holds no rates (with ``--json``,
    nothing a script could parse as the run's result)."""
    args = ["run", "--variant", "simple", "--players", "5", "--games", "50"]
    setup = stopped_at(GAME_STOPPED, stop)
    done = run_stopped(tmp_path, setup, *args, *(["--json"] if as_json else []))
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    assert last_line(done.stderr) == (
        "interrupted after 2 of 50 games: no summary printed, nothing written; run the "
        "same command to play them all"
    )
    assert done.stdout == ""


@pytest.mark.parametrize("stop", SIGNALS)
def test_replay_stopped_says_the_log_was_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stop: str
) -> None:
    """Ctrl-C or SIGTERM while a log replays: exit 130, one line saying the log was not
    checked (never the verdict of a replay that did not finish), the log untouched."""
    log = tmp_path / "game.jsonl"
    play = ["play", "--variant", "simple", "--players", "5", "--agents", "random"]
    code, _, err = run_cli_output([*play, "--seed", "3", "--log", str(log)], capsys)
    assert code == 0, err
    before = log.read_bytes()
    done = run_stopped(tmp_path, stopped_at(RENDER_STOPPED, stop, 3), "replay", str(log))
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    assert last_line(done.stderr) == (
        "interrupted: the replay was not checked against the stored log; nothing written"
    )
    assert "replay matches" not in done.stdout and "DIFFERS" not in done.stdout
    assert log.read_bytes() == before


def stores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """Two stores of one spec's name, of 2 and of 4 games, played in-process."""
    played = []
    for games in (2, 4):
        spec = tmp_path / f"stopped-{games}.toml"
        spec.write_text(SPEC.format(games=games))
        played.append(tmp_path / f"r{games}")
        args = ["tournament", str(spec), "--no-ray", "--no-tracking", "--results", str(played[-1])]
        code, err = run_cli(args, capsys)
        assert code == 0, err
    return played[0], played[1]


def test_leaderboard_stopped_as_its_board_replaces_the_old_one_says_it_was_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C while the new board's files replace the old board's: the renames finish
    (exit 130), and the line says the board was written, which the folder shows: the
    new board whole, not the old one that a "not written" would send the user to."""
    small, large = stores(tmp_path, capsys)
    board = tmp_path / "board"
    code, err = run_cli(["leaderboard", str(small), "--out", str(board)], capsys)
    assert code == 0, err
    done = run_stopped(tmp_path, RENAME_STOPPED, "leaderboard", str(large), "--out", str(board))
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    assert last_line(done.stderr) == f"interrupted after the board was written to {board}"
    assert "4 games (" in (board / "README.md").read_text(encoding="utf-8")
    assert sorted(p.name for p in board.iterdir() if p.name.startswith(".")) == []


def test_leaderboard_stopped_as_its_staged_files_are_removed_says_it_was_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C as the staged files are removed, once the new board has replaced the old
    one: the removal finishes (exit 130), and the line says the board was written, as
    the folder shows, with no staged file beside it."""
    small, large = stores(tmp_path, capsys)
    board = tmp_path / "board"
    code, err = run_cli(["leaderboard", str(small), "--out", str(board)], capsys)
    assert code == 0, err
    args = ("leaderboard", str(large), "--out", str(board))
    done = run_stopped(tmp_path, STAGED_REMOVAL_STOPPED, *args)
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    assert last_line(done.stderr) == f"interrupted after the board was written to {board}"
    assert "4 games (" in (board / "README.md").read_text(encoding="utf-8")
    assert sorted(p.name for p in board.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize("command", ["tournament", "leaderboard"])
@pytest.mark.parametrize("stop", SIGNALS)
def test_a_tournament_stopped_before_its_summary_says_its_games_are_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, stop: str
) -> None:
    """Ctrl-C or SIGTERM once the games are stored, as the command turns to print their
    summary (of a tournament, or of a board's spec): exit 130 and the line an interrupt
    a moment earlier gives, with no summary; no board is written; the same command then
    prints the summary without playing a game."""
    spec = tmp_path / "stopped.toml"
    spec.write_text(SPEC.format(games=4))
    results = tmp_path / "r"
    board = ["--out", str(tmp_path / "board")] if command == "leaderboard" else []
    args = [command, str(spec), "--no-ray", "--no-tracking", "--results", str(results), *board]
    done = run_stopped(tmp_path, stopped_at(SUMMARY_STOPPED, stop), *args)
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    assert last_line(done.stderr) == "4 games stored; run the same command to resume"
    assert "games stored (" not in done.stdout
    assert not (tmp_path / "board").exists()
    code, out, err = run_cli_output(args, capsys)
    assert code == 0, err
    assert "4/4 games stored (0 played now, 4 resumed" in out


def test_leaderboard_stopped_while_reading_the_store_says_nothing_was_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C while the store is read, before any file of the board: exit 130, one line
    saying nothing was written, and no board folder."""
    small, _ = stores(tmp_path, capsys)
    board = tmp_path / "board"
    done = run_stopped(tmp_path, STORE_READ_STOPPED, "leaderboard", str(small), "--out", str(board))
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    assert (
        last_line(done.stderr) == "interrupted before the board was written; no file of it written"
    )
    assert not board.exists()
