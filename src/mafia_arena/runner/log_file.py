"""Read a game log given on the command line, refusing anything else with one message.

`GameLog.load` trusts its input: a file that is not a log fails deep inside with a
`JSONDecodeError`, a `KeyError` or a bare `ValueError`. `read_log` checks the file
first — text, one JSON object a line, a readable header, events that parse, a sidecar
of traces that parses — and raises `LogFileError` naming the file, the line (the key)
and the reason, so `mafia-arena replay notes.txt` says what the file is not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mafia_arena.engine.events import Event
from mafia_arena.runner.log import FORMAT, READABLE, GameLog, traces_path

HEADER_KEYS = ("variant", "overrides", "players", "seed")
"""The header keys a replay needs (`GameLog.loads`)."""


class LogFileError(ValueError):
    """A file given as a game log is not one: names the file, the key and the reason."""

    def __init__(self, source: str, key: str, reason: str) -> None:
        self.source, self.key, self.reason = source, key, reason
        super().__init__(f"{source}: {key}: {reason}")


def read_log(path: Path) -> GameLog:
    """The log stored at `path`, or a `LogFileError` (an `OSError` if it is unreadable)."""
    source = str(path)
    lines = _json_lines(path, what=f"a game log ({FORMAT})")
    if not lines or lines[0][0] != 1:
        raise LogFileError(source, "line 1", f"no header line: not a {FORMAT} file")
    header = lines[0][1]
    if not isinstance(header, dict) or header.get("format") not in READABLE:
        found = header.get("format") if isinstance(header, dict) else None
        shown = f"format {found!r}" if found is not None else "no format key"
        raise LogFileError(source, "line 1", f"not a {FORMAT} file ({shown})")
    for key in HEADER_KEYS:
        if key not in header:
            raise LogFileError(source, f"line 1: {key}", "required header key is missing")
    if not isinstance(header["players"], int) or isinstance(header["players"], bool):
        raise LogFileError(source, "line 1: players", f"not a player count: {header['players']!r}")
    for number, data in lines[1:]:
        try:
            Event.from_json(data)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise LogFileError(
                source, f"line {number}", f"not a game event ({_why(exc)})"
            ) from None
    sidecar = traces_path(path)
    if sidecar.is_file():
        _json_lines(sidecar, what="a decision-trace file")
    return GameLog.load(path)


def _json_lines(path: Path, *, what: str) -> list[tuple[int, Any]]:
    """(line number, parsed object) of each non-blank line; `LogFileError` otherwise."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise LogFileError(str(path), "-", f"not a text file; {what} is JSON lines") from None
    parsed: list[tuple[int, Any]] = []
    for number, line in enumerate(text.split("\n"), 1):  # as `load_traces` splits
        if not line.strip():
            continue
        try:
            parsed.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise LogFileError(
                str(path),
                f"line {number}",
                f"not JSON ({exc.msg}, column {exc.colno}); {what} is one JSON object a line",
            ) from None
    return parsed


def _why(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"missing key {exc.args[0]!r}"
    return " ".join(str(exc).split()) or type(exc).__name__
