"""The identity of the running code: package version, git commit, source digest.

One definition shared by everything that says which code produced something: the
results store's manifest and records (`experiments.provenance`), the MLflow tags, and
each game log's ``meta["code"]`` (`runner.log.GameLog.from_game`). It sits in the lowest
layer so the runner can stamp logs without importing the experiments package.

* ``version``: ``mafia_arena.__version__``;
* ``commit``: the git commit when the package runs from a checkout, else None;
* ``digest``: sha256 (16 hex digits) over the package's own ``*.py`` files, names and
  bytes, so an uncommitted one-line edit of a scripted agent is a different identity.

Computed once per process (`lru_cache`): a worker reads the source once, not per game.
So a process names the code it imported, and a worker started after the checkout was
edited names other code than its driver: the tournament driver refuses to store such
a worker's games (`experiments.driver`).

`installed_versions` names the versions of other distributions that made a result
(the local model's server and weights, the training libraries).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import subprocess
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import mafia_arena

PACKAGE_DIR = Path(mafia_arena.__file__).resolve().parent


@lru_cache(maxsize=1)
def code_identity() -> dict[str, str | None]:
    """``{"version", "commit", "digest"}`` of the running package (module docstring)."""
    blob = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        blob.update(path.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0")
        blob.update(path.read_bytes() + b"\0")
    return {
        "version": mafia_arena.__version__,
        "commit": _git_commit(PACKAGE_DIR),
        "digest": blob.hexdigest()[:16],
    }


def code_label(code: Mapping[str, Any]) -> str:
    """A code identity (`code_identity`'s, or one a record or log carries) as a
    leaderboard's README and a replay's messages name it: ``"<version>, source digest
    <digest>"``."""
    return f"{code.get('version')}, source digest {code.get('digest')}"


def installed_versions(names: Iterable[str]) -> dict[str, str | None]:
    """The installed version of each distribution in `names`, None for one not
    installed: the libraries a model card or a policy file names beside the code."""
    found: dict[str, str | None] = {}
    for name in names:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = None
    return found


def _git_commit(folder: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None
