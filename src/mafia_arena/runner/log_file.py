"""Every check a stored game log and its decision-trace sidecar pass before they are read.

Contract
--------
A log file is read only through the functions here: `GameLog.load` and `GameLog.loads`
(`runner.log`) call `read_text` and `parse_log`, `load_traces` calls `read_text` and
`parse_traces`, and `read_log` (what ``mafia-arena replay`` reads) adds `check_playable`.
Anything that is not a sound log raises `LogFileError` (a `ValueError`) naming the file,
the line and key, and the reason, which the command line prints as one paragraph with
exit code 2. A log that passes is well formed; whether its decisions replay to its
events is the replay's question (`runner.log.replay_or_why`, `replay_differs`: exit 1).

What is checked, and why:

* The file: a regular file (a directory, a pipe that never ends or a device such as
  ``/dev/zero`` would hang or fill the memory), at most `MAX_FILE_BYTES` (read with a
  bound, not trusted from its size), UTF-8 text (the line of the first bad byte is
  named), and a path that can be read at all (``OSError`` becomes "cannot read").
* Each non-blank line (split at ``\\n`` only, as the writers join them: a U+2028 or NEL
  inside a string is text, not a line break) is one JSON value; nesting too deep for
  the parser, integers too long to convert and the tokens ``NaN``, ``Infinity`` and
  ``-Infinity`` (not standard JSON; the writers refuse to store them) are named like
  any other bad JSON, instead of a `RecursionError` or a bare `ValueError` deep inside
  `json`.
* The header (line 1): an object of a `READABLE` format with the keys a replay needs,
  each of its type: ``variant`` a name, ``overrides`` an object with string keys,
  ``players`` a whole number in 1..`MAX_PLAYERS` (readers allocate per seat, so a
  count of a billion must not reach them), ``seed`` a whole number (the engine seeds
  with its text, so ``"3"`` or ``3.0`` would silently play another or the same game),
  ``seating`` a list of one agent name per seat (or empty), ``meta`` an object whose
  ``code``, ``variant_digest``, ``variant_file``, ``agent_kinds`` and ``agent_stats``
  have the types their readers use.
* Each event: an object with ``seq`` numbering the events 0, 1, 2, ... in order (a
  duplicated, dropped or moved line is named, not replayed as a different game),
  ``day`` a whole number >= 0, ``phase`` a non-empty name, a known ``kind``, a
  ``payload`` object whose fields have the types the catalogue declares and whose
  ``seat`` is a seat of the game, and a ``visibility`` of a known scope whose seats
  are seats of the game. The ``setup`` event must agree with the header's variant and
  player count. A decision record's payload is not checked here: resubmitting it is
  the check (`replay_or_why` names a decision the game refuses, and says the log
  differs).
* Each trace (sidecar): an object whose keys that readers use have their types
  (``seat``, ``seq``, ``day``, token and retry counts whole numbers, ``latency_s`` a
  finite number, ``kind`` and the texts strings, ``answers``, ``options`` and
  ``dropped`` lists of strings).
* `check_playable` (the replay command only): the variant loads with the header's
  overrides for its player count; the variant's own error is quoted after the log's
  file, line and key. The variant is read as a replay reads it
  (`runner.log.played_variant`): the file given with ``--variant``, else the file the
  log records (``meta.variant_file``, a researcher's own variant), else the bundled
  variant of the header's name; a file that is not there says to give it with
  ``--variant``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mafia_arena.engine.catalogue import KINDS, DecisionRecord, Setup
from mafia_arena.engine.events import Event
from mafia_arena.input_files import FileTooLarge, not_a_file, read_at_most
from mafia_arena.results_file import json_line
from mafia_arena.results_file import shown as _shown
from mafia_arena.rules.errors import NoSuchVariant, names_a_file
from mafia_arena.runner.log import FORMAT, READABLE

if TYPE_CHECKING:
    from mafia_arena.runner.log import GameLog

HEADER_KEYS = ("variant", "overrides", "players", "seed")
"""The header keys a replay needs (`GameLog.loads`)."""

MAX_FILE_BYTES = 256 * 1024 * 1024
"""The largest log or trace file read (256 MiB): a long game of LLM players with full
prompts in its traces stays far below; a larger file is not read into memory."""

MAX_PLAYERS = 1000
"""The largest player count a log may name (bundled variants seat at most 40)."""

SCOPES = ("public", "seats", "host")
"""The visibility scopes an event may have (`engine.events.Visibility`)."""

_TRACE_INTS = ("seat", "seq", "day", "tokens_in", "tokens_out", "requests", "reasks", "retries")
_TRACE_TEXTS = ("kind", "question", "reasoning", "reason", "speech", "choice", "fallback")
_TRACE_LISTS = ("answers", "options", "dropped")


class LogFileError(ValueError):
    """A file given as a game log is not one: names the file, the key and the reason."""

    def __init__(self, source: str, key: str, reason: str) -> None:
        self.source, self.key, self.reason = source, key, reason
        super().__init__(f"{source}: {key}: {reason}" if key else f"{source}: {reason}")


def read_log(path: Path, variant_file: Path | None = None) -> GameLog:
    """The log stored at `path`, checked to be well formed and playable here (the
    module docstring) with the rules of `variant_file` when given, or a `LogFileError`."""
    from mafia_arena.runner.log import GameLog

    log = GameLog.load(path)
    check_playable(log, str(path), variant_file)
    return log


def read_text(path: Path, *, what: str) -> str:
    """The text of the file at `path` (`what` it should be names it in errors).

    The path is looked at before it is opened: opening a pipe waits for a writer, so
    only a regular file is opened, and at most `MAX_FILE_BYTES` + 1 bytes are read."""
    source = str(path)
    try:
        problem = not_a_file(path)
        if problem is not None:
            raise LogFileError(source, "", f"cannot read: {problem}, not {what}")
        data = read_at_most(path, MAX_FILE_BYTES)
    except OSError as exc:
        raise LogFileError(source, "", f"cannot read: {exc.strerror or exc}") from None
    except FileTooLarge as exc:
        raise LogFileError(source, "", f"{exc}: too large for {what}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise LogFileError(
            source,
            f"line {line}",
            f"not a text file (byte 0x{data[exc.start]:02x} at column {column} is not "
            f"UTF-8); {what} is JSON lines",
        ) from None


def json_lines(text: str, source: str, *, what: str) -> list[tuple[int, Any]]:
    """(line number, parsed value) of each non-blank line, split at ``\\n`` only.

    Each line is read as the results store reads its own (`results_file.json_line`):
    ``NaN``, ``Infinity`` and ``-Infinity`` are refused (the writers never store them,
    `GameLog.to_jsonl`, and other JSON readers of the file would fail on them), like
    nesting too deep and integers too long, with the file and line named."""
    parsed: list[tuple[int, Any]] = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            parsed.append((number, json_line(line)))
        except json.JSONDecodeError as exc:
            # `json_line`'s own refusals (NaN, nesting, long integers) have no position
            column = f", column {exc.colno}" if exc.doc else ""
            raise LogFileError(
                source,
                f"line {number}",
                f"not JSON ({exc.msg}{column}); {what} is one JSON object a line",
            ) from None
    return parsed


def parse_log(text: str, source: str) -> tuple[dict[str, Any], list[Event]]:
    """The checked header and events of a log's text (the module docstring)."""
    lines = json_lines(text, source, what=f"a game log ({FORMAT})")
    if not lines or lines[0][0] != 1:
        raise LogFileError(source, "line 1", f"no header line: not a {FORMAT} file")
    header = lines[0][1]
    check_header(header, source)
    players = header["players"]
    events: list[Event] = []
    for number, data in lines[1:]:
        events.append(check_event(data, len(events), players, source, number))
    for event in events:
        fact = event.fact
        if isinstance(fact, Setup) and (fact.players, fact.variant) != (players, header["variant"]):
            raise LogFileError(
                source,
                "line 1",
                f"the header names {header['variant']!r} for {players} players, the setup "
                f"event (seq {event.seq}) {fact.variant!r} for {fact.players}",
            )
    return header, events


def check_header(header: Any, source: str) -> None:
    """`LogFileError` unless `header` is a readable log header (the module docstring)."""
    if not isinstance(header, dict) or header.get("format") not in READABLE:
        found = header.get("format") if isinstance(header, dict) else None
        shown = f"format {found!r}" if found is not None else "no format key"
        raise LogFileError(source, "line 1", f"not a {FORMAT} file ({shown})")
    for key in HEADER_KEYS:
        if key not in header:
            raise LogFileError(source, f"line 1: {key}", "required header key is missing")

    def bad(key: str, reason: str) -> LogFileError:
        return LogFileError(source, f"line 1: {key}", reason)

    variant = header["variant"]
    if not isinstance(variant, str) or not variant.strip():
        raise bad("variant", f"not a variant name: {_shown(variant)}")
    overrides = header["overrides"]
    if not isinstance(overrides, dict):
        raise bad("overrides", f"not an object of switches: {_shown(overrides)}")
    players = header["players"]
    if not _is_int(players):
        raise bad("players", f"not a player count: {_shown(players)}")
    if not 1 <= players <= MAX_PLAYERS:
        raise bad("players", f"{players} players is outside 1..{MAX_PLAYERS}")
    if not _is_int(header["seed"]):
        raise bad("seed", f"not a whole-number seed: {_shown(header['seed'])}")
    seating = header.get("seating", [])
    if not isinstance(seating, list) or not all(isinstance(a, str) for a in seating):
        raise bad("seating", f"not a list of agent names: {_shown(seating)}")
    if seating and len(seating) != players:
        raise bad("seating", f"{len(seating)} agents for {players} players")
    meta = header.get("meta", {})
    if not isinstance(meta, dict):
        raise bad("meta", f"not an object: {_shown(meta)}")
    code = meta.get("code", {})
    if not isinstance(code, dict) or not all(isinstance(v, str | None) for v in code.values()):
        raise bad("meta.code", f"not an object of names: {_shown(code)}")
    digest = meta.get("variant_digest", "")
    if not isinstance(digest, str):
        raise bad("meta.variant_digest", f"not a content digest: {_shown(digest)}")
    own_file = meta.get("variant_file", "")
    if not isinstance(own_file, str):
        raise bad("meta.variant_file", f"not a file path: {_shown(own_file)}")
    kinds = meta.get("agent_kinds", [])
    if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
        raise bad("meta.agent_kinds", f"not a list of names: {_shown(kinds)}")
    stats = meta.get("agent_stats", [])
    if not isinstance(stats, list) or not all(isinstance(s, dict) for s in stats):
        raise bad("meta.agent_stats", f"not a list of objects: {_shown(stats)}")
    for key, found in (("agent_kinds", kinds), ("agent_stats", stats)):
        if found and len(found) != players:
            raise bad(f"meta.{key}", f"{len(found)} entries for {players} players")


def check_event(data: Any, seq: int, players: int, source: str, number: int) -> Event:
    """The event `data` (the `seq`-th of its log, on line `number`), checked (the module
    docstring), or a `LogFileError`."""

    def bad(key: str, reason: str) -> LogFileError:
        return LogFileError(source, f"line {number}{': ' + key if key else ''}", reason)

    if not isinstance(data, dict):
        raise bad("", f"not a game event (not an object: {_shown(data)})")
    for key in ("seq", "kind", "day", "phase", "payload", "visibility"):
        if key not in data:
            raise bad("", f"not a game event (missing key {key!r})")
    if not _is_int(data["seq"]) or data["seq"] != seq:
        raise bad(
            "seq",
            f"{_shown(data['seq'])} where {seq} was due: events are numbered 0, 1, 2, ... "
            "in order (a line duplicated, dropped or moved)",
        )
    if not _is_int(data["day"]) or data["day"] < 0:
        raise bad("day", f"not a day number (a whole number >= 0): {_shown(data['day'])}")
    if not isinstance(data["phase"], str) or not data["phase"]:
        raise bad("phase", f"not a phase name: {_shown(data['phase'])}")
    kind = data["kind"]
    if not isinstance(kind, str) or kind not in KINDS:
        raise bad("kind", f"unknown event kind {_shown(kind)}")
    if not isinstance(data["payload"], dict):
        raise bad("payload", f"not an object: {_shown(data['payload'])}")
    _check_visibility(data["visibility"], players, bad)
    try:
        event = Event.from_json(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise bad("", f"not a game event ({_why(exc)})") from None
    fact = event.fact
    if not isinstance(fact, DecisionRecord):  # a decision is checked by resubmitting it
        for spec in fields(fact):  # type: ignore[arg-type]  # every fact is a dataclass
            value = getattr(fact, spec.name)
            if not _fits(value, str(spec.type)):
                raise bad(f"payload.{spec.name}", f"expected {spec.type!s}, found {_shown(value)}")
            if spec.name == "seat" and value is not None and not 0 <= value < players:
                raise bad("payload.seat", f"seat {value} is not a seat of {players} players")
    return event


def _check_visibility(data: Any, players: int, bad: Callable[[str, str], LogFileError]) -> None:
    """A stored visibility, checked: a known scope, seats of the game, a channel name."""
    if not isinstance(data, dict):
        raise bad("visibility", f"not an object: {_shown(data)}")
    scope = data.get("scope")
    if scope not in SCOPES:
        raise bad("visibility.scope", f"{_shown(scope)} is not one of {', '.join(SCOPES)}")
    seats = data.get("seats", [])
    if not isinstance(seats, list) or not all(_is_int(s) and 0 <= s < players for s in seats):
        raise bad("visibility.seats", f"not a list of seats of {players} players: {_shown(seats)}")
    channel = data.get("channel")
    if channel is not None and not isinstance(channel, str):
        raise bad("visibility.channel", f"not a channel name: {_shown(channel)}")


def parse_traces(text: str, source: str) -> list[dict[str, Any]]:
    """The checked records of a decision-trace sidecar's text (the module docstring)."""
    records: list[dict[str, Any]] = []
    for number, record in json_lines(text, source, what="a decision-trace file"):
        if not isinstance(record, dict):
            raise LogFileError(
                source, f"line {number}", f"not a decision trace (not an object: {_shown(record)})"
            )
        records.append(check_trace(record, source, number))
    return records


def check_trace(record: dict[str, Any], source: str, number: int) -> dict[str, Any]:
    """`record` (line `number` of a sidecar) if the keys its readers use have their
    types (the module docstring), else a `LogFileError`."""

    def bad(key: str, reason: str, value: Any) -> LogFileError:
        return LogFileError(source, f"line {number}: {key}", f"{reason}: {_shown(value)}")

    for key in _TRACE_INTS:
        if key in record and not _is_int(record[key]):
            raise bad(key, "not a whole number", record[key])
    if "seat" in record and record["seat"] < 0:
        raise bad("seat", "not a seat", record["seat"])
    latency = record.get("latency_s", 0.0)
    if not _is_number(latency) or not math.isfinite(latency):
        raise bad("latency_s", "not a finite number of seconds", latency)
    for key in _TRACE_TEXTS:
        if record.get(key) is not None and not isinstance(record[key], str):
            raise bad(key, "not a text", record[key])
    for key in _TRACE_LISTS:
        found = record.get(key)
        if found is not None and (
            not isinstance(found, list) or not all(isinstance(t, str) for t in found)
        ):
            raise bad(key, "not a list of texts", found)
    return record


def check_playable(log: GameLog, source: str, variant_file: Path | None = None) -> None:
    """`LogFileError` unless the log's variant loads with its overrides for its player
    count (what a replay builds first), quoting the variant's own error. The variant is
    read where a replay reads it (`runner.log.variant_source`): `variant_file` when
    given, else the file the log records, else the bundled variant of its name.

    A variant that is no file here is worded for the replay command: a log of a
    researcher's own variant file names that file (``meta.variant_file``) or only its
    ``name`` (a log written before the field), and either way the remedy is to give the
    file with ``--variant``."""
    from mafia_arena.engine.game import Game
    from mafia_arena.rules import VariantError, load_variant
    from mafia_arena.runner.log import variant_source

    chosen = variant_source(log, variant_file)
    named = (
        "--variant"
        if variant_file is not None
        else "line 1: meta.variant_file"
        if isinstance(chosen, Path)
        else None
    )
    for key, overrides in (("variant", None), ("overrides", log.overrides)):
        try:
            variant = load_variant(chosen, overrides)
        except NoSuchVariant as exc:
            raise LogFileError(source, named or "line 1: variant", _no_file(log, exc)) from None
        except (VariantError, ValueError, TypeError, OSError) as exc:
            where = named if named and key == "variant" else f"line 1: {key}"
            raise LogFileError(
                source, where, f"the variant does not load: {_one_line(exc)}"
            ) from None
    try:
        Game(variant, log.players, log.seed)
    except (VariantError, ValueError, TypeError) as exc:
        raise LogFileError(
            source, "line 1: players", f"the game cannot be dealt: {_one_line(exc)}"
        ) from None


def _no_file(log: GameLog, error: NoSuchVariant) -> str:
    """Why a log's variant is not there, and how to replay it anyway: give the file that
    played it (with its content digest, when the log records one)."""
    digest = log.meta.get("variant_digest")
    played = f" (content digest {digest})" if digest else ""
    if names_a_file(error.asked):
        missing = f"no such variant file {error.asked}"
    else:
        missing = f"no variant {log.variant!r} is bundled (looked for {error.source})"
    return (
        f"the variant does not load: {missing}; a game played from a variant file "
        f"replays with that file{played}: mafia-arena replay LOG --variant FILE"
    )


def _fits(value: Any, annotation: str) -> bool:
    """Whether a fact's field value has the type its annotation names (the forms the
    catalogue uses; any other form is not checked here)."""
    if annotation.endswith(" | None"):
        return value is None or _fits(value, annotation.removesuffix(" | None"))
    if annotation == "int":
        return _is_int(value)
    if annotation == "str":
        return isinstance(value, str)
    if annotation == "bool":
        return isinstance(value, bool)
    if annotation.startswith("tuple[") and annotation.endswith(", ...]"):
        item = annotation[len("tuple[") : -len(", ...]")]
        if item not in ("int", "str"):
            return True
        return isinstance(value, tuple) and all(_fits(v, item) for v in value)
    if annotation.startswith("Mapping[") and annotation.endswith("]"):
        key, _, item = annotation[len("Mapping[") : -1].partition(", ")
        return isinstance(value, Mapping) and all(
            _fits(k, key) and _fits(v, item) for k, v in value.items()
        )
    return True


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _why(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"missing key {exc.args[0]!r}"
    return _one_line(exc)


__all__ = [
    "HEADER_KEYS",
    "MAX_FILE_BYTES",
    "MAX_PLAYERS",
    "LogFileError",
    "check_event",
    "check_header",
    "check_playable",
    "check_trace",
    "json_lines",
    "parse_log",
    "parse_traces",
    "read_log",
    "read_text",
]
