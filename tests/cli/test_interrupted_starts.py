"""Ctrl-C and SIGTERM landing while a command starts, or as it ends, still get the
command's one line and exit 130; a folder it made for its output is gone again.

`play` and `run` import most of what they need once they run (the engine, the runner,
the views): a signal there reached typer, which makes a `KeyboardInterrupt` a bare exit
130 with nothing said, or Python wrapped it in a `RuntimeError` ("interrupted", no word
of what was played), or dropped it inside a `__del__` (the command played on and exited
0 after a SIGTERM). A folder made for a board, a training run or a host key was left
behind when the signal landed the moment it was made. `run` stopped once its games were
played, as it turned to print their summary, exited 130 with nothing said.

Each case stops a real command in a child process by a real signal, sent at the moment
named (a profile hook watches for it, or a test double wraps a step), as a user's Ctrl-C
or a `kill` would land there.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.support import assert_quiet, run_cli, run_stopped, signal_on_call

SIGNALS = ["SIGINT", "SIGTERM"]

#: Sends SIGTERM once it is the command's interrupt, at the first call that `{place}`
#: picks: a module of the command's own imports, a string of code that `exec` runs
#: (`dataclasses` does), a descriptor's `__set_name__`, or a `__del__`, where Python
#: drops the interrupt (`{dropped}`). {signal} is the signal sent.
WHILE_IMPORTING = """
from mafia_arena import sigterm

class Dropped:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)
        [0 for _ in range(10**6)]

def at_the_place(frame):
    return {place}

def send_there(frame, event, arg):
    if event == "call" and sigterm.sigterm_is_interrupt() and at_the_place(frame):
        sys.setprofile(None)
        if {dropped}:
            Dropped()
        else:
            os.kill(os.getpid(), signal.{signal})

sys.setprofile(send_there)
"""

IMPORTED_MODULE = 'frame.f_code.co_name == "<module>" and "mafia_arena" in frame.f_code.co_filename'
PLACES = {
    "ctrl-c-while-a-module-is-imported": (IMPORTED_MODULE, False, "SIGINT"),
    "sigterm-while-a-module-is-imported": (IMPORTED_MODULE, False, "SIGTERM"),
    "sigterm-inside-exec-of-a-string": ('frame.f_code.co_filename == "<string>"', False, "SIGTERM"),
    "sigterm-inside-a-set-name": ('frame.f_code.co_name == "__set_name__"', False, "SIGTERM"),
    "sigterm-dropped-inside-a-del": (IMPORTED_MODULE, True, "SIGTERM"),
}

TABLE = ("--variant", "simple", "--players", "5", "--agents", "random")


def last_line(stderr: str) -> str:
    """The last line on stderr: what the command said as it stopped."""
    lines = stderr.strip().splitlines()
    return lines[-1] if lines else ""


@pytest.mark.parametrize("place", list(PLACES))
@pytest.mark.parametrize("command", ["play", "run"])
def test_play_and_run_stopped_while_importing_say_no_game_was_played(
    tmp_path: Path, command: str, place: str
) -> None:
    """Ctrl-C or SIGTERM while `play` or `run` imports the engine and the runner, before
    any game (wherever in Python it lands): exit 130 and the command's own line saying
    that no game was played and nothing written, no traceback, nothing on stdout that a
    script could take for a game's or a run's output, and no file."""
    test, dropped, stop = PLACES[place]
    setup = WHILE_IMPORTING.format(place=test, dropped=dropped, signal=stop)
    log = tmp_path / "logs" / "game.jsonl"
    more = ["--log", str(log)] if command == "play" else ["--games", "50"]
    done = run_stopped(tmp_path, setup, command, *TABLE, *more)
    assert done.returncode == 130, done.stderr
    if not dropped:  # Python itself reports the interrupt it dropped
        assert_quiet(done.stderr)
    said = {
        "play": f"interrupted before the game started: nothing was recorded; no log written "
        f"to {log}",
        "run": "interrupted after 0 of 50 games: no summary printed, nothing written; run "
        "the same command to play them all",
    }
    assert last_line(done.stderr) == said[command]
    assert done.stdout == ""
    assert list(tmp_path.iterdir()) == []


#: Wraps `Path.mkdir`: {signal} the moment the folder named {name} has been made.
FOLDER_MADE_STOPPED = """
import pathlib
mkdir = pathlib.Path.mkdir
sent = []

def stopped(self, *args, **kwargs):
    mkdir(self, *args, **kwargs)
    if self.name == "{name}" and not sent:
        sent.append(self)
        os.kill(os.getpid(), signal.{signal})

pathlib.Path.mkdir = stopped
"""


@pytest.mark.parametrize("stop", SIGNALS)
def test_run_stopped_as_it_makes_its_key_folder_leaves_no_folder(tmp_path: Path, stop: str) -> None:
    """Ctrl-C or SIGTERM the moment `run` has made the ``--key-dir`` folders, before the
    key is in them: exit 130, the line saying nothing was written, and neither the
    folder nor the parents it made are left (`kept`, there before, is)."""
    kept = tmp_path / "kept"
    kept.mkdir()
    setup = FOLDER_MADE_STOPPED.replace("{name}", "keys").replace("{signal}", stop)
    args = ("run", *TABLE, "--games", "50", "--key-dir", str(kept / "made" / "keys"))
    done = run_stopped(tmp_path, setup, *args)
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    assert last_line(done.stderr) == (
        "interrupted after 0 of 50 games: no summary printed, nothing written; run the same "
        "command to play them all"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept"]
    assert list(kept.iterdir()) == []


SPEC = """name = "stopped"
base_seed = 1
pool = ["random"]
games = 2
[[variants]]
variant = "simple"
players = 5
"""


@pytest.mark.parametrize("stop", SIGNALS)
def test_leaderboard_stopped_as_it_makes_the_board_folder_leaves_no_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stop: str
) -> None:
    """Ctrl-C or SIGTERM the moment `leaderboard` has made its ``--out`` folders, before
    any file of the board: exit 130, the line saying nothing was written, and no folder
    of the board left (the parents it made go too)."""
    spec = tmp_path / "stopped.toml"
    spec.write_text(SPEC)
    store = tmp_path / "r"
    args = ["tournament", str(spec), "--no-ray", "--no-tracking", "--results", str(store)]
    code, err = run_cli(args, capsys)
    assert code == 0, err
    setup = FOLDER_MADE_STOPPED.replace("{name}", "board").replace("{signal}", stop)
    out = tmp_path / "boards" / "board"
    done = run_stopped(tmp_path, setup, "leaderboard", str(store), "--out", str(out))
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    assert last_line(done.stderr) == (
        "interrupted before the board was written; no file of it written"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r", "stopped.toml"]


TRAINING = """name = "stopped"
[train]
kinds = ["vote"]
opponents = ["random"]
steps = 64
envs = 1
n_steps = 64
batch_size = 64
eval_games = 2
eval_every = 64
"""


def test_train_stopped_as_it_makes_its_output_folder_leaves_no_folder(tmp_path: Path) -> None:
    """SIGTERM the moment `train` has made its ``--out`` folders, before anything of the
    run is written: exit 130, the line saying nothing was written, and no folder of the
    run left (the parents it made go too)."""
    pytest.importorskip("sb3_contrib")
    (tmp_path / "stopped.toml").write_text(TRAINING)
    setup = FOLDER_MADE_STOPPED.replace("{name}", "out").replace("{signal}", "SIGTERM")
    args = ("train", "stopped.toml", "--no-tracking", "--out", str(tmp_path / "made" / "out"))
    done = run_stopped(tmp_path, setup, *args)
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    assert last_line(done.stderr) == (
        "interrupted while starting, before training began; nothing written"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stopped.toml"]


#: Wraps the interval of the summary's rates: {signal} once every game of `run` is
#: played, as it makes their summary.
SUMMARY_MADE_STOPPED = signal_on_call("mafia_arena.stats", "wilson_interval")

#: Wraps the JSON text of `run --json`: {signal} as the summary is printed.
SUMMARY_PRINTED_STOPPED = signal_on_call("json", "dumps")


@pytest.mark.parametrize("stop", SIGNALS)
@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
def test_run_stopped_before_its_summary_says_its_games_were_played(
    tmp_path: Path, stop: str, as_json: bool
) -> None:
    """Ctrl-C or SIGTERM once all games are played, as `run` makes their summary: exit
    130, one line saying every game was played and no summary printed (nothing is
    written), and no rates on stdout."""
    setup = SUMMARY_MADE_STOPPED.replace("{signal}", stop)
    args = ("run", *TABLE, "--games", "3", *(["--json"] if as_json else []))
    done = run_stopped(tmp_path, setup, *args)
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    assert last_line(done.stderr) == (
        "interrupted after all 3 games were played, before their summary: no summary "
        "printed, nothing written; run the same command to play them again"
    )
    assert done.stdout == ""


@pytest.mark.parametrize("stop", SIGNALS)
def test_run_stopped_while_its_summary_is_printed_prints_it_whole_first(
    tmp_path: Path, stop: str
) -> None:
    """Ctrl-C or SIGTERM while ``run --json`` prints its summary: the summary comes out
    whole (a script can read every game's rates), then the line saying the games were
    played and the summary printed, exit 130."""
    setup = SUMMARY_PRINTED_STOPPED.replace("{signal}", stop)
    done = run_stopped(tmp_path, setup, "run", *TABLE, "--games", "3", "--json")
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    summary = json.loads(done.stdout)
    assert summary["games"] == 3
    assert sum(row["wins"] for row in summary["win_rates"].values()) == 3
    assert last_line(done.stderr) == (
        "interrupted after all 3 games were played and their summary printed whole; nothing written"
    )


#: Sends SIGINT as `main` imports the errors it reports, before the command line is read.
WHILE_MAIN_STARTS = """
def send_there(frame, event, arg):
    name = frame.f_code.co_filename.replace(os.sep, "/")
    if event == "call" and name.endswith("mafia_arena/experiments/errors.py"):
        sys.setprofile(None)
        os.kill(os.getpid(), signal.SIGINT)

sys.setprofile(send_there)
"""


def test_ctrl_c_before_the_command_line_is_read_says_interrupted(tmp_path: Path) -> None:
    """Ctrl-C as `main` starts, before the command is called: exit 130 and one line,
    not a traceback and a process ended by the signal."""
    done = run_stopped(tmp_path, WHILE_MAIN_STARTS, "run", *TABLE, "--games", "50")
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    assert last_line(done.stderr) == "interrupted"
    assert done.stdout == ""


#: Sends SIGINT as the command line's options are read: as ``--log``'s value is parsed.
WHILE_OPTIONS_ARE_READ = """
def send_there(frame, event, arg):
    if event == "call" and frame.f_code.co_name == "nonempty_path":
        sys.setprofile(None)
        os.kill(os.getpid(), signal.SIGINT)

sys.setprofile(send_there)
"""


def test_ctrl_c_while_the_options_are_read_says_interrupted(tmp_path: Path) -> None:
    """Ctrl-C while the options are parsed, before `play` runs: exit 130 and one line,
    not the bare exit 130 with nothing said that typer gives an interrupt."""
    log = tmp_path / "game.jsonl"
    done = run_stopped(tmp_path, WHILE_OPTIONS_ARE_READ, "play", *TABLE, "--log", str(log))
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    assert last_line(done.stderr) == "interrupted"
    assert done.stdout == ""
    assert list(tmp_path.iterdir()) == []
