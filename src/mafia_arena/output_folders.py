"""Whether a folder can take a command's output: one check for every command that writes
into a folder it is given (a tournament's results, a training run, a leaderboard).

Permission bits do not answer this for root, nor on a read-only mount or in a pseudo
file system such as ``/proc``, so the nearest existing folder is asked by creating (and
at once removing) an empty folder in it. Checked before any work starts, so a bad
folder costs a message rather than a finished run with nowhere to go.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def unwritable_reason(folder: Path) -> str | None:
    """Why `folder` cannot be made or written (a reason to follow the folder's name in a
    message), or None when it can.

    A name the system cannot look up (longer than a file name may be, a loop of links)
    is such a reason too: `Path.exists` raises for it rather than answer."""
    try:
        if folder.exists() and not folder.is_dir():
            return "is a file, not a folder"
        existing = next((p for p in [folder, *folder.parents] if p.exists()), None)
    except OSError as exc:
        return f"cannot be looked up ({exc.strerror or exc})"
    if existing is None or not existing.is_dir():
        return f"cannot be made: {existing or folder} is a file, not a folder"
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".write-check-", dir=existing))
    except OSError as exc:
        failure = exc.strerror or exc
        return f"cannot be made or written: making a folder in {existing} fails ({failure})"
    return None


def naming(error: OSError, path: Path) -> OSError:
    """`error`, naming `path` when the system call named no file.

    Why: a write or an fsync that fails says only why ("No space left on device",
    "Read-only file system"), and the user must learn which file or folder to free or
    fix; the command line prints such an error as that file and the reason."""
    if error.filename is not None:
        return error
    return OSError(error.errno, error.strerror, str(path))
