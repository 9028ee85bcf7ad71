"""Whether a folder can take a command's output: one check for every command that writes
into a folder it is given (a tournament's results, a training run, a leaderboard), and
one way to write a file there whole (`write_whole`).

`unusable_folder` words a refusal of such a folder alike for every command (``FOLDER:
REASON (OPTION)``: the path given, why it cannot be used, and what gave it), and
`check_output_folder` raises it as an `OutputFolderError`; `made_folder` makes a folder
for a command's output and removes it again, if it is still empty, when the command is
stopped before writing into it.

Permission bits do not answer this for root, nor on a read-only mount or in a pseudo
file system such as ``/proc``, so the nearest existing folder is asked by creating (and
at once removing) an empty folder in it. Checked before any work starts, so a bad
folder costs a message rather than a finished run with nowhere to go.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from mafia_arena.sigterm import interrupts_deferred


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


class OutputFolderError(ValueError):
    """A folder given for a command's output (or for a file it keeps) that cannot take
    it; the message is `unusable_folder`'s one line."""


def unusable_folder(folder: Path, given_by: str) -> str | None:
    """``FOLDER: REASON (GIVEN_BY)`` when `folder` cannot be made or written
    (`unwritable_reason`), else None. `given_by` says what chose the folder, for the
    user to change it: an option (``--out``), a spec's key (``spec.toml: results``).

    Why one wording: every command that writes into a folder it is given refuses the
    same mistakes (a file, a folder under a file, a read-only place); the path comes
    first, as a bad file's name does in every other refusal (``FILE: KEY: REASON``),
    so a message names what to fix even where several options take paths."""
    reason = unwritable_reason(folder)
    return None if reason is None else f"{folder}: {reason} ({given_by})"


def check_output_folder(folder: Path, given_by: str) -> None:
    """Raise `OutputFolderError` (`unusable_folder`'s line) unless `folder` can be made
    and written."""
    problem = unusable_folder(folder, given_by)
    if problem is not None:
        raise OutputFolderError(problem)


def check_output_file(path: Path, given_by: str) -> None:
    """Raise `OutputFolderError` unless a file can be written at `path` later: `path`
    must not be a folder (``PATH: is a folder, not a file (GIVEN_BY)``), and its folder
    must be one that can be made and written (`check_output_folder`, named ``the folder
    of GIVEN_BY PATH``). For a file a command writes only after its work (a game's log,
    a server's store), so a bad path costs a message rather than the work done.

    A path whose name the system refuses to look up (too long) is left to the write,
    which says so with the file's name."""
    try:
        folder = path.is_dir()
    except OSError:
        folder = False
    if folder:
        raise OutputFolderError(f"{path}: is a folder, not a file ({given_by})")
    check_output_folder(path.parent, f"the folder of {given_by} {path}")


@contextlib.contextmanager
def made_folder(folder: Path) -> Iterator[Path]:
    """Make `folder` (and its missing parents) for the block; when the block raises
    (Ctrl-C included), remove again each folder made here that is still empty,
    deepest first.

    Why: a command stopped before it wrote anything leaves no empty folder behind that
    it made itself (one the next run, or a person, would take for an output); a folder
    that was there before, or that holds anything by then, is left as it is.

    Ctrl-C or SIGTERM arriving while the folders are made waits until they are, and
    then stops the block at its start (`sigterm.interrupts_deferred`): landing between
    the making and the block, it left the folders behind, under a line saying that
    nothing was written."""
    missing: list[Path] = []
    try:
        with interrupts_deferred():  # delivered inside the `try`: the folders go again
            missing = _missing_folders(folder)
            folder.mkdir(parents=True, exist_ok=True)
        yield folder
    except BaseException:
        for path in missing:  # deepest first; a folder that is not empty stops it
            try:
                path.rmdir()
            except FileNotFoundError:  # not made: stopped (or failed) while making them
                continue
            except OSError:
                break
        raise


def _missing_folders(folder: Path) -> list[Path]:
    """`folder` and its parents that do not exist yet, deepest first (what making
    `folder` makes)."""
    missing = []
    for path in [folder, *folder.parents]:
        if path.exists():
            break
        missing.append(path)
    return missing


def naming(error: OSError, path: Path) -> OSError:
    """`error`, naming `path` when the system call named no file.

    Why: a write or an fsync that fails says only why ("No space left on device",
    "Read-only file system"), and the user must learn which file or folder to free or
    fix; the command line prints such an error as that file and the reason."""
    if error.filename is not None:
        return error
    return OSError(error.errno, error.strerror, str(path))


def partial_path(target: Path) -> Path:
    """Where `write_whole` writes `target` before renaming it: ``.<name>.partial`` in the
    same folder (the same file system, so the rename is atomic; hidden, so a file left
    by a killed process is not taken for an output)."""
    return target.with_name(f".{target.name}.partial")


def write_whole(target: Path, write: Callable[[Path], object]) -> Path:
    """`write` the file at `partial_path` (`target`'s temporary name), then rename it
    over `target`; return `target`.

    Why: a file written in place and cut off (Ctrl-C, SIGTERM, a full disk) is a
    truncated policy, log or manifest that the next reader refuses or misreads. Here
    `target` is either the previous file, whole, or the new one, whole; the temporary
    is removed whatever stops `write`, so none is left behind (only a process ended
    outright, by SIGKILL or by a SIGTERM that nothing handles, leaves one). To finish
    a write rather than abandon it, or to keep several files of one moment together,
    callers hold interrupts back around it (`sigterm.interrupts_deferred`).

    A target that is a link or no regular file (``--log /dev/stdout``, a named pipe) is
    written in place, through it: a rename would put a plain file where the link, the
    device or the pipe was (run as root, in place of ``/dev/stdout`` itself)."""
    if target.is_symlink() or (target.exists() and not target.is_file()):
        write(target)
        return target
    temporary = partial_path(target)
    try:
        write(temporary)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
    return target
