"""Ray's temporary folder for one run of the test suite: made when the run starts,
removed when it ends.

Why: Ray keeps its files under ``$RAY_TMPDIR/ray`` (``/tmp/ray`` by default): a folder
per cluster, named after the time and the process number of the driver that started
it, and the address file a cluster started with ``ray start --head`` leaves. A machine
that keeps ``/tmp`` between runs (a CI runner) keeps all of it: each run of the suite
added the folders of the dozens of clusters it starts, so the folder only grew, and a
test that looked a cluster's folder up by its driver's process number found an earlier
run's folder whose driver had had the same number. In a folder of its own, every cluster
the run starts, in the test process or in a process it starts (they inherit the
variable), finds only this run's files. A ``RAY_TMPDIR`` set by whoever runs the tests
is kept.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

VARIABLE = "RAY_TMPDIR"
"""Where Ray puts its temporary folder (``<value>/ray``)."""

_made: list[Path] = []


def use_a_ray_folder_of_this_run() -> Path | None:
    """Point `VARIABLE` at a new, empty folder, removed when this process exits (after
    Ray's own exit handler has shut down its cluster, since that one is registered later);
    None, changing nothing, when the variable is set already.

    The folder lies directly in the system's temporary folder under a short name: Ray
    makes Unix sockets in it, whose paths may not exceed 107 bytes."""
    if os.environ.get(VARIABLE):
        return None
    folder = Path(tempfile.mkdtemp(prefix="ray-"))
    os.environ[VARIABLE] = str(folder)
    _made.append(folder)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def ray_folder_of_this_run() -> Path | None:
    """The folder `use_a_ray_folder_of_this_run` made in this process, if it made one."""
    return _made[-1] if _made else None
