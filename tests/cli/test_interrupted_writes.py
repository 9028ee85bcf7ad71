"""Ctrl-C and SIGTERM landing while a command writes its files leave every file whole.

A game log stopped half-way does not replay, a temporary file beside the outputs is
litter that the next run or reader trips on, and a traceback is no answer to Ctrl-C.
Each case stops a real command at the moment it writes: the signal is sent to the
process from inside the write (a test double wraps the writer), as a user's Ctrl-C or
a `kill` would land there. The commands that run in a child process run there because
an unhandled SIGTERM ends the process, which a test must watch from outside.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.cli.support import assert_quiet, run_cli, run_stopped

from mafia_arena.experiments.summary import Summary
from mafia_arena.results_file import read_records
from mafia_arena.runner.log import GameLog, traces_path
from mafia_arena.tracking.run_tally import RunTally

REPO = Path(__file__).resolve().parents[2]

SPEC = """name = "stopped"
base_seed = 1
pool = ["random"]
games = 4
[[variants]]
variant = "simple"
players = 5
[concurrency]
batch_size = 2
"""


#: Wraps `Path.write_text` for the game log: half the text is out when the signal is sent.
LOG_WRITE_STOPPED = """
import pathlib
write_text = pathlib.Path.write_text

def stopped(self, data, *args, **kwargs):
    if "game.jsonl" not in self.name:
        return write_text(self, data, *args, **kwargs)
    with open(self, "w", encoding="utf-8") as handle:
        handle.write(data[: len(data) // 2])
        handle.flush()
        os.kill(os.getpid(), signal.{signal})
        handle.write(data[len(data) // 2 :])
    return len(data)

pathlib.Path.write_text = stopped
"""


@pytest.mark.parametrize(
    ("stop", "code", "seat"),
    [("SIGINT", 130, ()), ("SIGTERM", 130, ()), ("SIGINT", 130, ("--human", "1"))],
    ids=["ctrl-c", "sigterm", "ctrl-c-at-a-human-seat"],
)
def test_play_stopped_while_writing_its_log_leaves_it_whole(
    tmp_path: Path, stop: str, code: int, seat: tuple[str, ...]
) -> None:
    """Ctrl-C or SIGTERM (exit 130 both) while `--log` is written: the log is written
    whole first, and replays; the line saying so is out
    before the process stops, with no traceback and no temporary file. At a human seat
    the game is over by then, so it is not called abandoned with nothing recorded."""
    log = tmp_path / "game.jsonl"
    setup = LOG_WRITE_STOPPED.replace("{signal}", stop)
    args = ("play", "--variant", "simple", "--players", "5", "--agents", "random", *seat)
    done = run_stopped(
        tmp_path, setup, *args, "--seed", "3", "--log", str(log), answers="0\n" * 300
    )
    assert done.returncode == code, done.stderr
    assert_quiet(done.stderr)
    assert "abandoned" not in done.stderr
    replayed = subprocess.run(
        [sys.executable, "-m", "mafia_arena.cli", "replay", str(log)],
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "replay matches the stored log" in replayed.stdout, replayed.stdout + replayed.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["game.jsonl"]
    assert f"log written to {log}" in done.stdout


def test_a_log_saved_over_another_takes_no_traces_of_the_other(tmp_path: Path) -> None:
    """A log without traces saved where a log with traces was: the old sidecar holds
    another game's traces, and `load` must not give them to this one."""
    from mafia_arena.agents.random_agent import RandomAgent
    from mafia_arena.rules import load_variant
    from mafia_arena.runner.match import play_match_sync

    path = tmp_path / "game.jsonl"
    played = play_match_sync(load_variant("simple"), [RandomAgent() for _ in range(5)], 3).log
    played.traces = [{"seat": 0, "answer": "an earlier game's"}]
    played.save(path)
    assert traces_path(path).exists()
    played.traces = []
    played.save(path)
    assert not traces_path(path).exists()
    assert GameLog.load(path).traces == []


def test_a_log_saved_through_a_link_or_into_a_pipe_goes_where_it_points(
    tmp_path: Path,
) -> None:
    """Written whole by a rename, a log must still go through a link (the link stays) and
    into a named pipe or a device (``--log /dev/stdout``): a rename would put a plain
    file in their place."""
    import threading

    from mafia_arena.agents.random_agent import RandomAgent
    from mafia_arena.rules import load_variant
    from mafia_arena.runner.match import play_match_sync

    played = play_match_sync(load_variant("simple"), [RandomAgent() for _ in range(5)], 3).log
    (tmp_path / "kept").mkdir()
    link = tmp_path / "game.jsonl"
    link.symlink_to(tmp_path / "kept" / "game.jsonl")
    played.save(link)
    assert link.is_symlink() and (tmp_path / "kept" / "game.jsonl").read_text() == (
        played.to_jsonl()
    )
    pipe = tmp_path / "pipe.jsonl"
    os.mkfifo(pipe)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_text()), daemon=True)
    reader.start()
    played.save(pipe)
    reader.join(10)
    assert received == [played.to_jsonl()]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.jsonl", "kept", "pipe.jsonl"]


def test_ctrl_c_while_a_batch_is_stored_leaves_no_temporary_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C after the first log of a batch is written: the run says how many games are
    stored (exit 130), every stored record has its log, no temporary file is left in
    the logs folder, and the same command then plays the rest."""
    from mafia_arena.experiments import store

    spec = tmp_path / "stopped.toml"
    spec.write_text(SPEC)
    results = tmp_path / "r"
    args = ["tournament", str(spec), "--no-ray", "--no-tracking", "--results", str(results)]
    write_all = store._write_all
    written: list[int] = []

    def stopped(fd: int, data: bytes) -> None:
        write_all(fd, data)
        written.append(fd)
        if len(written) == 3:  # the first log of the second batch
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(store, "_write_all", stopped)
    code, err = run_cli(args, capsys)
    assert code == 130, err
    assert "2 games stored; run the same command to resume" in err
    assert sorted(p.name for p in (results / "logs").iterdir()) == [
        "game-000000.jsonl",
        "game-000001.jsonl",
    ]
    assert [r["game_index"] for r in read_records(results / "games.jsonl")] == [0, 1]
    monkeypatch.setattr(store, "_write_all", write_all)
    code, err = run_cli(args, capsys)
    assert code == 0, err
    assert [r["game_index"] for r in read_records(results / "games.jsonl")] == [0, 1, 2, 3]
    assert len(list((results / "logs").iterdir())) == 4


#: Wraps the board's first figure: SIGTERM arrives while the board's files are staged.
BOARD_FIGURE_STOPPED = """
from mafia_arena.leaderboard import publish
plot_ratings = publish.plot_ratings

def stopped(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM)
    return plot_ratings(*args, **kwargs)

publish.plot_ratings = stopped
"""


def test_sigterm_while_a_board_is_written_leaves_the_previous_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`kill` while `leaderboard` writes the board's files: it stops as Ctrl-C does (exit
    130, no traceback, one line saying the board was not written), the board published
    before is as it was, and none of the new board's staged files is left beside it."""
    board = tmp_path / "board"
    stores = []
    for games in (2, 4):  # the board of 2 games is published, that of 4 is stopped
        spec = tmp_path / f"stopped-{games}.toml"
        spec.write_text(SPEC.replace("games = 4", f"games = {games}"))
        stores.append(tmp_path / f"r{games}")
        tournament = ["tournament", str(spec), "--no-ray", "--no-tracking"]
        code, err = run_cli([*tournament, "--results", str(stores[-1])], capsys)
        assert code == 0, err
    code, err = run_cli(["leaderboard", str(stores[0]), "--out", str(board)], capsys)
    assert code == 0, err
    before = {p.name: p.read_bytes() for p in board.iterdir()}
    done = run_stopped(
        tmp_path, BOARD_FIGURE_STOPPED, "leaderboard", str(stores[1]), "--out", str(board)
    )
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    said = f"interrupted before the board was written: no file in {board} was replaced"
    assert done.stderr.strip().splitlines()[-1] == said
    assert {p.name: p.read_bytes() for p in board.iterdir()} == before


@pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy")  # MLflow's
@pytest.mark.parametrize(
    ("owner", "name"),
    [(Summary, "add_matchups"), (RunTally, "add_second")],
    ids=["reading-the-store-back", "logging-the-runs"],
)
def test_ctrl_c_after_the_games_says_they_are_stored_and_ends_the_runs(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    owner: type,
    name: str,
) -> None:
    """Ctrl-C once every game is stored, while the store is read back or the MLflow runs
    are logged: the run says the games are stored (not that it stopped before playing
    any, which would send the user to play them again) and no run stays RUNNING."""
    from mlflow import MlflowClient

    original = getattr(owner, name)

    def interrupted(*args: object, **kwargs: object) -> object:
        os.kill(os.getpid(), signal.SIGINT)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, interrupted)
    spec = tmp_path / "stopped.toml"
    spec.write_text(SPEC)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    args = ["tournament", str(spec), "--no-ray", "--results", str(tmp_path / "r")]
    code, err = run_cli([*args, "--tracking-uri", uri], capsys)
    assert code == 130, err
    assert "4 games stored; run the same command to resume" in err
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("stopped")
    assert experiment is not None
    runs = client.search_runs([experiment.experiment_id])
    assert runs and "RUNNING" not in {run.info.status for run in runs}


#: Wraps the file copy MLflow logs artifacts with: half of the first {suffix} file
#: copied into a run's artifacts is out when Ctrl-C is sent.
ARTIFACT_COPY_STOPPED = """
import shutil
copyfile = shutil.copyfile
copied = []

def stopped(source, target, *args, **kwargs):
    if "artifacts" not in str(target) or not str(source).endswith("{suffix}") or copied:
        return copyfile(source, target, *args, **kwargs)
    copied.append(target)
    with open(source, "rb") as handle:
        data = handle.read()
    with open(target, "wb") as handle:
        handle.write(data[: len(data) // 2])
        handle.flush()
        os.kill(os.getpid(), signal.SIGINT)
        handle.write(data[len(data) // 2 :])
    return target

shutil.copyfile = stopped
"""


@pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy")  # MLflow's
@pytest.mark.parametrize(
    "suffix", [".toml", ".csv"], ids=["the-spec-of-the-tournament-run", "a-matchup-runs-tables"]
)
def test_ctrl_c_while_a_runs_artifacts_are_copied_leaves_them_whole(
    tmp_path: Path, suffix: str
) -> None:
    """Ctrl-C while MLflow copies a run's files into a local store's artifacts (the
    tournament run's spec as it opens, before any game; a matchup run's tables after
    the games): the copy finishes first (the spec whole; every table whole, a seat per
    row of each game, the games and estimates tables there too), then the command
    stops (exit 130) and every run ends KILLED, none RUNNING or FAILED."""
    from mlflow import MlflowClient

    done, uri = _tracked_and_stopped(tmp_path, ARTIFACT_COPY_STOPPED.replace("{suffix}", suffix))
    stored = 0 if suffix == ".toml" else 4
    assert f"{stored} games stored; run the same command to resume" in done.stderr
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("stopped")
    assert experiment is not None
    runs = client.search_runs([experiment.experiment_id])
    assert {run.info.status for run in runs} == {"KILLED"}
    kinds = {run.data.tags["mafia_arena.run_kind"]: run.info.run_id for run in runs}
    artifacts = {kind: tmp_path / "mlruns" / run_id / "artifacts" for kind, run_id in kinds.items()}
    if suffix == ".toml":
        assert (artifacts["tournament"] / "spec.toml").read_text() == SPEC
        return
    tables = artifacts["matchup"] / "tables"
    seats = (tables / "seats.csv").read_text(encoding="utf-8")
    assert seats.endswith("\n") and len(seats.splitlines()) == 1 + 4 * 5
    assert len((tables / "games.csv").read_text(encoding="utf-8").splitlines()) == 1 + 4
    assert (tables / "estimates.csv").is_file()


#: Wraps MLflow's run creation: Ctrl-C as a {kind} run has been created, before the
#: tracker has its id.
RUN_CREATION_STOPPED = """
from mlflow import MlflowClient
create_run = MlflowClient.create_run

def stopped(self, *args, **kwargs):
    run = create_run(self, *args, **kwargs)
    if (kwargs.get("tags") or {}).get("mafia_arena.run_kind") == "{kind}":
        os.kill(os.getpid(), signal.SIGINT)
    return run

MlflowClient.create_run = stopped
"""


@pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy")  # MLflow's
@pytest.mark.parametrize("kind", ["tournament", "matchup"])
def test_ctrl_c_as_a_run_is_created_leaves_no_run_running(tmp_path: Path, kind: str) -> None:
    """Ctrl-C the moment MLflow has created a run (the tournament's, or a matchup's
    after the games) in a local store: the tracker still learns its id, so the run ends
    KILLED with the others, never left RUNNING for `mlflow ui` to show as live."""
    from mlflow import MlflowClient

    _, uri = _tracked_and_stopped(tmp_path, RUN_CREATION_STOPPED.replace("{kind}", kind))
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("stopped")
    assert experiment is not None
    runs = client.search_runs([experiment.experiment_id])
    assert {run.data.tags["mafia_arena.run_kind"] for run in runs} >= {kind}
    assert {run.info.status for run in runs} == {"KILLED"}


def _tracked_and_stopped(tmp_path: Path, setup: str) -> tuple[Any, str]:
    """The spec's tournament tracked in a SQLite MLflow store under `tmp_path`, stopped
    by `setup` (see `run_stopped`): what it did, once it exited 130 with no traceback,
    and the store's URI."""
    (tmp_path / "stopped.toml").write_text(SPEC)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    args = ("tournament", "stopped.toml", "--no-ray", "--results", "r", "--tracking-uri", uri)
    done = run_stopped(tmp_path, setup, *args)
    assert done.returncode == 130, done.stderr
    assert_quiet(done.stderr)
    return done, uri
