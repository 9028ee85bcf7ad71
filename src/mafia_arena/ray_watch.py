"""``python -m mafia_arena.ray_watch TOKEN``: ends a private local Ray when the process
that started it is gone, however it ended.

`local_ray.start_local_ray` starts this watcher first, with a pipe as its stdin, and
then starts Ray with ``MAFIA_ARENA_RAY_OWNER=TOKEN`` in the environment, which every
Ray process inherits (GCS, raylet, the agents the raylet starts, workers). The watcher
reads its stdin until the pipe closes, which the kernel does when the starting process
exits, crashes or is SIGKILLed, then kills every process that carries the token.

Why: the GCS and raylet die with their driver (Ray starts them fate-sharing with it),
but the raylet's ``DashboardAgent`` and ``RuntimeEnvAgent``, seeing it die without a
SIGTERM, report the death to the (dead) GCS and wait 60 s for an answer before they
exit; a driver SIGKILLed in a loop piled them up. Ray has no switch to start a local
node without them (``include_dashboard=False`` only leaves out the dashboard's head).
The processes are found by the token in their environment, never by name, so no other
Ray of the machine is touched. Linux only (it reads /proc); elsewhere it is not started.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path

OWNER_VARIABLE = "MAFIA_ARENA_RAY_OWNER"
PROC = Path("/proc")


def marked(token: str) -> list[int]:
    """The ids of the processes whose environment holds ``MAFIA_ARENA_RAY_OWNER=token``
    (this one left out)."""
    entry = f"{OWNER_VARIABLE}={token}".encode()
    found = []
    for folder in PROC.iterdir():
        if not folder.name.isdigit() or int(folder.name) == os.getpid():
            continue
        try:
            environment = (folder / "environ").read_bytes()
        except OSError:  # gone meanwhile, or another user's
            continue
        if entry in environment.split(b"\0"):
            found.append(int(folder.name))
    return found


def kill_marked(token: str, passes: int = 3, gap_s: float = 0.2) -> None:
    """SIGKILL every process marked with `token`; a few passes, for one started while
    the previous pass ran."""
    for _ in range(passes):
        for pid in marked(token):
            with contextlib.suppress(OSError):  # exited meanwhile
                os.kill(pid, signal.SIGKILL)
        time.sleep(gap_s)


def main() -> None:
    """Wait for stdin to close, then kill the token's processes (see the module doc)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    token = sys.argv[1]
    while sys.stdin.buffer.read(1 << 16):
        pass
    kill_marked(token)


if __name__ == "__main__":
    main()
