"""Run a module of the test suite in a fresh Python process with a chosen hash seed.

Why: `PYTHONHASHSEED` fixes the order in which a set of strings (role names, pseudonyms,
switch names) is iterated, and it is read once, when the interpreter starts. A test that
plays a game twice in its own process iterates every such set the same way twice, so it
cannot see a game whose log depends on that order; two processes started with different
hash seeds (and different memory layouts, so `id`-based orders differ too) can.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import mafia_arena

REPO = Path(__file__).resolve().parents[1]
SOURCE = Path(mafia_arena.__file__).resolve().parents[1]
"""The folder the running package is imported from: the child imports the same code."""


def run_module(module: str, *args: str | Path, hash_seed: str) -> subprocess.Popen[str]:
    """Start ``python -m module args`` from the repository root with `hash_seed` as
    ``PYTHONHASHSEED`` (a number, or ``random``); the caller waits with `finish`.

    Started, not run, so that a test can keep two children busy at once."""
    env = {
        **os.environ,
        "PYTHONHASHSEED": hash_seed,
        "PYTHONPATH": os.pathsep.join([str(REPO), str(SOURCE)]),
    }
    return subprocess.Popen(
        [sys.executable, "-m", module, *map(str, args)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(child: subprocess.Popen[str], timeout: float = 120) -> str:
    """The child's standard output once it has exited with 0; its output otherwise
    fails the test with what it printed."""
    out, err = child.communicate(timeout=timeout)
    assert child.returncode == 0, f"{child.args!r} exited with {child.returncode}:\n{out}\n{err}"
    return out
