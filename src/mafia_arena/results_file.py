"""Reading a results store's ``games.jsonl``: the contract between its writer and readers.

The tournament driver (`experiments.store`) and the web app write the file; the
leaderboard and the driver's resume read it. The reader lives here, below all of them,
so the readers need not import the writer's package (dependencies point one way).

* A crash can leave a truncated last line (a record without its ``\\n``); it is ignored.
* The store is a regular file (`store_exists`): a pipe, a device, a folder or a path the
  system cannot look up is an error naming the file, before anything is opened. A line
  nested too deeply for the JSON parser, holding a number of more digits than Python
  converts, or a ``NaN``/``Infinity`` token (not standard JSON: the writers write lines
  with `record_line`, which refuses a number that is not finite, naming its field), is
  not a JSON record (`json_line`), like any other text that is not JSON.
* Records come back sorted by ``game_index``, one per ``(spec_hash, game_index)`` (the
  first wins; web games are told apart by their ``game_id``), so an interrupted-and-resumed
  run reads exactly like an uninterrupted one. The exception is a void game (``"void":
  true``: decided by infrastructure failures, see `runner.integrity`): a resumed run
  plays it again, and the later record of the same game takes its place.
* A malformed line other than the last is an error naming file and line: silently
  dropping games would bias every number built on them. Malformed means not JSON, not
  a JSON object, a ``game_index`` that is not a whole number in ``0 ..
  MAX_GAME_INDEX - 1`` (or below the spec's number of games, where the reader is told
  it), or a ``void`` that is not ``true``/``false``: ``int(2.5)`` or ``bool("false")``
  would silently turn the line into another game's or another outcome's record.
* So is a record any other value of which has the wrong type (`check_values`): the
  readers take them as they are, so ``"metrics": "oops"`` silently emptied a board's
  metric columns, ``"role": 5`` made a role "5", and a tournament's MLflow tallies
  stopped with a traceback halfway through logging. A key that is absent is left to
  the reader's default (a web game has no ``metrics``), but a value that is there must
  be what the writers write.

Two ways to read, with the same records in the same order: `read_records` returns them
as a list; `StoredRecords` streams them, so a store of any size is read in bounded
memory. It indexes the file once (the offset of each kept line: 9 bytes per tournament
game, in arrays rather than Python objects) and then parses one line at a time, each
time it is iterated. It reads a snapshot: lines appended after it was built are not seen.
"""

from __future__ import annotations

import heapq
import json
import math
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, TypeVar

from mafia_arena.input_files import not_a_file

STORE_NAME = "games.jsonl"
LOGS_NAME = "logs"
MANIFEST_NAME = "manifest.json"
"""A tournament results folder's record of what its games were played with
(`experiments.provenance`); the leaderboard reads its host key fingerprint."""

#: Game indices of a store are below this (ten million games). The reader keeps 9 bytes
#: for every index up to the largest it meets, so one mistyped index (an extra digit or
#: three) must be refused, not allocated: without a bound ``3e10`` asks for 270 GB.
MAX_GAME_INDEX = 10_000_000


#: The keys of a record's card (``cards``: `Agent.card`) that the agent file and its
#: prompt templates decide, so the spec hash covers them; every other key names the
#: build that played (`card_build`).
CARD_DESCRIPTION_KEYS = ("model", "endpoint", "sampling", "prompt_hash")


def card_build(card: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of a card that say which build played, beyond model, endpoint, sampling
    and prompts: an LLM player's ``definition_hash`` (its agent file's settings) and
    ``local_model`` (the bundled server's and weights' versions, the GGUF's sha256), a
    trained policy's file, its sha256, its fallback and the numpy version.

    Why one definition: a board's *Build* column (`leaderboard.table.model_cards`) and
    the build a tournament's resume must match (`experiments.provenance.pool_builds`)
    are the same keys, so what a board would show mixed is what a resume refuses."""
    return {key: value for key, value in card.items() if key not in CARD_DESCRIPTION_KEYS}


class StoreFormatError(ValueError):
    """A line of a ``games.jsonl`` other than the last is not a game record (see the
    module contract); the message names the file, the line and, where one is to blame,
    the key."""


_STORE_LIMIT = "the most games a results store holds"
"""Why a game index must be below `MAX_GAME_INDEX`, as `stored_game_index` says it."""


def stored_game_index(value: Any, limit: int = MAX_GAME_INDEX, why: str = _STORE_LIMIT) -> int:
    """A record's ``game_index`` as an int, -1 for None (a web game has no index).

    Raises `ValueError` (the reason, without the key) unless it is None or a whole
    number in ``0 .. limit - 1``: JSON ``true`` or ``2.5`` would otherwise be read as
    index 1 or 2 and silently replace that game, and a huge one would be allocated.
    `why` says where `limit` comes from (the message gives it in parentheses)."""
    if value is None:
        return -1
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{value!r} is not a whole number")
    if value < 0:
        raise ValueError(f"{value} is negative")
    if value >= limit:
        raise ValueError(f"{value} is not below {limit} ({why})")
    return value


def stored_flag(value: Any) -> bool:
    """A record's true/false value (``void``, a seat's ``won``), False for None (absent).

    Raises `ValueError` (the reason, without the key) for anything else: ``bool("false")``
    is True, so a hand-edited ``"false"`` would flip the outcome it names."""
    if value is None:
        return False
    if not isinstance(value, bool):
        raise ValueError(f"{value!r} is not true or false")
    return value


def stored_metrics(record: Mapping[str, Any], part: str) -> Mapping[str, Any]:
    """A record's ``metrics[part]`` (``"game"``: name -> number or null; ``"per_seat"``:
    seat number -> such an object), {} where ``metrics`` or its `part` is absent or null:
    an absent key is the reader's default (module docstring; a web game's record has no
    ``metrics``). Their types are `check_values`'."""
    metrics = record.get("metrics") or {}
    part_metrics: Mapping[str, Any] = metrics.get(part) or {}
    return part_metrics


#: Record keys whose value is a JSON string or null (absent): names and paths.
_TEXT_KEYS = ("experiment", "spec_hash", "variant", "rules_digest", "winner", "log_path")
#: Seat keys whose value is a JSON string: who sat there and what they played.
_SEAT_TEXT_KEYS = ("agent", "agent_kind", "role", "faction", "side")
#: Seat keys whose value is a whole number of at least 0 or null (absent): counts.
_SEAT_COUNT_KEYS = (
    "decisions",
    "reasks",
    "retries",
    "fallbacks",
    "fallbacks_infrastructure",
    "fallbacks_model",
    "tokens_in",
    "tokens_out",
    "stand_in_decisions",
)


def check_values(record: Mapping[str, Any]) -> None:
    """Raise `ValueError` (``"<key>: <reason>"``) for the first value of `record` whose
    type is not the one its writers (`experiments.records`, `web.storage`) give it.

    Checked, where present (an absent key, or a null where the writers may write one, is
    the reader's default): the names (``experiment``, ``spec_hash``, ``variant``,
    ``rules_digest``, ``winner``, ``log_path``: strings), ``overrides`` (an object),
    ``players`` (a whole number, the number of seats), ``length_days`` (a whole
    number), ``seats`` (an array of objects, each with string
    ``agent``/``agent_kind``/``role``/``faction``/``side``, a distinct whole ``seat``
    number, true/false ``won``/``survived``/``replaced``, whole-number counts, a number
    ``cost``, a string ``stand_in``, an ``extra`` object of the agent's own counters
    mapping names to numbers or null), ``metrics`` (an object whose ``game`` and
    ``per_seat`` entries map names to numbers or null), ``cards`` (an object of objects),
    ``fallback_record`` and ``code`` (objects).

    Why: the readers (the leaderboard, a tournament's summary and MLflow tallies) take
    these values as they are, ``str(5)`` or ``int("7")`` or a default for what they
    cannot convert, so a hand-edited value either crashed one of them with a traceback
    or silently changed a table. The game index and void flag are `stored_game_index`
    and `stored_flag`'s; ``game_index``/``void`` are not checked here."""
    for key in _TEXT_KEYS:
        keyed(key, _text_or_null, record.get(key))
    seats = record.get("seats")
    if seats is not None and not isinstance(seats, list | tuple):
        raise ValueError(f"seats: {shown(seats)} is not an array")
    keyed("players", _players(seats), record.get("players"))
    keyed("length_days", _count_or_null, record.get("length_days"))
    numbers: dict[int, int] = {}
    for index, seat in enumerate(seats or ()):
        _check_seat(index, seat, numbers)
    _check_metrics(record)
    cards = record.get("cards")
    if cards is not None:
        for agent, card in _object("cards", cards).items():
            _object(f"cards: {agent}", card)
    fallbacks = record.get("fallback_record")
    if fallbacks is not None:
        by_kind = _object("fallback_record", fallbacks).get("by_kind")
        if by_kind is not None:
            for kind, n in _object("fallback_record: by_kind", by_kind).items():
                keyed(f"fallback_record: by_kind: {kind}", _count_or_null, n)
    if record.get("code") is not None:
        _object("code", record["code"])
    if record.get("overrides") is not None:
        _object("overrides", record["overrides"])


def _check_seat(index: int, seat: Any, numbers: dict[int, int]) -> None:
    """One entry of ``seats`` (see `check_values`); `numbers` maps the seat numbers
    met so far to their entry, so two entries cannot claim one seat's metrics."""
    where = f"seat #{index}"
    if not isinstance(seat, Mapping):
        raise ValueError(f"{where} is not an object: {shown(seat)}")
    for key in _SEAT_TEXT_KEYS:
        if key in seat:
            keyed(f"{where}: {key}", _text, seat[key])
    if "seat" in seat:
        number = keyed(f"{where}: seat", _count, seat["seat"])
        if number in numbers:
            raise ValueError(f"{where}: seat: {number} is seat #{numbers[number]}'s number too")
        numbers[number] = index
    for key in ("won", "survived", "replaced"):
        keyed(f"{where}: {key}", stored_flag, seat.get(key))
    for key in _SEAT_COUNT_KEYS:
        keyed(f"{where}: {key}", _count_or_null, seat.get(key))
    keyed(f"{where}: cost", _number_or_null, seat.get("cost"))
    keyed(f"{where}: stand_in", _text_or_null, seat.get("stand_in"))
    if seat.get("extra") is not None:
        _check_numbers(f"{where}: extra", seat["extra"])


def _check_metrics(record: Mapping[str, Any]) -> None:
    """``metrics`` (see `check_values`): an object; its ``game`` a name -> number (or
    null) object, its ``per_seat`` a seat -> such object object."""
    if "metrics" not in record:
        return
    metrics = _object("metrics", record["metrics"])
    game = metrics.get("game")
    if game is not None:
        _check_numbers("metrics: game", game)
    per_seat = metrics.get("per_seat")
    if per_seat is not None:
        for seat, values in _object("metrics: per_seat", per_seat).items():
            _check_numbers(f"metrics: per_seat: {seat}", values)


def _check_numbers(key: str, values: Any) -> None:
    for name, value in _object(key, values).items():
        keyed(f"{key}: {name}", _number_or_null, value)


_T = TypeVar("_T")


def keyed(key: str, check: Callable[..., _T], value: Any, *args: Any) -> _T:
    """``check(value, *args)``, its `ValueError` prefixed with `key`: the store's readers
    say which key of which line is wrong (the checks themselves give only the reason)."""
    try:
        return check(value, *args)
    except ValueError as exc:
        raise ValueError(f"{key}: {exc}") from None


def _object(key: str, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{key}: {shown(value)} is not an object")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{shown(value)} is not a string")
    return value


def _text_or_null(value: Any) -> str | None:
    return None if value is None else _text(value)


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{shown(value)} is not a whole number")
    if value < 0:
        raise ValueError(f"{value} is negative")
    return value


def _count_or_null(value: Any) -> int | None:
    return None if value is None else _count(value)


def _number_or_null(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{shown(value)} is not a number or null")
    return float(value)


def _players(seats: Sequence[Any] | None) -> Callable[[Any], int | None]:
    """The check of ``players``: a whole number, the number of `seats` where they are
    given (the setup a side advantage is fitted for is ``variant/players``, with the
    switches set)."""

    def check(value: Any) -> int | None:
        players = _count_or_null(value)
        if players is not None and seats is not None and players != len(seats):
            raise ValueError(f"{players} is not the number of seats ({len(seats)})")
        return players

    return check


def shown(value: Any) -> str:
    """`value` as an error message shows it: its repr, cut short (a hand edit may paste
    a whole record). Shared by the readers of stored records and of game logs."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def store_exists(path: Path) -> bool:
    """Whether there is a store at `path` to read: False when nothing is there.

    Raises `StoreFormatError` naming the file and the reason when what is there cannot
    be a store: a folder, a pipe (opening it waits for a writer), a device
    (``/dev/zero`` never ends a line, so reading it fills the memory), or a path the
    system cannot look up (a symbolic-link loop, no permission)."""
    try:
        problem = not_a_file(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise StoreFormatError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if problem is not None:
        raise StoreFormatError(f"{path}: cannot read: {problem}, not a results store")
    return True


def after_last_newline(handle: IO[bytes], end: int, chunk: int = 1 << 16) -> int:
    """The offset just past the last ``\\n`` before `end` in `handle` (0 when there is
    none), read backwards one chunk at a time: the file is never held, and only its last
    line is read. A writer cuts a store there before appending, so that a line a crash
    cut short (which readers skip while it is last) never runs into the next record."""
    position = end
    while position > 0:
        start = max(0, position - chunk)
        handle.seek(start)
        found = handle.read(position - start).rfind(b"\n")
        if found >= 0:
            return start + found + 1
        position = start
    return 0


def json_line(line: bytes | str) -> Any:
    """`json.loads` of one line of a stored file. Nesting too deep for the parser, an
    integer of more digits than Python converts and the tokens ``NaN``, ``Infinity`` and
    ``-Infinity`` (Python's extension, not JSON: other readers of the file refuse them,
    and no number a writer stores is one, `record_line`) raise `json.JSONDecodeError`,
    as any other text that is not JSON does, so each reader names its file and line for
    them too; bytes that are not UTF-8 raise `UnicodeDecodeError`, as before."""
    try:
        return json.loads(line, parse_constant=_no_constant)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply to read", "", 0) from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise
    except ValueError:  # ``int`` refuses a string of more than 4,300 digits
        raise json.JSONDecodeError("a number of more digits than can be read", "", 0) from None


def _no_constant(token: str) -> Any:
    """`json.loads`'s hook for ``NaN``/``Infinity``/``-Infinity``: refused."""
    raise json.JSONDecodeError(f"{token} is not standard JSON (a number must be finite)", "", 0)


def record_line(
    record: Mapping[str, Any],
    *,
    where: str = "",
    stored: str = "stored results",
    **options: Any,
) -> str:
    """`record` as one line of standard JSON (`json.dumps` with `options`); a number
    that is not finite is a `ValueError` naming its field (``seats[2].cost``), after
    `where` (which record: ``event 12``) when given, and saying that `stored` (the kind
    of file: ``game logs``) are standard JSON.

    Why: Python writes NaN and Infinity as bare tokens no JSON reader but Python's takes,
    and this file's readers refuse them (`json_line`), as do the game log's: a record
    holding one is refused when written, where the mistake is made, rather than stored
    for every later read to fail on."""
    try:
        return json.dumps(record, allow_nan=False, **options)
    except ValueError:
        found = _non_finite(record, "")
        if found is None:
            raise
        field, value = found
        prefix = f"{where}: " if where else ""
        raise ValueError(
            f"{prefix}{field}: {value!r} is not a finite number; {stored} are standard JSON "
            "(no NaN or Infinity)"
        ) from None


def _non_finite(value: Any, where: str) -> tuple[str, float] | None:
    """(field, value) of the first non-finite float in `value` at `where`, or None."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (where or "the record", value)
    if isinstance(value, Mapping):
        items: Iterable[tuple[str, Any]] = (
            (f"{where}.{key}" if where else str(key), item) for key, item in value.items()
        )
    elif isinstance(value, list | tuple):
        items = ((f"{where}[{index}]", item) for index, item in enumerate(value))
    else:
        return None
    for field, item in items:
        found = _non_finite(item, field)
        if found is not None:
            return found
    return None


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """Records of a ``games.jsonl`` (see the module contract); [] if it does not exist."""
    return list(StoredRecords(path, keep=True))


class _Series:
    """The kept line of each game index of one spec hash (tournament games).

    ``offsets[i]`` is the byte offset of game ``i``'s line, -1 when none; ``void[i]`` is
    1 when that line is a void record (a later line of the same game replaces it).
    """

    def __init__(self) -> None:
        self.offsets = array("q")
        self.void = bytearray()

    def keep(self, index: int, offset: int, void: bool) -> None:
        if index >= len(self.offsets):
            grow = index + 1 - len(self.offsets)
            self.offsets.extend([-1] * grow)
            self.void.extend(bytes(grow))
        if self.offsets[index] < 0 or self.void[index]:
            self.offsets[index] = offset
            self.void[index] = void

    def entries(self, spec_hash: str) -> Iterator[tuple[int, str, str, int]]:
        for index, offset in enumerate(self.offsets):
            if offset >= 0:
                yield index, spec_hash, "", offset


class StoredRecords:
    """The records of a ``games.jsonl``, re-readable, one parsed line at a time.

    Iterating yields the records `read_records` returns, in its order, parsing each line
    again (nothing is cached), so it can be iterated any number of times while holding
    only the index. `spec_hash` keeps only the records of that spec. ``len()`` is the
    number of records an iteration yields. `keep` holds the records parsed while
    indexing instead (one parse per line: `read_records`, for stores read whole anyway).
    `games` is ``(spec hash, its number of games)`` when the caller knows the spec: a
    record of that spec with a ``game_index`` not below it is a `StoreFormatError` too.
    `written` is the writer's own check of a record of that spec (the keys it always
    writes, `experiments.records.check_written_keys`), so the writer reading its own
    records back gets file and line for one a hand edit cut short; other readers leave
    absent keys to their defaults.
    """

    def __init__(
        self,
        path: str | Path,
        spec_hash: str | None = None,
        keep: bool = False,
        games: tuple[str, int] | None = None,
        written: Callable[[Mapping[str, Any]], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.spec_hash = spec_hash
        self._games = games
        self._written = written
        self._kept: dict[int, dict[str, Any]] | None = {} if keep else None
        self._series: dict[str, _Series] = {}
        self._others: dict[tuple[str, int, str], tuple[int, bool]] = {}
        self._count = 0
        self._index()

    def _index(self) -> None:
        if not store_exists(self.path):
            return
        with self.path.open("rb") as handle:
            offset = 0
            number = 0
            for line in handle:
                number += 1
                here, offset = offset, offset + len(line)
                if not line.endswith(b"\n"):
                    break  # the truncated last line of a crash
                if not line.strip():
                    continue
                record = self._parse(line, number)
                spec = str(record.get("spec_hash"))
                if self.spec_hash is not None and spec != self.spec_hash:
                    continue
                index, void = self._checked(record, spec, number)
                if self._kept is not None:
                    self._kept[here] = record
                game_id = str(record.get("game_id", ""))
                if index >= 0 and not game_id:
                    self._series.setdefault(spec, _Series()).keep(index, here, void)
                else:
                    key = (spec, index, game_id)
                    seen = self._others.get(key)
                    if seen is None or seen[1]:
                        self._others[key] = (here, void)
        self._count = sum(sum(o >= 0 for o in s.offsets) for s in self._series.values()) + len(
            self._others
        )

    def _parse(self, line: bytes, number: int) -> dict[str, Any]:
        """The line's record; `StoreFormatError` unless it is a JSON object."""
        try:
            record: Any = json_line(line)
        except json.JSONDecodeError as exc:
            raise StoreFormatError(
                f"{self.path}: line {number}: not a JSON record ({exc.msg})"
            ) from exc
        if not isinstance(record, dict):
            raise StoreFormatError(
                f"{self.path}: line {number}: not a JSON record (a JSON {_json_kind(record)}, "
                "not an object)"
            )
        return record

    def _checked(self, record: dict[str, Any], spec: str, number: int) -> tuple[int, bool]:
        """The record's game index (-1: none) and void flag, the keys the index is built
        on; `StoreFormatError` naming line and key when either, or any other value of
        the record (`check_values`), is not what it must be. Checked here, as the line is
        indexed, so every reader of the store (the leaderboard, a tournament's resume,
        summary and MLflow tallies) gets only records whose values have their types."""
        limit, why = MAX_GAME_INDEX, _STORE_LIMIT
        ours = self._games is not None and spec == self._games[0]
        if ours and self._games is not None and self._games[1] < limit:
            limit = self._games[1]
            why = f"the spec's number of games: indices 0..{limit - 1}"
        try:
            index = keyed("game_index", stored_game_index, record.get("game_index"), limit, why)
            void = keyed("void", stored_flag, record.get("void"))
            check_values(record)
            if ours and self._written is not None:
                self._written(record)
        except ValueError as exc:
            raise StoreFormatError(f"{self.path}: line {number}: {exc}") from None
        return index, void

    def __len__(self) -> int:
        return self._count

    def spec_hashes(self) -> set[str]:
        """The spec hashes of the records (``"None"`` for a record without one)."""
        return set(self._series) | {spec for spec, _, _ in self._others}

    def played_indices(self) -> set[int]:
        """The game indices of the records that are not void (web games have none)."""
        out = {
            index
            for series in self._series.values()
            for index, offset in enumerate(series.offsets)
            if offset >= 0 and not series.void[index]
        }
        out.update(
            index for (_, index, _), (_, void) in self._others.items() if index >= 0 and not void
        )
        return out

    def void_count(self) -> int:
        """How many of the records are void."""
        kept = sum(
            bool(series.void[i])
            for series in self._series.values()
            for i, offset in enumerate(series.offsets)
            if offset >= 0
        )
        return kept + sum(void for _, void in self._others.values())

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if not self._count:
            return
        others = sorted((i, s, g, o) for (s, i, g), (o, _) in self._others.items())
        streams = [series.entries(spec) for spec, series in self._series.items()]
        entries = heapq.merge(iter(others), *streams)
        if self._kept is not None:
            for _, _, _, offset in entries:
                yield self._kept[offset]
            return
        with self.path.open("rb") as handle:
            for _, _, _, offset in entries:
                yield self._line_at(handle, offset)

    def _line_at(self, handle: IO[bytes], offset: int) -> dict[str, Any]:
        handle.seek(offset)
        record: dict[str, Any] = json.loads(handle.readline())
        return record


def _json_kind(value: Any) -> str:
    """The JSON name of a parsed value's type (``[1, 2]`` is an array, not a list)."""
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "null"
