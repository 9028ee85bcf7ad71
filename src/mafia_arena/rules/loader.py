"""Load `envs/<name>.toml`, apply switches, validate, and return a `Variant`.

Switches: every key of the file's ``[params]`` table may be overridden (``--set
mafia=3``); any other value may be overridden by its dotted path (``--set
rules.max_rounds=30``). Strings of the form ``"${name}"`` anywhere in the file are
replaced by the parameter's value, with its type, before validation; ``"!${name}"``
is the negation of a true/false switch.
"""

from __future__ import annotations

import copy
import errno
import hashlib
import json
import math
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mafia_arena.rules import vocabulary
from mafia_arena.rules.composition import numeric_params
from mafia_arena.rules.errors import NoSuchVariant, VariantError
from mafia_arena.rules.expressions import ExpressionError, evaluate
from mafia_arena.rules.params import (
    RoleTraits,
    day_params_model,
    night_params_model,
    trait_roles,
)
from mafia_arena.rules.spec import Variant
from mafia_arena.toml_file import (
    TomlFileError,
    parse_toml,
    read_toml_text,
    refusal,
    toml_spelling,
)
from mafia_arena.whole_numbers import read_whole_number

NO_SUCH_VARIANT = "no such variant file"
"""The reason `load_variant` gives for a name or path that is no variant file."""

_PARAM = re.compile(r"^(!?)\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")


def envs_dir() -> Path:
    """The folder of bundled variants.

    An installed wheel carries them in the package (`mafia_arena/envs/`, copied there by
    the build, see setup.py); a source checkout or an editable install reads the
    repository's top-level `envs/`, the copy that is edited.
    """
    here = Path(__file__).resolve()
    packaged = here.parents[1] / "envs"
    if (packaged / "simple.toml").exists():
        return packaged
    for parent in here.parents:
        candidate = parent / "envs"
        if candidate.is_dir() and (candidate / "simple.toml").exists():
            return candidate
    raise FileNotFoundError("envs/ folder with the bundled variants not found")


def variant_path(name_or_path: str | Path) -> Path:
    """A variant name (``classic``) or a path to a TOML file. An empty name is a name
    (no variant has it), not the working folder that ``Path("")`` stands for."""
    path = Path(name_or_path)
    if path.suffix == ".toml" or (str(name_or_path) and _exists(path)):
        return path
    return envs_dir() / f"{name_or_path}.toml"


def _exists(path: Path) -> bool:
    """`Path.exists`, False for a name the system cannot look up (longer than it allows),
    which would otherwise raise `OSError` before "no such variant" could be said."""
    try:
        return path.exists()
    except OSError:
        return False


def custom_file(variant: Variant) -> str | None:
    """The absolute path of the file `variant` was read from, when that file is not the
    bundled file of the variant's name (``envs/<name>.toml``); None for a bundled
    variant and for one built in memory.

    Why: a game log names its variant by the file's ``name``, and a replay loads that
    name from `envs_dir`. A researcher's own file (a copy of ``standard.toml`` with other
    counts, or a new name) is not there, so its log records this path as well
    (``meta["variant_file"]``, `runner.log.GameLog.from_game`) for the replay to read
    the rules that played it; bundled variants' logs stay as they were."""
    if not variant.digest:
        return None
    path = Path(variant.origin).resolve()
    try:
        bundled = (envs_dir() / f"{variant.name}.toml").resolve()
    except FileNotFoundError:  # no bundled variants at all: every file is the user's
        return str(path)
    return None if path == bundled else str(path)


DESCRIPTIVE_FIELDS = frozenset({"name", "title", "description", "source"})
"""`Variant` fields that name or describe the rules without being part of them."""


def rules_content(variant: Variant) -> dict[str, Any]:
    """The rules a game of `variant` is played by: its fields with the switches applied,
    less `DESCRIPTIVE_FIELDS` (the file it was read from is no field at all).

    Why: the variant's name does not say which rules a game was played by (``--set``
    changes the rules and keeps the name; a copy of ``standard.toml`` may keep its
    name), and neither does `Variant.digest`, the digest of the file's bytes before the
    switches (a corrected comment changes it); two variants whose contents are equal
    deal and play the same games, wherever they were read from. A trained policy fits
    only its rules (`agents.policy`), and a tournament pools only games of one rule set
    under one name (`experiments.plan`)."""
    return variant.model_dump(exclude=set(DESCRIPTIVE_FIELDS))


def rules_digest(variant: Variant) -> str:
    """sha256 (16 hex digits) of `rules_content` as canonical JSON: equal for two
    variants exactly when their rules are equal, short enough for a file's header."""
    content = variant.model_dump(mode="json", exclude=set(DESCRIPTIVE_FIELDS))
    blob = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def available_variants() -> list[str]:
    """Names of the bundled variants."""
    return sorted(p.stem for p in envs_dir().glob("*.toml"))


def load_variant(name_or_path: str | Path, overrides: Mapping[str, Any] | None = None) -> Variant:
    """Read, switch and validate a variant; raise VariantError naming file, key, reason."""
    path = variant_path(name_or_path)
    source = str(path)
    if "\x00" in source:  # no file has such a name; `open` would raise ValueError
        bundled = available_variants()
        raise NoSuchVariant(str(name_or_path), source, NO_SUCH_VARIANT, bundled)
    try:
        text = read_toml_text(path)
        document = parse_toml(text)
    except (OSError, TomlFileError) as exc:
        if isinstance(exc, FileNotFoundError) or getattr(exc, "errno", None) == errno.ENAMETOOLONG:
            bundled = available_variants()
            raise NoSuchVariant(str(name_or_path), source, NO_SUCH_VARIANT, bundled) from exc
        # a folder, a pipe or device, no permission, a link loop, bytes that are not UTF-8
        raise VariantError(source, "-", refusal(exc)) from exc
    except tomllib.TOMLDecodeError as exc:
        raise VariantError(source, "-", refusal(exc)) from exc
    return build_variant(document, source, overrides or {}).from_file(source, text_digest(text))


def text_digest(text: str) -> str:
    """sha256 (16 hex digits) of a file's UTF-8 text: the digest of its bytes, as a
    tournament's manifest records it (`experiments.provenance.file_digest`)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def build_variant(document: dict[str, Any], source: str, overrides: Mapping[str, Any]) -> Variant:
    """Validate an already parsed document (used by tests that build broken variants)."""
    document = copy.deepcopy(document)
    params = document.setdefault("params", {})
    if not isinstance(params, dict):  # ``params = true``: no switch could be looked up
        raise VariantError(
            source, "params", f"must be a table of switches (name = value), got {params!r}"
        )
    for key, value in overrides.items():
        value = coerce(value)
        if key in params:
            params[key] = value
        elif "." in key:
            _set_path(document, key.split("."), value, source)
        else:
            raise VariantError(
                source, key, f"unknown switch; known: {', '.join(sorted(params)) or 'none'}"
            )
    resolved = _substitute(document, params, source, "")
    try:
        variant = Variant.model_validate(resolved)
    except ValidationError as exc:
        located = [(_path_in(resolved, error), error) for error in exc.errors()]
        loc, first = max(located, key=lambda pair: len(pair[0]))  # first of the deepest
        key = ".".join(str(part) for part in loc) or "-"
        reason = _reason(first, loc, resolved) + _from_switch(document, loc, overrides)
        raise VariantError(source, key, reason) from None
    check_references(variant, source)
    check_expressions(variant, source)
    return variant.from_file(source)


def _path_in(document: Any, error: Any) -> tuple[Any, ...]:
    """The error's location as a path in the file: without the names pydantic adds for
    the branches of a choice of types (``retaliates = true`` or a table; ``2.5`` for an
    ``int | str`` count), which are not keys the user could find in the file."""
    path: list[Any] = []
    node = document
    parts = tuple(error["loc"])
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        found = (isinstance(node, dict) and part in node) or (
            isinstance(node, list) and isinstance(part, int) and part < len(node)
        )
        if found:
            node = node[part]
        elif last and error["type"] in ("missing", "extra_forbidden"):
            pass
        else:
            continue  # a branch name (``int``, ``str``, a model's), not a key of the file
        path.append(part)
    return tuple(path)


def _from_switch(document: Any, loc: tuple[Any, ...], overrides: Mapping[str, Any]) -> str:
    """`` (the value of params.NAME)`` when the file writes ``"${NAME}"`` at `loc` and
    the value is the file's own (not a ``--set``, which the caller names itself,
    `rules.table`); else "".

    Why: the refused value is then written in ``[params]``, not at the key the error
    names (``discussion_rounds = "two"`` fails at ``day.1.rounds``), and a user who
    looks at that key finds only ``"${discussion_rounds}"``."""
    node = document
    for part in loc:
        in_table = isinstance(node, dict) and part in node
        in_list = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if not (in_table or in_list):
            return ""
        node = node[part]
    match = _PARAM.match(node) if isinstance(node, str) else None
    if match is None or match.group(2) in overrides:
        return ""
    return f" (the value of params.{match.group(2)})"


def _reason(error: Any, loc: tuple[Any, ...], document: dict[str, Any]) -> str:
    """One line for a pydantic error: unknown keys list the keys that are known."""
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] != "extra_forbidden":
        return message
    known = _known_keys(loc[:-1], document)
    listed = f"; known: {', '.join(sorted(known))}" if known else ""
    return f"unknown key {loc[-1]!r}{listed}"


def _known_keys(parent: tuple[Any, ...], document: dict[str, Any]) -> list[str]:
    """The keys a parameter or trait table accepts, for the "unknown key" message."""
    if not parent:
        return list(Variant.model_fields)
    if len(parent) == 3 and parent[0] == "roles" and parent[2] == "traits":
        return list(RoleTraits.model_fields)
    if len(parent) == 3 and parent[0] in ("day", "night") and parent[2] == "params":
        try:
            step = document[parent[0]][parent[1]]
        except (KeyError, IndexError, TypeError):
            return []
        if parent[0] == "day":
            model = day_params_model(str(step.get("type", "")), str(step.get("procedure", "")))
        else:
            model = night_params_model(str(step.get("action", "")))
        return [field.alias or name for name, field in model.model_fields.items()]
    return []


def coerce(value: Any) -> Any:
    """Turn a command-line string into the TOML type it looks like."""
    if not isinstance(value, str):
        return value
    lowered = value.strip().lower()
    if lowered in {"true", "false"}:
        return lowered == "true"
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return value


def quoted_value(value: Any) -> str | None:
    """Why a switch value a spec wrote in TOML is refused: text that `coerce` would turn
    into a number or true/false (``"2"``, ``"true"``); None for any other value.

    Why: `coerce` reads the command line's ``--set`` text, and `build_variant` applies it
    to every override so that a log's recorded switches replay as played. A spec's
    ``set`` (``overrides``) table is TOML, typed already, so ``discussion_rounds =
    "2"`` there is text where a count is meant, which would be converted silently; a
    spec refuses it as a variant file refuses ``rounds = "2"``."""
    if not isinstance(value, str):
        return None
    meant = coerce(value)
    if isinstance(meant, str):
        return None
    return f"{toml_spelling(value)} is text; write {toml_spelling(meant)}, without quotes"


def check_references(variant: Variant, source: str) -> None:
    """Every name a variant uses must exist: roles, factions, actions, procedures."""
    for role_name, role in variant.roles.items():
        if role.faction not in variant.factions:
            raise VariantError(
                source, f"roles.{role_name}.faction", f"unknown faction {role.faction!r}"
            )
        for known in role.knows_roles:
            if known not in variant.roles:
                raise VariantError(
                    source, f"roles.{role_name}.knows_roles", f"unknown role {known!r}"
                )
        if role.told_as is not None and role.told_as not in variant.roles:
            raise VariantError(
                source, f"roles.{role_name}.told_as", f"unknown role {role.told_as!r}"
            )
        traits = role.typed_traits
        for key, named in trait_roles(traits):
            if named not in variant.roles:
                raise VariantError(
                    source, f"roles.{role_name}.traits.{key}", f"unknown role {named!r}"
                )
        for clan in traits.converts_to:
            if clan not in variant.factions:
                raise VariantError(
                    source, f"roles.{role_name}.traits.converts_to.{clan}", "unknown faction"
                )
    for faction_name, faction in variant.factions.items():
        for i, rule in enumerate(faction.win):
            for other in rule.factions:
                if other not in variant.factions:
                    raise VariantError(
                        source,
                        f"factions.{faction_name}.win.{i}.factions",
                        f"unknown faction {other!r}",
                    )
    for i, step in enumerate(variant.night):
        known_actions = (
            vocabulary.FORUM_NIGHT_ACTIONS
            if variant.rules.flow == "dictator"
            else vocabulary.NIGHT_ACTIONS
        )
        if step.action not in known_actions:
            raise VariantError(source, f"night.{i}.action", f"unknown action {step.action!r}")
        for where, names in (
            ("actors", step.actors),
            ("observers", step.observers),
            ("params.narrate_cards", step.params.narrate_cards),
        ):
            for actor in names:
                if actor not in variant.roles:
                    raise VariantError(source, f"night.{i}.{where}", f"unknown role {actor!r}")
        if step.params.describe is not None and not step.group:
            raise VariantError(
                source, f"night.{i}.params.describe", "only a group step (group = true) describes"
            )
        if step.params.describe_default is not None and step.params.describe is None:
            raise VariantError(
                source,
                f"night.{i}.params.describe_default",
                "a default text needs a describe prompt",
            )
    check_forum_channels(variant, source)
    if variant.palermo is not None:
        cards = variant.palermo.cards
        for key, card in (
            ("deal_first", variant.palermo.deal_first),
            ("deal_unique", variant.palermo.deal_unique),
        ):
            if card not in cards:
                raise VariantError(source, f"palermo.{key}", f"unknown card {card!r}")
        for i, card in enumerate(variant.palermo.deal_order):
            if card not in cards:
                raise VariantError(source, f"palermo.deal_order.{i}", f"unknown card {card!r}")
    comp = variant.composition
    for table_name, table in (
        ("table", comp.table),
        ("alternatives", comp.alternatives),
        ("formula", {0: comp.formula}),
    ):
        for count, row in table.items():
            for dealt in row:
                if dealt not in variant.roles:
                    where = f"composition.{table_name}" + (f".{count}" if count else "")
                    raise VariantError(source, f"{where}.{dealt}", "unknown role")
            if table_name != "formula" and "rest" not in row.values():
                total = sum(v for v in row.values() if isinstance(v, int))
                if all(isinstance(v, int) for v in row.values()) and total != count:
                    raise VariantError(
                        source,
                        f"composition.{table_name}.{count}",
                        f"role counts add up to {total}, not {count} players",
                    )
    for bounded in comp.bounds:
        if bounded not in variant.roles:
            raise VariantError(source, f"composition.bounds.{bounded}", "unknown role")
    if comp.fill_role is not None and comp.fill_role not in variant.roles:
        raise VariantError(source, "composition.fill_role", f"unknown role {comp.fill_role!r}")
    check_switches(variant, source)


BOOLEAN_SWITCHES = ("alternative_row",)
"""The ``[params]`` switches the engine reads itself, as true/false (`rules.composition`)."""


def check_switches(variant: Variant, source: str) -> None:
    """A switch the engine reads by name must have its type.

    Why: ``[params]`` is free-form, so a value is only checked where a ``${name}`` puts it
    into a typed key; ``alternative_row`` is read directly as true/false, where ``"no"``
    or ``-1`` would silently count as true and deal the alternative rows.
    """
    for name in BOOLEAN_SWITCHES:
        value = variant.params.get(name, False)
        if not isinstance(value, bool):
            raise VariantError(source, f"params.{name}", f"needs true or false, got {value!r}")


FORUM_CHANNELS = ("private_messages", "newspaper", "testaments", "inactivity_warnings")
"""The `rules.forum` switches only the dictator flow reads (`engine.forum`)."""


def check_forum_channels(variant: Variant, source: str) -> None:
    """A forum step or channel outside ``rules.flow = "dictator"`` is refused.

    Only the dictator flow runs communication windows; the phases flow has no forum step,
    so such a variant would load and play with no forum at all. Refusing it on load names
    the problem instead of silently dropping the channels the file asks for.
    """
    if variant.rules.flow == "dictator":
        return
    reason = 'a forum needs rules.flow = "dictator"; the phases flow runs no forum window'
    for i, step in enumerate(variant.day):
        if step.type == "forum":
            raise VariantError(source, f"day.{i}.type", reason)
    forum = variant.rules.forum
    for key in FORUM_CHANNELS:
        if getattr(forum, key) not in (False, None):
            raise VariantError(source, f"rules.forum.{key}", reason)


def check_expressions(variant: Variant, source: str) -> None:
    """Every count expression evaluates at the smallest and the largest table.

    Why: an expression that cannot be computed (``n/0``, an unknown name, a call that
    is not allowed) would otherwise surface in the middle of a tournament. Counts that
    merely fall outside the bounds at some size are left to the deal, since a switch may
    make a variant playable at some sizes only.
    """
    names = numeric_params(variant)
    comp = variant.composition
    expressions = [("rules.max_rounds", variant.rules.max_rounds)]
    expressions += [(f"composition.formula.{r}", v) for r, v in comp.formula.items()]
    for count, row in comp.table.items():
        expressions += [(f"composition.table.{count}.{r}", v) for r, v in row.items()]
    for count, row in comp.alternatives.items():
        expressions += [(f"composition.alternatives.{count}.{r}", v) for r, v in row.items()]
    for role, (low, high) in comp.bounds.items():
        expressions += [(f"composition.bounds.{role}", low), (f"composition.bounds.{role}", high)]
    largest = variant.max_players or max(variant.min_players, UNBOUNDED_CHECK_PLAYERS)
    sizes = sorted({variant.min_players, largest})
    for key, expression in expressions:
        if not isinstance(expression, str) or expression == "rest":
            continue
        for n in sizes:
            try:
                evaluate(expression, {"n": n, **names})
            except ExpressionError as exc:
                shown = _shortened(expression)
                raise VariantError(source, key, f"{exc} in {shown} at n = {n}") from None
    check_max_rounds(variant, source, sizes)


def _shortened(expression: str, limit: int = 80) -> str:
    """The expression as an error message quotes it: at most `limit` characters, so a
    formula of thousands of characters still gives a one-line message."""
    if len(expression) <= limit:
        return repr(expression)
    return f"{expression[:limit]!r}... ({len(expression)} characters)"


def check_max_rounds(variant: Variant, source: str, sizes: list[int]) -> None:
    """``rules.max_rounds`` is at least 1 at the variant's smallest and largest table.

    Why: a last round of 0 (``0``, ``"n - n"``) or below ends every game before its first
    round as a draw of length 0, a silently wrong result rather than an error.
    """
    raw = variant.rules.max_rounds
    names = {**numeric_params(variant)}
    for n in sizes:
        try:  # ``"rest"`` is no formula here: `check_expressions` passes it over
            value = raw if isinstance(raw, int) else evaluate(raw, {**names, "n": n})
        except ExpressionError as exc:
            shown = _shortened(str(raw))
            raise VariantError(source, "rules.max_rounds", f"{exc} in {shown}") from None
        if value < 1:
            at = "" if isinstance(raw, int) else f" ({raw!r} is {value:g} at n = {n})"
            raise VariantError(source, "rules.max_rounds", f"must be at least 1{at}")
        if isinstance(raw, int):
            return


UNBOUNDED_CHECK_PLAYERS = 60
"""The table size at which count expressions are tried when a variant sets no maximum."""


def _substitute(value: Any, params: Mapping[str, Any], source: str, key: str) -> Any:
    """`value` with every ``"${name}"`` replaced by the switch (``"!${name}"`` negated).

    Refuses a float that is not finite (TOML's ``nan``, ``inf``) anywhere, switches
    included: no key of a variant means such a value, and ``nan`` even differs from
    itself, so a game played with it could not be matched to its own log.
    """
    if isinstance(value, float) and not math.isfinite(value):
        raise VariantError(source, key or "-", f"not a finite number: {value}")
    if isinstance(value, str):
        match = _PARAM.match(value)
        if match:
            negate, name = match.groups()
            if name not in params:
                raise VariantError(source, key, f"unknown parameter ${{{name}}}")
            if negate:
                if not isinstance(params[name], bool):
                    raise VariantError(source, key, f"!${{{name}}} needs a true/false switch")
                return not params[name]
            return params[name]
        return value
    if isinstance(value, dict):
        return {
            k: _substitute(v, params, source, f"{key}.{k}".strip(".")) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_substitute(v, params, source, f"{key}.{i}") for i, v in enumerate(value)]
    return value


def _set_path(document: dict[str, Any], parts: list[str], value: Any, source: str) -> None:
    node: Any = document
    for i, part in enumerate(parts[:-1]):
        entry = read_whole_number(part) if isinstance(node, list) else None
        if entry is not None and entry < len(node):  # (a list: only lists get an entry)
            node = node[entry]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, dict):  # a table the file leaves at its defaults
            node = node.setdefault(part, {})
        elif isinstance(node, list):
            raise VariantError(source, ".".join(parts[: i + 1]), _no_entry(node))
        else:
            raise VariantError(source, ".".join(parts[: i + 1]), "no such key to override")
    last = parts[-1]
    entry = read_whole_number(last) if isinstance(node, list) else None
    if entry is not None and entry < len(node):
        node[entry] = value
    elif isinstance(node, dict):
        node[last] = value
    elif isinstance(node, list):
        raise VariantError(source, ".".join(parts), _no_entry(node))
    else:
        raise VariantError(source, ".".join(parts), "no such key to override")


def _no_entry(items: list[Any]) -> str:
    """Why a dotted path's list index names nothing, with the entries there are (an
    empty list said plainly, one entry in the singular)."""
    if not items:
        return "no such entry: the list is empty"
    if len(items) == 1:
        return "no such entry: the list has 1 entry, numbered 0"
    return f"no such entry: the list has {len(items)} entries, numbered 0..{len(items) - 1}"
