"""Reading a TOML input file (a variant, an experiment or training spec) that a person
may have got wrong in any way.

`read_toml_text` opens only a regular file and reads at most `MAX_TOML_BYTES` + 1 bytes
(`input_files`: a pipe would wait for a writer, ``/dev/zero`` would fill the memory),
and decodes UTF-8. Each of these refusals is a `TomlFileError` whose message is one line,
the reason alone, for the caller to put after its file (and key). An `OSError` of the
path itself (missing, no permission, a symbolic-link loop) propagates unchanged, so each
caller keeps its own words for a missing file.

`parse_toml` is `tomllib.loads`, except that nesting too deep for its recursive parser
(``a = [[[...]]]`` some thousand levels deep raises `RecursionError`) is a
`tomllib.TOMLDecodeError` like any other broken TOML, so each caller's refusal of
broken TOML covers it.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from mafia_arena.input_files import FileTooLarge, not_a_file, read_at_most

MAX_TOML_BYTES = 4 * 1024 * 1024
"""The largest TOML input read (4 MiB): the bundled variants are a few KiB; a larger
file is not read into memory."""


class TomlFileError(ValueError):
    """A path that is not a readable TOML text file; the message is the reason only."""


def read_toml_text(path: Path) -> str:
    """The text of the regular file at `path`, at most `MAX_TOML_BYTES`, UTF-8.

    Raises `TomlFileError` for a folder, a pipe or device, a larger file or bytes that
    are not UTF-8; `OSError` for a path that cannot be looked up or opened."""
    problem = not_a_file(path)
    if problem is not None:
        raise TomlFileError(f"{problem}, not a TOML file")
    try:
        data = read_at_most(path, MAX_TOML_BYTES)
    except FileTooLarge as exc:
        raise TomlFileError(str(exc)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = data[exc.start : exc.start + 1].hex()
        raise TomlFileError(f"not UTF-8 text (byte 0x{byte} at offset {exc.start})") from None


def parse_toml(text: str) -> dict[str, Any]:
    """`tomllib.loads`; nesting too deep to parse raises `tomllib.TOMLDecodeError`."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError("nested too deeply to read") from None


def why_unreadable(error: OSError | TomlFileError) -> str:
    """The reason `read_toml_text` failed, in one line: the system's words for an
    `OSError` ("Too many levels of symbolic links"), else the refusal's own."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)
