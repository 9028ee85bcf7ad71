"""A tournament driver stopped, as a user stops it: a real `mafia-arena tournament`
process on a real local Ray. SIGTERM at any moment of the start ends the run as Ctrl-C
does: one line saying what to do, exit 130, no traceback, Ray shut down, a results
folder the next run resumes; once Ray runs, a SIGTERM is still that interrupt, never
an abort seconds later by Ray's crash handler. A SIGINT while a batch is being appended
says how many games the store holds once the driver has ended. A SIGKILL mid-run takes
the driver's whole cluster along within seconds, and the next run resumes the stored
games.

The driver's processes are told apart from any other Ray of the machine by a variable
of their environment (`MARK`), which every process the driver starts inherits (the GCS
and raylet keep it readable; Ray's Python agents write their titles over it).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.tournament.conftest import REPO, SMOKE

pytest.importorskip("ray")
pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")

MARK = "MAFIA_ARENA_TEST_DRIVER"
SIGTERM_BIT = 1 << (signal.SIGTERM - 1)


def marked(token: str) -> list[tuple[int, str]]:
    """(pid, command line) of every process whose environment holds ``MARK=token``."""
    entry = f"{MARK}={token}".encode()
    found = []
    for folder in Path("/proc").iterdir():
        if not folder.name.isdigit():
            continue
        try:
            environment = (folder / "environ").read_bytes()
            command = (folder / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if entry in environment.split(b"\0"):
            found.append((int(folder.name), command.decode(errors="replace")))
    return found


def catches_sigterm(pid: int) -> bool:
    """Whether process `pid` has a handler for SIGTERM now (its /proc status says)."""
    status = Path(f"/proc/{pid}/status").read_text()
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) & SIGTERM_BIT)


def ray_starting(pid: int, token: str) -> bool:
    """Whether Ray's GCS or raylet of the driver `pid` runs (so `ray.init` is under way)."""
    return any(
        other != pid and ("gcs_server" in command or "raylet" in command)
        for other, command in marked(token)
    )


def start_driver(tmp_path: Path, token: str, game_s: float) -> subprocess.Popen[str]:
    """The smoke tournament on a local Ray, each game taking `game_s` seconds more."""
    fault = json.dumps({"sleep_per_game_s": game_s})
    env = {**os.environ, MARK: token, "MAFIA_ARENA_FAULT": fault}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "mafia_arena.cli", "tournament", str(SMOKE)]
    command += ["--results", str(tmp_path / "r"), "--no-tracking"]
    return subprocess.Popen(
        command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def wait_for(driver: subprocess.Popen[str], ready: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 120
    while not ready():
        assert driver.poll() is None, f"the driver ended before {what}: {driver.communicate()}"
        assert time.monotonic() < deadline, f"no {what} in 120 s"
        time.sleep(0.005)


def left_over(token: str, wait_s: float) -> list[tuple[int, str]]:
    """The marked processes still there after up to `wait_s` seconds (none: at once)."""
    deadline = time.monotonic() + wait_s
    while marked(token) and time.monotonic() < deadline:
        time.sleep(0.2)
    return marked(token)


def check_folder(results: Path) -> None:
    """Every file the start writes is whole: store lines, manifest, host key."""
    store = results / "games.jsonl"
    if store.exists():
        for line in store.read_text().splitlines():
            json.loads(line)
    if (results / "manifest.json").exists():
        json.loads((results / "manifest.json").read_text())
    if (results / "host_key").exists():
        assert len((results / "host_key").read_text().strip()) == 64
    assert not list(results.glob("*.tmp")) and not list(results.glob(".*.partial"))


@pytest.mark.parametrize(
    "moment",
    ["as soon as it handles SIGTERM", "while Ray starts"],
)
def test_a_sigterm_while_starting_stops_the_run_as_ctrl_c_does(tmp_path: Path, moment: str) -> None:
    token = uuid.uuid4().hex
    driver = start_driver(tmp_path, token, 0.5)
    try:
        if moment == "while Ray starts":
            wait_for(driver, lambda: ray_starting(driver.pid, token), "Ray process")
        else:
            wait_for(driver, lambda: catches_sigterm(driver.pid), "SIGTERM handler")
        driver.send_signal(signal.SIGTERM)
        _, err = driver.communicate(timeout=120)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert driver.returncode == 130, err
    assert "Traceback" not in err
    assert "run the same command to" in err.strip().splitlines()[-1]
    assert left_over(token, 15) == []  # Ray shut down
    check_folder(tmp_path / "r")
    done = _rerun(tmp_path)  # and the next run completes the tournament
    assert done.returncode == 0, done.stderr
    assert "12/12 games stored" in done.stdout


#: `mafia-arena ARGS` with SIGTERM sent as the Ray executor is made, once Ray has started
#: (at the first call into Ray's code under `RayExecutor.__init__`, `ensure_ray` done),
#: and `ray.shutdown` wrapped to say so when the driver calls it (Ray's own exit hook
#: calls the function it registered, unwrapped).
SIGTERM_AS_THE_EXECUTOR_IS_MADE = """
import os, signal, sys
import ray

shutdown = ray.shutdown

def said(*args, **kwargs):
    print("ray shut down by the driver", file=sys.stderr, flush=True)
    return shutdown(*args, **kwargs)

ray.shutdown = said

def making_the_executor(frame):
    inside = False
    while frame is not None:
        code = frame.f_code
        if code.co_name == "ensure_ray":
            return False
        if code.co_name == "__init__" and code.co_filename.endswith("executors.py"):
            inside = True
        frame = frame.f_back
    return inside

def send_there(frame, event, arg):
    if event == "call" and "/ray/" in frame.f_code.co_filename and making_the_executor(frame):
        sys.setprofile(None)
        os.kill(os.getpid(), signal.SIGTERM)

sys.setprofile(send_there)
from mafia_arena.cli import main
main(sys.argv[1:])
"""


def test_a_sigterm_as_the_executor_is_made_shuts_ray_down_before_exit(tmp_path: Path) -> None:
    """SIGTERM once Ray has started, while the executor declares its task: the run stops
    as Ctrl-C does (exit 130, the line), and the driver shuts Ray down itself before the
    interpreter ends, rather than leave it running, with its threads, into the exit."""
    token = uuid.uuid4().hex
    env = {**os.environ, MARK: token}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    command = ["tournament", str(SMOKE), "--results", str(tmp_path / "r"), "--no-tracking"]
    done = subprocess.run(
        [sys.executable, "-c", SIGTERM_AS_THE_EXECUTOR_IS_MADE, *command],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr
    assert "ray shut down by the driver" in done.stderr
    assert "run the same command to" in done.stderr.strip().splitlines()[-1]
    assert left_over(token, 15) == []
    check_folder(tmp_path / "r")


SIGTERM_ONCE_RAY_RUNS = """
import os
import signal
import time

import ray

from mafia_arena.local_ray import start_local_ray
from mafia_arena.sigterm import sigterm_as_interrupt

with sigterm_as_interrupt():
    start_local_ray(1)
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(30)
    except KeyboardInterrupt:
        time.sleep(5)  # a shutdown as slow as a loaded machine's
        ray.shutdown()
        print("interrupted and shut down", flush=True)
"""


def test_a_sigterm_once_ray_runs_is_an_interrupt_that_is_not_aborted_later(
    tmp_path: Path,
) -> None:
    """A driver's local Ray has started (as the tournament starts it) when SIGTERM comes:
    it is Ctrl-C, and the process ends when its shutdown is done, however long that takes.
    Ray's C++ crash handler, put on SIGTERM by the core worker `ray.init` makes, printed
    a stack and aborted the process 3 s after the signal (exit -6): a tournament stopped
    mid-run on a loaded machine ended so, its store closed but its exit code lost."""
    token = uuid.uuid4().hex
    env = {**os.environ, MARK: token}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", SIGTERM_ONCE_RAY_RUNS],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "interrupted and shut down\n"
    assert "SIGTERM received" not in done.stderr
    assert left_over(token, 15) == []


INTERRUPT_MID_APPEND = """
import os
import signal
import sys

from mafia_arena.cli import main
from mafia_arena.experiments.store import ResultsStore


class InterruptingFile:
    '''The store's file, which sends this process SIGINT right after its `at`-th write.'''

    def __init__(self, out, at):
        self.out, self.at, self.writes = out, at, 0

    def write(self, data):
        written = self.out.write(data)
        self.writes += 1
        if self.writes == self.at:
            os.kill(os.getpid(), signal.SIGINT)
        return written

    def __getattr__(self, name):
        return getattr(self.out, name)


open_store = ResultsStore.open


def open_interrupting(self):
    open_store(self)
    self._out.close()  # as a file system reporting 1 MiB blocks (NFS, Lustre) buffers it
    big_blocks = self.path.open("ab", buffering=1 << 20)
    self._out = InterruptingFile(big_blocks, int(os.environ["INTERRUPT_AT_LINE"]))


ResultsStore.open = open_interrupting
main(sys.argv[1:])
"""


def test_an_interrupt_during_an_append_counts_the_games_the_store_holds(tmp_path: Path) -> None:
    """A SIGINT that lands after the first record line of the second batch is written,
    before the lines are flushed (smoke: batches of 3, in-process): the message counts
    what the store holds once the driver has ended, and the next run resumes from it.

    The store's file is buffered by the block size its file system reports: 4 KiB here,
    less than a smoke record, which is then written at once; NFS or Lustre report up to
    1 MiB, and a batch's lines wait in the buffer until it is flushed. The test gives the
    file such a buffer."""
    results = tmp_path / "r"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "INTERRUPT_AT_LINE": "4"}
    command = ["tournament", str(SMOKE), "--no-ray", "--results", str(results), "--no-tracking"]
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPT_MID_APPEND, *command],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 130, done.stderr
    said = done.stderr.strip().splitlines()[-1]
    lines = (results / "games.jsonl").read_text().splitlines()
    assert said == f"{len(lines)} games stored; run the same command to resume"
    assert len(lines) == 4  # the interrupted batch's first game is stored, and counted
    again = subprocess.run(
        [sys.executable, "-m", "mafia_arena.cli", *command],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stderr
    assert "12/12 games stored" in again.stdout
    assert "(8 played now, 4 resumed" in again.stdout


def test_an_interrupt_while_the_executor_closes_counts_the_stored_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C after the last game, while the executor is closed (a local Ray's shutdown
    takes seconds): every game is stored, and the interrupt says so; it was taken for
    one before any game was played ("interrupted while starting")."""
    from mafia_arena.experiments import Interrupted, run_tournament
    from mafia_arena.experiments.executors import InProcessExecutor

    def interrupted_close(self: InProcessExecutor) -> None:
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(InProcessExecutor, "close", interrupted_close)
    results = tmp_path / "r"
    with pytest.raises(Interrupted) as stopped:
        run_tournament(SMOKE, use_ray=False, results_dir=results, track=False, progress=False)
    assert stopped.value.games_stored == stopped.value.games_total == 12
    assert str(stopped.value) == "12 games stored; run the same command to resume"


def descendants(pid: int) -> dict[int, tuple[int, str]]:
    """Every process below `pid` now: its start time (clock ticks after boot, so a later
    process under a reused number is another) and its command name."""
    parents: dict[int, list[int]] = {}
    seen: dict[int, tuple[int, str]] = {}
    for folder in Path("/proc").iterdir():
        if not folder.name.isdigit():
            continue
        try:
            text = (folder / "stat").read_text(errors="replace")
        except OSError:
            continue  # gone
        name, _, rest = text.partition("(")[2].rpartition(")")
        fields = rest.split()
        parents.setdefault(int(fields[1]), []).append(int(folder.name))
        seen[int(folder.name)] = (int(fields[19]), name)
    found: dict[int, tuple[int, str]] = {}
    below = list(parents.get(pid, []))
    while below:
        child = below.pop()
        found[child] = seen[child]
        below.extend(parents.get(child, []))
    return found


def still_there(processes: dict[int, tuple[int, str]], wait_s: float) -> list[str]:
    """The `processes` (from `descendants`) still running after up to `wait_s` seconds."""
    deadline = time.monotonic() + wait_s
    while True:
        alive = []
        for pid, (start, name) in processes.items():
            try:
                stat = Path(f"/proc/{pid}/stat").read_text(errors="replace")
            except OSError:
                continue
            fields = stat.rpartition(")")[2].split()
            if int(fields[19]) == start and fields[0] != "Z":
                alive.append(f"{pid} {name}")
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.2)


def test_a_sigkilled_driver_takes_its_cluster_along_and_the_rerun_resumes(
    tmp_path: Path,
) -> None:
    """SIGKILL of a real driver once its first batch is stored, games still playing
    (1 s each). Its GCS and raylet end with it, and its Ray agents and workers within
    seconds (measured: under 1 s; without the reaper the agents stayed 61 s, waiting on
    the dead GCS). The next run resumes the stored games."""
    token = uuid.uuid4().hex
    driver = start_driver(tmp_path, token, 1.0)
    store = tmp_path / "r" / "games.jsonl"
    try:
        wait_for(
            driver,
            lambda: store.exists() and store.read_bytes().count(b"\n") >= 3,
            "stored batch",
        )
        cluster = descendants(driver.pid)
        driver.kill()
        driver.communicate(timeout=60)
    finally:
        if driver.poll() is None:
            driver.kill()
    names = [name for _, name in cluster.values()]
    assert {"gcs_server", "raylet"} <= set(names), names
    assert any("DashboardA" in n for n in names) and any("RuntimeEnv" in n for n in names)
    assert still_there(cluster, 20) == []
    stored = store.read_bytes().count(b"\n")  # a line cut short is played again
    assert 3 <= stored < 12
    done = _rerun(tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"12/12 games stored ({12 - stored} played now, {stored} resumed" in done.stdout


def _rerun(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """The smoke tournament run again, without Ray or tracking, on the results folder
    ``tmp_path / "r"`` a stopped run left."""
    again = ["tournament", str(SMOKE), "--no-ray", "--results", str(tmp_path / "r")]
    return subprocess.run(
        [sys.executable, "-m", "mafia_arena.cli", *again, "--no-tracking"],
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
