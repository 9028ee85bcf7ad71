"""Opening a file that a person named, which may be anything at all.

Every reader of a user's file (a game log, a results store, a variant or spec) looks
at the path before it opens it: opening a pipe waits for a writer and never returns,
and a device such as ``/dev/zero`` never ends, so reading it fills the memory. Only a
regular file is opened, and no more than the reader's limit is read (a file's size is
not trusted: it may grow while it is read). The messages here are reasons alone; each
reader puts its file, key and what the file should be in front of them.
"""

from __future__ import annotations

import stat
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
