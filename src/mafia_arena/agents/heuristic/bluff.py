"""The lying mafioso's two choices, shared by every variant's strategy.

Each variant's mafia fakes claims in the forms its town reads (a checker's results in
the round-speech variants and Palermo, a word to the dictator in the forum game), but
two choices are the same everywhere and live here:

- `designated`: whether this seat is its team's one liar: the lowest seat of the team
  as it knows it, when a coin seeded by a key every member computes alike comes up
  below the style's `bluff_chance`;
- `invent_result`: the day's invented check result: a real threat first, else a draw
  against the style's rates that clears a partner, frames an outsider or clears one.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence

from mafia_arena.agents.heuristic.style import Style


def designated(me: int, team: Collection[int], key: str, chance: float) -> bool:
    """Is `me` its team's liar? (The team's lowest seat, on the keyed coin.)"""
    return me == min([*team, me]) and random.Random(key).random() < chance


def invent_result(
    rng: random.Random,
    style: Style,
    threat: int | None,
    partners: Sequence[int],
    outsiders: Sequence[int],
    goat: Callable[[Sequence[int]], int | None],
) -> tuple[int, str] | None:
    """Today's invented result as (target, "mafia" | "innocent"), or None: `threat`
    (a real checker) framed first; else one draw: a partner cleared (`cover_rate`), an
    outsider framed (`frame_rate`, picked by `goat`), else an outsider cleared."""
    draw = rng.random()
    if threat is not None:
        return threat, "mafia"
    if partners and draw < style.cover_rate:
        return rng.choice(partners), "innocent"
    if outsiders and draw < style.cover_rate + style.frame_rate:
        framed = goat(outsiders)
        return None if framed is None else (framed, "mafia")
    if outsiders:
        return rng.choice(outsiders), "innocent"
    return None
