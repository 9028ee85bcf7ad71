"""Two tournaments started at once on one machine, as a user runs them: two real
`mafia-arena tournament` processes, each on the private local Ray it starts. Both store
every game, and neither cluster finds a port taken by the other (Ray's defaults fix
three: the dashboard agent's 52365 and the metrics servers' 44217 and 44227).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from tests.tournament.conftest import REPO, SMOKE

pytest.importorskip("ray")


def session_started(folder: Path) -> datetime:
    """When Ray started the session in `folder`: it names the folder
    `session_<local date>_<local time>_<microseconds>_<pid>`."""
    date, clock, micros = folder.name.split("_")[1:4]
    return datetime.strptime(f"{date}_{clock}_{micros}", "%Y-%m-%d_%H-%M-%S_%f")


def session_logs(driver_pid: int, since: datetime) -> list[Path]:
    """The log files of the Ray session the driver `driver_pid` started at `since` or
    later (Ray names a session folder after the process that started it; the temporary
    folder may keep sessions of earlier runs whose process had the same number)."""
    from ray._common.utils import get_default_ray_temp_dir

    sessions = [
        folder
        for folder in Path(get_default_ray_temp_dir()).glob(f"session_*_{driver_pid}")
        if session_started(folder) >= since
    ]
    assert len(sessions) == 1, sessions
    return [path for path in (sessions[0] / "logs").rglob("*") if path.is_file()]


def test_two_tournaments_started_at_once_both_finish_on_ports_of_their_own(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "MAFIA_ARENA_FAULT": json.dumps({"sleep_per_game_s": 0.5})}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "mafia_arena.cli", "tournament", str(SMOKE), "--no-tracking"]
    started = datetime.now() - timedelta(seconds=1)
    drivers = [
        subprocess.Popen(
            [*command, "--results", str(tmp_path / name)],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("first", "second")
    ]
    try:
        ends = [driver.communicate(timeout=300) for driver in drivers]
    finally:
        for driver in drivers:
            if driver.poll() is None:
                driver.kill()
    for driver, (out, err) in zip(drivers, ends, strict=True):
        assert driver.returncode == 0, err
        assert "12/12 games stored (12 played now" in out
        taken = [
            path.name
            for path in session_logs(driver.pid, since=started)
            if "address already in use" in path.read_text(errors="replace").lower()
        ]
        assert taken == [], f"a port of the cluster of driver {driver.pid} was taken: {taken}"
