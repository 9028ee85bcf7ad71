"""Opening a file that a person named, which may be anything at all.

Every reader of a user's file (a game log, a results store, a variant or spec) looks
at the path before it opens it: opening a pipe waits for a writer and never returns,
and a device such as ``/dev/zero`` never ends, so reading it fills the memory. Only a
regular file is opened, and no more than the reader's limit is read (a file's size is
not trusted: it may grow while it is read). The messages here are reasons alone; each
reader puts its file, key and what the file should be in front of them.
`find_beside_spec` is where a spec's relative paths are looked up, for every reader of
a spec. A file that one written file names (a game log's variant file, a policy's
variant and fallback files) is recorded by `reference_from` and read back by
`read_reference`: by its path from the writer's folder where both lie in the project
(`spec_projects`), so what is written names no path of the machine that wrote it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

MIB = 1024 * 1024


class FileTooLarge(ValueError):
    """A file over the reader's limit; the message is the reason only."""


def not_a_file(path: Path) -> str | None:
    """None when `path` is a regular file; otherwise why it is none ("it is a folder",
    "not a regular file (a pipe or a device)"). Raises `OSError` for a path that cannot
    be looked up (missing, a symbolic-link loop, no permission)."""
    mode = path.stat().st_mode
    if stat.S_ISDIR(mode):
        return "it is a folder"
    if not stat.S_ISREG(mode):
        return "not a regular file (a pipe or a device)"
    return None


def read_at_most(path: Path, limit: int) -> bytes:
    """The bytes of the file at `path`, which the caller has found regular
    (`not_a_file`); `FileTooLarge` when it holds more than `limit` bytes, of which at
    most `limit` + 1 are read. Raises `OSError` when it cannot be opened or read."""
    with path.open("rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(f"larger than {limit // MIB} MiB")
    return data


def find_beside_spec(raw: str, spec_path: Path) -> Path | None:
    """The file or folder a spec names by `raw`, or None when there is none.

    An absolute path is taken as it is. A relative one is looked up from the working
    folder, then the spec's folder, then the folder above it (the repository root for
    specs in experiments/), and the first that exists is returned resolved.

    Why every spec reader uses this one lookup: a tournament and a training spec name
    variant and agent files alike, and a researcher runs either from the repository
    root or from the folder of their own spec; one rule means a file found by one
    command is found by the other."""
    candidate = Path(raw)
    if candidate.is_absolute():
        return candidate if exists(candidate) else None
    for base in (Path.cwd(), spec_path.parent, spec_path.parent.parent):
        if exists(base / candidate):
            return (base / candidate).resolve()
    return None


def spec_projects(spec_path: str | Path) -> tuple[Path, Path]:
    """The folders whose layout travels with what a run of the spec at `spec_path`
    writes: the working folder and the spec's repository (the folder above the spec's,
    as `find_beside_spec` looks there), for `reference_from`."""
    return (Path.cwd(), Path(spec_path).resolve().parent.parent)


def reference_from(file: Path, folder: Path, projects: Sequence[Path]) -> str:
    """How a file written to `folder` names `file`: the path from `folder` to it
    (``../../my-variant.toml``, with ``/``) when both lie in one of `projects`
    (`spec_projects`), else its absolute path; `read_reference` reads either back.

    Why: an absolute path names the machine and the home folder of whoever wrote it,
    so a results folder or a policy file moved to another machine or checkout, or
    published, named a file that is not there and showed that path; a path from the
    writer's folder finds the file wherever the project that holds both is moved. A file
    outside the project (another disk, a shared folder) is kept absolute: a path up out
    of the project would be no truer elsewhere, and says less where it is."""
    file, folder = file.resolve(), folder.resolve()
    for project in (p.resolve() for p in projects):
        if file.is_relative_to(project) and folder.is_relative_to(project):
            return Path(os.path.relpath(file, folder)).as_posix()
    return str(file)


def read_reference(recorded: str, folder: Path) -> Path:
    """The file that `recorded` (as `reference_from` wrote it) names, read from a file in
    `folder`: an absolute path as it is, a relative one from `folder`."""
    path = Path(recorded)
    if path.is_absolute():
        return path
    return Path(os.path.normpath(folder.resolve() / path))


def exists(path: Path) -> bool:
    """`Path.exists`, False for a name the system cannot look up (longer than it allows):
    such a spec entry or agent name is "no such file", not an `OSError` traceback."""
    try:
        return path.exists()
    except OSError:
        return False
