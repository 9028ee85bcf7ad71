"""The reaper of a driver's private local Ray: ends the cluster's processes when the
driver is gone, however it went (`local_ray.start_local_ray` starts it).

Why: Ray starts the GCS and the raylet fate-sharing with the driver, so a SIGKILL of the
driver (or a crash) ends them at once, but the raylet's dashboard agent and runtime env
agent then report the raylet's death to the dead GCS and wait 60 s for an answer before
they exit, and its workers take a few seconds more to notice. Nothing of Ray's shortens
that wait (the 60 s is a fixed argument of the agents' call).

How: the driver starts this script with the read end of a pipe as its standard input
and keeps the write end, which no other process holds. Once its cluster is up, the
driver writes the raylet's children (the agents and the first workers) to the pipe, a
``PID START`` line each (`start_time`: a process started later under a reused number is
not taken for it). The script reads until end of file, which comes when the driver has
exited, normally or not; then it SIGKILLs those processes and every process whose
environment holds ``VARIABLE=TOKEN`` (`local_ray.CLUSTER_VARIABLE`: the cluster's
processes inherit it, from the driver or from the raylet, the workers started later
among them), twice, half a second apart, for one started in between. The agents are
handed over by number because they write their process titles over the start of their
environment, where the variable may lie. The token is unique to the driver, so no
other process of the machine (another driver's cluster, a cluster of ``ray start``)
matches. The script runs in a session of its own, so a Ctrl-C in the driver's terminal
does not reach it, and imports only the standard library (it is started with ``-I
-S``).

Run as ``python -I -S local_ray_reaper.py VARIABLE TOKEN``; Linux only (it reads
``/proc``).
"""

from __future__ import annotations

import os
import signal
import sys
import time

PASSES = 2
"""How many times the processes are looked for and killed."""
PAUSE_S = 0.5
"""The wait between two passes."""


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (state first), or None if
    the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read().decode(errors="replace")
    except OSError:
        return None
    return text.rpartition(")")[2].split()


def start_time(pid: int) -> int | None:
    """When process `pid` started (clock ticks after boot), None if it is gone: with the
    number, it names one process, even after the number is reused."""
    fields = _stat(pid)
    return int(fields[19]) if fields is not None and len(fields) > 19 else None


def children(parent: int) -> list[tuple[int, int]]:
    """``(pid, start time)`` of each process whose parent is `parent`."""
    found = []
    for name in os.listdir("/proc"):
        fields = _stat(int(name)) if name.isdigit() else None
        if fields is not None and len(fields) > 19 and int(fields[1]) == parent:
            found.append((int(name), int(fields[19])))
    return found


def marked(entry: bytes) -> list[int]:
    """The processes (other than this one) whose environment holds `entry`
    (``VARIABLE=TOKEN``) as one of its variables."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                variables = handle.read().split(b"\0")
        except OSError:  # gone, or another user's
            continue
        if entry in variables:
            found.append(int(name))
    return found


def reap(entry: bytes, handed: dict[int, int]) -> None:
    """SIGKILL the `handed` processes (pid: start time) still there and the processes
    holding `entry`, `PASSES` times."""
    for number in range(PASSES):
        if number:
            time.sleep(PAUSE_S)
        listed = [pid for pid, start in handed.items() if start_time(pid) == start]
        for pid in {*listed, *marked(entry)}:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:  # gone meanwhile
                continue


def main(argv: list[str]) -> None:
    variable, token = argv
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # only the end of the pipe ends it
    handed: dict[int, int] = {}
    for line in sys.stdin.buffer:  # until the driver is gone
        pid, _, start = line.decode().partition(" ")
        handed[int(pid)] = int(start)
    reap(f"{variable}={token}".encode(), handed)


if __name__ == "__main__":
    main(sys.argv[1:])
