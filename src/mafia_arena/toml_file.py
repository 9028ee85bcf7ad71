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

Every reader of such a file words its refusals ``FILE: KEY: REASON`` (``-`` for the file
as a whole): `refusal` says why a file could not be read or parsed,
`validation_problems` turns pydantic's findings into those keys and reasons,
`joined_problems` puts several in one message, `unknown_key` refuses a key the file
may not have and lists those it may, `toml_spelling` writes a refused value as the file
wrote it, `wrong_type` says a value is of the wrong type (``not an integer: got
true``), and `file_kind` tells which of the project's files a table is, for a file
given where another kind was wanted. One wording for all of them, so one who has fixed
a variant file reads an agent file's or a spec's errors alike.
"""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mafia_arena.input_files import FileTooLarge, not_a_file, read_at_most

if TYPE_CHECKING:
    from pydantic import ValidationError

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


def refusal(error: OSError | TomlFileError | tomllib.TOMLDecodeError, what: str = "file") -> str:
    """Why `read_toml_text` and `parse_toml` refused a file, in every reader's words:
    ``cannot read the file: REASON`` (`why_unreadable`; `what` names the file, ``spec``
    for a spec) or ``not valid TOML: REASON`` (the parser's words, with line and
    column). The caller puts it after ``FILE: -:``: it is the file as a whole.

    Why one place: the readers of variant files, specs and agent files say these alike,
    and a wording changed in one of them would otherwise drift from the others."""
    if isinstance(error, tomllib.TOMLDecodeError):
        return f"not valid TOML: {error}"
    return f"cannot read the {what}: {why_unreadable(error)}"


def toml_spelling(value: Any) -> str:
    """A value as a TOML file writes it: ``true``, ``"yes"``, ``96.0``, ``inf``, ``nan``."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if value != value else ("inf" if value > 0 else "-inf")
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def wrong_type(wanted: str, value: Any) -> str:
    """The reason a value of the wrong TOML type is refused, as every reader words it:
    ``not an integer: got true`` (`wanted`: ``an integer``, ``a number``, ``text``,
    ``true or false``, ``an array``, ``a table``; the value as the file wrote it,
    `toml_spelling`).

    Why: Python's names for the types (``bool``, ``str``, ``dict``) and spelling of the
    value (``True``, ``'5'``) are not what the file says; one wording lets one who fixed
    a variant file read a training spec's errors alike."""
    return f"not {wanted}: got {toml_spelling(value)}"


UNKNOWN_KEY = "unknown key (typo?)"
"""The reason every reader gives for a key its file does not have (`unknown_key`)."""


def unknown_key(whose: str, known: Collection[str]) -> str:
    """`UNKNOWN_KEY` followed by the keys there are, for a reader that lists them:
    ``unknown key (typo?); a training spec's [train] keys: batch_size, ...`` (`whose`:
    ``a training spec's [train]``, ``an rl agent file's``).

    Why one wording: an unknown key read "unknown key (typo?)" in an experiment spec
    and an agent file, "unknown key; ..." at a training spec's top level and
    "unknown; known keys: ..." in its ``[train]`` table; one who misspelt a key reads
    the same words in every file, and the list names the key meant."""
    return f"{UNKNOWN_KEY}; {whose} keys: {', '.join(sorted(known))}"


def validation_problems(
    error: ValidationError, branches: Collection[str] = ()
) -> list[tuple[str, str]]:
    """(dotted key, reason) for each problem pydantic found in a file's table.

    An unknown key is "unknown key (typo?)", a missing one "required key is missing", a
    validator's own words lose pydantic's "Value error, " and a wrong type or value says
    what the file wrote (", got true"). `branches` are the names pydantic puts in a
    location for the member of a union it tried (``int``, ``list[int]``): no key of the
    file, so left out. The file as a whole is ``-``."""
    problems = []
    for item in error.errors():
        key = ".".join(str(part) for part in item["loc"] if str(part) not in branches) or "-"
        reason = str(item["msg"])
        kind = item["type"]
        if kind == "extra_forbidden":
            reason = UNKNOWN_KEY
        elif kind == "missing":
            reason = "required key is missing"
        elif kind == "value_error":
            reason = reason.removeprefix("Value error, ")
        elif kind.endswith("_type") or kind in ("literal_error", "finite_number"):
            reason = f"{reason}, got {toml_spelling(item.get('input'))}"
        problems.append((key, reason))
    return problems


def joined_problems(source: str, problems: list[tuple[str, str]]) -> tuple[str, str]:
    """The first problem's key, and its reason followed by each other problem on a line
    of its own (``SOURCE: KEY: REASON``): the message of an error whose first line is
    ``SOURCE: KEY: REASON`` and that hides none of the others."""
    key, reason = problems[0]
    more = "".join(f"\n{source}: {k}: {r}" for k, r in problems[1:])
    return key, reason + more


VARIANT_FILE_MARKERS = frozenset({"composition", "factions", "rules", "roles", "min_players"})
"""Top-level keys only a variant file has (`rules.spec.Variant`): they mark a table as
one, not the keys a variant file may have."""
AGENT_FILE_MARKERS = frozenset({"kind", "backend", "model", "base_url", "policy", "persona"})
"""Top-level keys only an agent file has (`llm.definition`, `agents.policy`): they mark a
table as one, not the keys an agent file may have (`agents.policy.RL_AGENT_KEYS`)."""


def file_kind(data: dict[str, Any]) -> str | None:
    """Which of the project's TOML files a parsed table looks like: ``"experiment
    spec"`` (it has ``variants``), ``"variant file"``, ``"training spec"`` (a ``train``
    table), ``"agent file"``; None for none of them.

    Why: a file given where another kind was wanted fails validation with a dozen
    missing and unknown keys, none of which says the file is simply the wrong kind; each
    reader says that in one line instead."""
    keys = data.keys()
    if "variants" in keys:
        return "experiment spec"
    if keys & VARIANT_FILE_MARKERS:
        return "variant file"
    if isinstance(data.get("train"), dict):
        return "training spec"
    if keys & AGENT_FILE_MARKERS:
        return "agent file"
    return None
