"""Reading a results store's ``games.jsonl``: the contract between its writer and readers.

The tournament driver (`experiments.store`) and the web app write the file; the
leaderboard and the driver's resume read it. The reader lives here, below all of them,
so the readers need not import the writer's package (dependencies point one way).

* A crash can leave a truncated last line (a record without its ``\\n``); it is ignored.
* Records come back sorted by ``game_index``, one per ``(spec_hash, game_index)`` (the
  first wins; web games are told apart by their ``game_id``), so an interrupted-and-resumed
  run reads exactly like an uninterrupted one. The exception is a void game (``"void":
  true``: decided by infrastructure failures, see `runner.integrity`): a resumed run
  plays it again, and the later record of the same game takes its place.
* A malformed line other than the last is an error naming file and line: silently
  dropping games would bias every number built on them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

STORE_NAME = "games.jsonl"
LOGS_NAME = "logs"


class StoreFormatError(ValueError):
    """A line of a ``games.jsonl`` other than the last is not a JSON record."""


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """Records of a ``games.jsonl`` (see the module contract); [] if it does not exist."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    lines = data.split(b"\n")
    complete = lines[:-1]  # the last piece is b"" or an unterminated (truncated) line
    seen: dict[tuple[str, int, str], dict[str, Any]] = {}
    for number, line in enumerate(complete, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise StoreFormatError(f"{path}:{number}: not a JSON record ({exc.msg})") from exc
        key = _identity(record)
        if key in seen:
            if seen[key].get("void"):
                seen[key] = record
            continue
        seen[key] = record
    records = list(seen.values())
    records.sort(key=lambda r: (_index(r), str(r.get("spec_hash")), str(r.get("game_id", ""))))
    return records


def _index(record: dict[str, Any]) -> int:
    index = record.get("game_index")
    return -1 if index is None else int(index)


def _identity(record: dict[str, Any]) -> tuple[str, int, str]:
    """A tournament game is (spec_hash, game_index); a web game has its own game_id."""
    return (str(record.get("spec_hash")), _index(record), str(record.get("game_id", "")))
