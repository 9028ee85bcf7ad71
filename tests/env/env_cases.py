"""Variant × player-count cases shared by the env tests, over the variant files that exist.

A variant file added to `envs/` (club) is picked up here; its player counts come from
`COUNTS` (``"full"`` = the variant's largest preset row within its bounds).
"""

from __future__ import annotations

from mafia_arena.rules import available_variants, load_variant

COUNTS: dict[str, tuple[int | str, ...]] = {
    "simple": (3, 7, 12),
    "standard": (5, 7, 10),
    "classic": (7, 10, 15),
    "club": (8, 12, 16, 20, "full"),
    "dictator": (12, 18, 24),
    "palermo": (12, 16, 20, 24),
}
FULL_CLUB = 26


def _resolve(variant: str, count: int | str) -> int | None:
    spec = load_variant(variant)
    players = FULL_CLUB if count == "full" else int(count)
    upper = spec.max_players if spec.max_players is not None else players
    return players if spec.min_players <= players <= upper else None


def cases() -> list[tuple[str, int]]:
    found = []
    for variant in available_variants():
        for count in COUNTS.get(variant, ("min",)):
            players = (
                load_variant(variant).min_players if count == "min" else _resolve(variant, count)
            )
            if players is not None and (variant, players) not in found:
                found.append((variant, players))
    return found


CASES = cases()
CASE_IDS = [f"{v}-{n}" for v, n in CASES]
SMALL_CASES = [(v, min(n for w, n in CASES if w == v)) for v in dict(CASES)]
