"""The reaper of a private local Ray (`local_ray_reaper`), run as the driver runs it: when
the driver's end of its pipe closes, it kills the processes that carry the driver's
token and those handed to it by number, and no other process of the machine (another
driver's cluster, a number reused since it was handed over).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from mafia_arena import local_ray_reaper
from mafia_arena.local_ray import CLUSTER_VARIABLE
from mafia_arena.local_ray_reaper import start_time

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")

SLEEPER = [sys.executable, "-c", "import time; time.sleep(120)"]


def test_the_reaper_kills_its_drivers_processes_and_no_other() -> None:
    token = uuid.uuid4().hex
    script = str(Path(local_ray_reaper.__file__))
    reaper = subprocess.Popen(
        [sys.executable, "-I", "-S", script, CLUSTER_VARIABLE, token],
        stdin=subprocess.PIPE,
        start_new_session=True,
    )
    started: list[subprocess.Popen[bytes]] = [reaper]
    try:

        def sleeper(environment: dict[str, str]) -> subprocess.Popen[bytes]:
            process = subprocess.Popen(SLEEPER, env={**os.environ, **environment})
            started.append(process)
            return process

        marked = sleeper({CLUSTER_VARIABLE: token})
        other_driver = sleeper({CLUSTER_VARIABLE: token + "0"})
        unmarked = sleeper({})
        handed = sleeper({})
        reused = sleeper({})  # handed with another start time: the number of a process gone
        for process, shift in ((handed, 0), (reused, 1)):
            start = start_time(process.pid)
            assert start is not None
            assert reaper.stdin is not None
            reaper.stdin.write(f"{process.pid} {start + shift}\n".encode())
        assert reaper.stdin is not None
        reaper.stdin.close()  # as when the driver ends
        assert reaper.wait(timeout=30) == 0
        assert marked.wait(timeout=10) == -signal.SIGKILL
        assert handed.wait(timeout=10) == -signal.SIGKILL
        assert [p.poll() for p in (other_driver, unmarked, reused)] == [None, None, None]
    finally:
        for process in started:
            if process.poll() is None:
                process.kill()
                process.wait()
