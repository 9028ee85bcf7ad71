"""Turning a model's text into one of a fixed list of options.

Contract
--------
* :func:`choice_schema` is the JSON schema of ``{"reason": str, "choice": <one of options>}``
  with ``enum`` exactly the options; :func:`response_format` wraps it in the dialect the
  endpoint understands (OpenAI ``json_schema`` or llama-cpp-python ``json_object`` +
  ``schema``).
* :func:`parse_choice` never raises on model output. It returns a :class:`ParsedChoice`
  whose ``index`` is the chosen option's position, or ``None`` with a human-readable
  ``problem`` that the client feeds back to the model in a corrective re-ask.
* Leniency, in order: a JSON object anywhere in the text (code fences allowed) with a
  ``choice`` (or ``answer``) key; a truncated JSON object's ``"choice": "..."``; the whole
  answer (or its first line) being an option, compared exactly, then case-insensitively,
  then ignoring punctuation and spacing; a bare number as the one option naming it
  (``3`` for ``P3`` or ``bid 3``; ``Player 3`` or ``P3`` for ``P3 (you)`` or
  ``kill P3``), or as a 1-based position
  where no option names a number; finally, exactly one option mentioned in free text:
  as a whole word, or by its seat (``I vote for P4.`` or ``Player 4`` for
  ``P4 (your teammate)``) where exactly one option names that seat. Two options
  mentioned are never guessed between, nor are two JSON objects whose ``choice`` names
  different options (``{"choice": "P2"} ... {"choice": "P5"}``, a model answering
  twice), nor one object whose ``choice`` key is written twice with different options
  (``{"choice": "P2", "choice": "P5"}``, where a JSON reader would keep the last in
  silence): the first answer decides only where no other names another option, and
  the same option written twice is one answer. An
  explicit JSON ``choice`` that matches nothing is *not* rescued by searching the rest
  of the text: the model said something illegal and gets re-asked.
* :func:`parse_move` reads a tool call's arguments on a free-text question that offers
  set moves by code (``#1``, ``#2``, ...): the one code the arguments name exactly, or
  ``None``. Strict like the codes themselves: nothing is guessed from prose.

Why lenient: small local models (SmolLM2-135M) often wrap, quote or paraphrase an
answer; rejecting those would turn most of their turns into fallbacks and measure the
parser rather than the player. Constrained decoding removes most of the need, but not all
endpoints support it.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from mafia_arena.whole_numbers import read_whole_number

__all__ = [
    "ParsedChoice",
    "choice_instruction",
    "choice_schema",
    "correction_message",
    "match_option",
    "parse_choice",
    "parse_move",
    "response_format",
    "validate_options",
]

_CHOICE_KEYS = ("choice", "answer")
_STRIP_CHARS = " \t\r\n\"'`.,;:!?*()[]<>"
_TRUNCATED_CHOICE = re.compile(r'"(?:choice|answer)"\s*:\s*"((?:[^"\\]|\\.)*)', re.IGNORECASE)
_FENCE = re.compile(r"```(?:json)?", re.IGNORECASE)
#: The problem of an answer that names two options (in prose, in two JSON objects, or
#: with its ``choice`` key written twice): re-asked, never guessed between.
MORE_THAN_ONE = "it names more than one option"


@dataclass(frozen=True, slots=True)
class ParsedChoice:
    """Outcome of parsing one answer: an option index, or the problem with the answer."""

    index: int | None
    reason: str = ""
    problem: str | None = None


def validate_options(options: Sequence[str]) -> list[str]:
    """Options must be a non-empty list of distinct, non-blank strings (a caller bug if not)."""
    result = [str(option) for option in options]
    if not result:
        raise ValueError("options must not be empty")
    if any(not option.strip() for option in result):
        raise ValueError("options must not be blank")
    if len(set(result)) != len(result):
        raise ValueError(f"options must be distinct, got {result!r}")
    return result


def choice_schema(options: Sequence[str]) -> dict[str, Any]:
    """JSON schema of the answer object; ``reason`` first, so that a model generating
    in property order reasons before it commits to a choice."""
    return {
        "type": "object",
        "properties": {
            "reason": {"type": "string"},
            "choice": {"type": "string", "enum": list(options)},
        },
        "required": ["reason", "choice"],
        "additionalProperties": False,
    }


def response_format(
    schema: dict[str, Any], schema_name: str, dialect: Literal["json_schema", "json_object"]
) -> dict[str, Any]:
    """The ``response_format`` request field for ``schema`` in the endpoint's dialect."""
    if dialect == "json_object":
        # llama-cpp-python server: compiles "schema" into a grammar; rejects "json_schema".
        # The grammar also caps the reason, which comes first: a small model must not
        # spend its whole token budget reasoning and never reach the choice.
        return {"type": "json_object", "schema": _capped_reason(schema)}
    name = re.sub(r"[^A-Za-z0-9_-]", "_", schema_name)[:64] or "choice"
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}


#: Longest ``reason`` a grammar-constrained (llama.cpp) answer may write.
REASON_MAX_CHARS = 240


def _capped_reason(schema: dict[str, Any]) -> dict[str, Any]:
    reason = schema.get("properties", {}).get("reason")
    if not isinstance(reason, dict) or "maxLength" in reason:
        return schema
    properties = {**schema["properties"], "reason": {**reason, "maxLength": REASON_MAX_CHARS}}
    return {**schema, "properties": properties}


def choice_instruction(options: Sequence[str]) -> str:
    """The answer-format instruction appended to the prompt by ``ChatClient.choose``."""
    return (
        'Answer only with a JSON object {"reason": "...", "choice": "..."} where "reason" '
        'is one short sentence of your reasoning and "choice" is exactly one of '
        f"{json.dumps(list(options))}."
    )


def correction_message(options: Sequence[str], problem: str) -> str:
    """The user message of a corrective re-ask."""
    return f"That answer is not valid: {problem}. {choice_instruction(options)}"


def _normalise(text: str) -> str:
    return re.sub(r"[\W_]+", " ", text.casefold()).strip()


def match_option(value: object, options: Sequence[str]) -> int | None:
    """Index of the option ``value`` denotes, or ``None``. See the module docstring."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        if float(value).is_integer():
            value = str(int(value))
        else:
            return None
    if not isinstance(value, str):
        return None
    text = value.strip()
    stripped = text.strip(_STRIP_CHARS)
    for candidate in (text, stripped):
        if candidate in options:
            return list(options).index(candidate)
    for key in (str.casefold, _normalise):
        wanted = key(stripped)
        if not wanted:
            continue
        hits = [i for i, option in enumerate(options) if key(option) == wanted]
        if len(hits) == 1:
            return hits[0]
    return _by_number(stripped, options)


_SEAT_WORD = re.compile(r"(?:player|seat|p)\s*#?\s*(\d+)", re.IGNORECASE)


def _by_number(text: str, options: Sequence[str]) -> int | None:
    """The option a bare number (``3``) or a seat phrase (``Player 3``) denotes, or None.

    A number is first what the options say it is: the one option that names it (``P3``,
    ``kill P3``, ``bid 3``), none if several do. Only in a list whose options name no
    numbers at all is it a 1-based position: the options are shown as a bulleted list, not
    a numbered one, so among seat labels a ``3`` means seat 3, and reading it as the third
    option would record a vote for another player. ``Player 3`` / ``Seat 3`` is the one
    option naming the seat label ``P3``, and so is ``P3`` itself: the agent decorates a
    target's label (``P3 (you)``, ``P4 (your teammate)``) and a night action names it
    (``kill P3``), and the seat's name, which the whole transcript uses, is a legal
    answer the model must not be charged with as an invalid one.
    """
    seat = _SEAT_WORD.fullmatch(text)
    if seat is not None:
        number = read_whole_number(seat.group(1))
        if number is None:
            return None
        label = re.compile(rf"(?<!\w)P{number}(?!\w)", re.IGNORECASE)
        return _only([i for i, option in enumerate(options) if label.search(option)])
    number = read_whole_number(text)
    if number is None:
        return None
    naming = re.compile(rf"(?<!\d){number}(?!\d)")
    named = [i for i, option in enumerate(options) if naming.search(option)]
    if named or any(character.isdigit() for option in options for character in option):
        return _only(named)
    return number - 1 if 1 <= number <= len(options) else None


def _only(hits: list[int]) -> int | None:
    return hits[0] if len(hits) == 1 else None


#: At most this many ``{`` positions are tried as JSON starts (a reply of thousands of
#: nested braces must not cost quadratic time).
_MAX_JSON_STARTS = 64


class _WrittenObject(dict[str, Any]):
    """A decoded JSON object (a key written twice holds its last value, as ``json``
    gives it) that also keeps every value each key was given, in the order written,
    under the key's case-folded form (``written``)."""

    __slots__ = ("written",)

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.written: dict[str, list[Any]] = {}
        for key, value in pairs:
            self.written.setdefault(key.casefold(), []).append(value)


def _values_given(obj: dict[str, Any], key: str) -> list[Any]:
    """Every value ``obj``'s ``key`` was given, in the order written, the same key in
    another case included (``{"choice": "P2", "Choice": "P5"}``): a key written twice
    is two answers, where ``json`` would keep only the last one in silence."""
    written = getattr(obj, "written", None)
    if isinstance(written, dict) and key.casefold() in written:
        return list(written[key.casefold()])
    return [obj[key]]


def _json_values(text: str) -> list[Any]:
    """Every JSON value that starts at a ``{`` in ``text`` (plus the whole text); each
    object a :class:`_WrittenObject`, so that a key written twice is seen.

    Nesting too deep for the decoder (``RecursionError``) counts as "not JSON here"."""
    decoder = json.JSONDecoder(object_pairs_hook=_WrittenObject)
    values: list[Any] = []
    with contextlib.suppress(ValueError, RecursionError):
        values.append(decoder.decode(text))
    for n, match in enumerate(re.finditer(r"\{", text)):
        if n >= _MAX_JSON_STARTS:
            break
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except (ValueError, RecursionError):
            continue
        values.append(value)
    return values


def _choice_key(obj: dict[str, Any]) -> str | None:
    lowered = {str(key).casefold(): key for key in obj}
    for wanted in _CHOICE_KEYS:
        if wanted in lowered:
            return str(lowered[wanted])
    return None


def _mentioned(text: str, options: Sequence[str]) -> list[int]:
    hits = []
    for i, option in enumerate(options):
        pattern = r"(?<!\w)" + re.escape(option.strip()) + r"(?!\w)"
        if re.search(pattern, text, re.IGNORECASE):
            hits.append(i)
    return hits


#: A seat named in free text: ``P4``, ``Player 4``, ``seat #4`` (a whole word).
_SEAT_IN_TEXT = re.compile(r"(?<!\w)(?:p|player\s*#?\s*|seat\s*#?\s*)([0-9]{1,4})(?!\w)", re.I)


def _seats_mentioned(text: str, options: Sequence[str]) -> list[int]:
    """Options that free ``text`` names by their seat: for each seat named in it, the
    one option whose label is that seat (``P4 (your teammate)`` for ``I vote for
    P4.``); a seat no option or several options name adds nothing.

    Why: the agent decorates labels (``(you)``, ``(your teammate)``) that the model
    does not repeat when it writes in prose, and the seat's name is its answer."""
    hits = []
    for number in {int(match.group(1)) for match in _SEAT_IN_TEXT.finditer(text)}:
        label = re.compile(rf"(?<!\w)P{number}(?!\w)", re.IGNORECASE)
        index = _only([i for i, option in enumerate(options) if label.search(option)])
        if index is not None:
            hits.append(index)
    return hits


def _short_json(value: Any) -> str:
    try:
        return json.dumps(value)[:500]
    except (ValueError, RecursionError, TypeError):
        return ""


def parse_choice(text: str | None, options: Sequence[str]) -> ParsedChoice:
    """Find the chosen option in a model answer. Never raises on model output."""
    raw = (text or "").strip()
    if not raw:
        return ParsedChoice(None, problem="the answer was empty")
    body = _FENCE.sub("", raw).strip()

    first: ParsedChoice | None = None  # the first JSON object's choice, once legal
    for value in _json_values(body):
        if isinstance(value, dict):
            key = _choice_key(value)
            if key is None:
                continue
            reason = value.get("reason", "")
            reason = reason if isinstance(reason, str) else _short_json(reason)
            for given in _values_given(value, key):  # a key written twice: two answers
                index = match_option(given, options)
                if first is not None:  # a later answer: it may only agree
                    if index is not None and index != first.index:
                        return ParsedChoice(None, problem=MORE_THAN_ONE)
                    continue
                if index is None:
                    return ParsedChoice(
                        None,
                        reason=reason,
                        problem=f"{_short_json(given)[:80]} is not one of the options",
                    )
                first = ParsedChoice(index, reason=reason)
        elif first is None and isinstance(value, str | int | float) and not isinstance(value, bool):
            index = match_option(value, options)
            if index is not None:
                return ParsedChoice(index)
    if first is not None:
        return first

    truncated = _TRUNCATED_CHOICE.search(body)
    if truncated:
        value = truncated.group(1)
        index = match_option(value, options)
        if index is None:
            return ParsedChoice(None, problem=f"{json.dumps(value)} is not one of the options")
        return ParsedChoice(index)

    first_line = body.splitlines()[0] if body else ""
    for candidate in (body, first_line):
        index = match_option(candidate, options)
        if index is not None:
            return ParsedChoice(index, reason=body if candidate != body else "")

    hits = sorted(set(_mentioned(body, options)) | set(_seats_mentioned(body, options)))
    if len(hits) == 1:
        return ParsedChoice(hits[0], reason=body)
    if hits:
        return ParsedChoice(None, problem=MORE_THAN_ONE)
    return ParsedChoice(None, problem="it does not name any of the options")


def parse_move(arguments: str, moves: Sequence[str]) -> str | None:
    """The one of ``moves`` (the set moves' codes a free-text question offers) that a
    tool call's ``arguments`` name, or None.

    The arguments name a code when, once surrounding whitespace is removed, they are
    the code itself, a JSON string that is the code, or a JSON object one of whose
    top-level values is that string (``{"move": "#2"}``, ``{"code": "#2", "reason":
    "..."}``). A code inside other words (``"I pick #2"``), a bare number, or two
    different codes (a key written twice with two codes among them) name nothing. Why
    strict: a set move counts as the model's decision, so it is taken only where the
    model named exactly that code, as a reply in text must (`agents.llm_alternatives`);
    the same arguments always give the same move. Never raises on model output."""
    offered = {move.strip() for move in moves if move.strip()}
    if not offered:
        return None
    raw = arguments.strip()
    candidates: list[object] = [raw]
    value: object = None
    with contextlib.suppress(ValueError, RecursionError):
        value = json.JSONDecoder(object_pairs_hook=_WrittenObject).decode(raw)
    if isinstance(value, _WrittenObject):  # every value of a key written twice
        candidates.extend(given for values in value.written.values() for given in values)
    else:
        candidates.append(value)
    named = {c.strip() for c in candidates if isinstance(c, str) and c.strip() in offered}
    return named.pop() if len(named) == 1 else None
