"""A tournament driver stopped while it starts (SIGTERM), as a user runs it: a real
`mafia-arena tournament` process on a real local Ray. SIGTERM at any moment of the start
ends the run as Ctrl-C does: one line saying what to do, exit 130, no traceback, Ray
shut down, a results folder the next run resumes.

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


def agents(token: str) -> int:
    """How many of Ray's two node agents (dashboard, runtime env) of the driver run."""
    names = ("DashboardAgent", "dashboard/agent.py", "RuntimeEnvAgent", "runtime_env/agent")
    return sum(any(name in command for name in names) for _, command in marked(token))


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
    assert not list(results.glob("*.tmp"))


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
    again = ["tournament", str(SMOKE), "--no-ray", "--results", str(tmp_path / "r")]
    done = subprocess.run(  # and the next run completes the tournament
        [sys.executable, "-m", "mafia_arena.cli", *again, "--no-tracking"],
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "12/12 games stored" in done.stdout
