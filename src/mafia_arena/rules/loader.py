"""Load `envs/<name>.toml`, apply switches, validate, and return a `Variant`.

Switches: every key of the file's ``[params]`` table may be overridden (``--set
mafia=3``); any other value may be overridden by its dotted path (``--set
rules.max_rounds=30``). Strings of the form ``"${name}"`` anywhere in the file are
replaced by the parameter's value, with its type, before validation; ``"!${name}"``
is the negation of a true/false switch.
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mafia_arena.rules import vocabulary
from mafia_arena.rules.errors import VariantError
from mafia_arena.rules.spec import Variant

_PARAM = re.compile(r"^(!?)\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")


def envs_dir() -> Path:
    """The folder of bundled variants: the repository's `envs/`."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "envs"
        if candidate.is_dir() and (candidate / "simple.toml").exists():
            return candidate
    raise FileNotFoundError("envs/ folder with the bundled variants not found")


def variant_path(name_or_path: str | Path) -> Path:
    """A variant name (``classic``) or a path to a TOML file."""
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        return path
    return envs_dir() / f"{name_or_path}.toml"


def available_variants() -> list[str]:
    """Names of the bundled variants."""
    return sorted(p.stem for p in envs_dir().glob("*.toml"))


def load_variant(name_or_path: str | Path, overrides: Mapping[str, Any] | None = None) -> Variant:
    """Read, switch and validate a variant; raise VariantError naming file, key, reason."""
    path = variant_path(name_or_path)
    source = str(path)
    try:
        with path.open("rb") as handle:
            document = tomllib.load(handle)
    except FileNotFoundError as exc:
        raise VariantError(source, "-", "no such variant file") from exc
    except tomllib.TOMLDecodeError as exc:
        raise VariantError(source, "-", f"not valid TOML: {exc}") from exc
    return build_variant(document, source, overrides or {})


def build_variant(document: dict[str, Any], source: str, overrides: Mapping[str, Any]) -> Variant:
    """Validate an already parsed document (used by tests that build broken variants)."""
    document = copy.deepcopy(document)
    params = document.setdefault("params", {})
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
        first = exc.errors()[0]
        key = ".".join(str(part) for part in first["loc"])
        raise VariantError(source, key, first["msg"]) from exc
    check_references(variant, source)
    return variant


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
        for trait in role.traits:
            if trait not in vocabulary.ROLE_TRAITS:
                raise VariantError(source, f"roles.{role_name}.traits.{trait}", "unknown trait")
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
        if step.action not in vocabulary.NIGHT_ACTIONS:
            raise VariantError(source, f"night.{i}.action", f"unknown action {step.action!r}")
        for actor in (*step.actors, *step.observers):
            if actor not in variant.roles:
                raise VariantError(source, f"night.{i}.actors", f"unknown role {actor!r}")
    for i, day_step in enumerate(variant.day):
        if day_step.type == "vote" and day_step.procedure not in vocabulary.VOTING_PROCEDURES:
            raise VariantError(
                source,
                f"day.{i}.procedure",
                f"unknown voting procedure {day_step.procedure!r}; known: "
                + ", ".join(sorted(vocabulary.VOTING_PROCEDURES)),
            )
    comp = variant.composition
    for table_name, table in (
        ("table", comp.table),
        ("alternatives", comp.alternatives),
        ("formula", {0: comp.formula}),
    ):
        for count, row in table.items():
            for role in row:
                if role not in variant.roles:
                    where = f"composition.{table_name}" + (f".{count}" if count else "")
                    raise VariantError(source, f"{where}.{role}", "unknown role")
            if table_name != "formula" and "rest" not in row.values():
                total = sum(v for v in row.values() if isinstance(v, int))
                if all(isinstance(v, int) for v in row.values()) and total != count:
                    raise VariantError(
                        source,
                        f"composition.{table_name}.{count}",
                        f"role counts add up to {total}, not {count} players",
                    )


def _substitute(value: Any, params: Mapping[str, Any], source: str, key: str) -> Any:
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
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            raise VariantError(source, ".".join(parts[: i + 1]), "no such key to override")
    last = parts[-1]
    if isinstance(node, list) and last.isdigit():
        node[int(last)] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise VariantError(source, ".".join(parts), "no such key to override")
