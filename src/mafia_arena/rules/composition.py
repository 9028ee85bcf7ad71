"""Turn a composition (table rows, alternatives, formula) into the deck for n players."""

from __future__ import annotations

from mafia_arena.rules.errors import VariantError
from mafia_arena.rules.expressions import ExpressionError, evaluate
from mafia_arena.rules.spec import Variant

_COUNTS: dict[int, tuple[Variant, dict[int, dict[str, int]]]] = {}
"""Deck counts already worked out, by `id(variant)` and player count.

Why: every game needs its deck (twice: for the deal and for the public setup) and the
counts take a dozen expression evaluations. A `Variant` is frozen (and not hashable:
it holds dicts), so the entry keeps the variant itself, which keeps its id from being
reused, and is checked by identity. Bounded by clearing, since variants built with
switches are many but short-lived.
"""
_MAX_VARIANTS = 64


def deck_counts(variant: Variant, n: int) -> dict[str, int]:
    """Role counts for `n` players, in the file's role order; raises VariantError.

    The chosen row must add up to `n` exactly and satisfy the composition's bounds,
    because a wrong deck silently changes the game being measured.
    """
    entry = _COUNTS.get(id(variant))
    if entry is None or entry[0] is not variant:
        if len(_COUNTS) >= _MAX_VARIANTS:
            _COUNTS.clear()
        entry = _COUNTS[id(variant)] = (variant, {})
    counts = entry[1].get(n)
    if counts is None:
        counts = entry[1][n] = _deck_counts(variant, n)
    return dict(counts)  # a copy: callers put it into events


def _deck_counts(variant: Variant, n: int) -> dict[str, int]:
    source = variant.origin
    if n < variant.min_players:
        raise VariantError(
            source, "players", f"{n} players is too few: at least {variant.min_players}"
        )
    if variant.max_players is not None and n > variant.max_players:
        raise VariantError(
            source,
            "players",
            f"{n} players is outside {variant.min_players}..{variant.max_players}",
        )
    comp = variant.composition
    names = {"n": n, **numeric_params(variant)}
    if variant.params.get("alternative_row") and n in comp.alternatives:
        row, key = comp.alternatives[n], f"composition.alternatives.{n}"
    elif n in comp.table:
        row, key = comp.table[n], f"composition.table.{n}"
    elif comp.formula:
        row, key = comp.formula, "composition.formula"
    else:
        raise VariantError(source, "composition", f"no row for {n} players")
    counts: dict[str, int] = {}
    rest_role = None
    for role, raw in row.items():  # every role of a row exists: `check_references`
        if raw == "rest":
            rest_role = role
            continue
        counts[role] = _count(raw, names, source, f"{key}.{role}")
        if counts[role] < 0:
            raise VariantError(
                source,
                f"{key}.{role}",
                f"a count cannot be negative: {raw!r} is {counts[role]} at n = {n}",
            )
    if comp.fill_role and rest_role is None and comp.fill_role not in counts:
        rest_role = comp.fill_role
    used = sum(counts.values())
    if rest_role is not None:
        counts[rest_role] = n - used
    negative = {role: c for role, c in counts.items() if c < 0}
    if negative:
        role, count = next(iter(negative.items()))
        raise VariantError(
            source,
            f"{key}.{role}",
            f"{count} {role} for {n} players: the other roles already take {n - count} seats",
        )
    if sum(counts.values()) != n:
        raise VariantError(
            source,
            key,
            f"role counts {dict(counts)} add up to {sum(counts.values())}, not {n} players",
        )
    for role, (low, high) in comp.bounds.items():
        value = counts.get(role, 0)
        lo = _value(low, names, source, f"composition.bounds.{role}")
        hi = _value(high, names, source, f"composition.bounds.{role}")
        if not lo <= value <= hi:
            raise VariantError(
                source,
                f"{key}.{role}",
                f"{value} is outside the bounds {low}..{high} (= {lo:g}..{hi:g})",
            )
    for role, count in counts.items():
        if variant.roles[role].unique and count > 1:
            raise VariantError(source, f"{key}.{role}", "unique role dealt twice")
    return {role: counts[role] for role in variant.roles if counts.get(role, 0) > 0}


def deck(variant: Variant, n: int) -> list[str]:
    """The n role cards, in a fixed order (shuffled later by the game's RNG)."""
    return [role for role, count in deck_counts(variant, n).items() for _ in range(count)]


def _value(raw: str, names: dict[str, float], source: str, key: str) -> float:
    try:
        return evaluate(raw, names)
    except ExpressionError as exc:
        raise VariantError(source, key, f"{exc} in {raw!r} at n = {names['n']:g}") from None


def _count(raw: int | str, names: dict[str, float], source: str, key: str) -> int:
    if isinstance(raw, int):
        return raw
    value = _value(raw, names, source, key)
    if value != int(value):
        raise VariantError(source, key, f"{raw!r} is not a whole number ({value})")
    return int(value)


def numeric_params(variant: Variant) -> dict[str, float]:
    """The variant's numeric switches: the names a count expression may use besides n."""
    return {
        k: v
        for k, v in variant.params.items()
        if isinstance(v, int | float) and not isinstance(v, bool)
    }
