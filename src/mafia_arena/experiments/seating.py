"""Who sits where: the `random` and `balanced` seating schemes.

Both are pure functions of (matchup, game index, seed), so a task can recompute the
seating of any game and a re-run seats everyone identically.

A table is a *lineup*: the fixed seats of the matchup (``seats = {agent = k}``) plus the
other pool agents filling the remaining seats in turn. With ``r`` seats to fill and
``m`` filling agents, block ``b`` of games starts the turn at agent ``b mod m``, so over
``m`` blocks every filling agent gets the same number of seats.

* ``random``: the fixed agents take uniformly drawn seats, every other seat draws a
  filling agent uniformly (both from ``Random(f"{seed}:seating")``).
* ``balanced``: every agent plays every role card equally often relative to the deck,
  i.e. its share of each role (and so of each side) equals the role's share of the deck.
  The game's deal is computed first (it depends only on the seed); the role cards are
  put in the deck's fixed order; in the ``g``-th game of the matchup (block ``b = g //
  n``, rotation ``r = g mod n``) deck position ``p`` goes to lineup slot ``(p + r) mod
  n``. Over each block of ``n`` games every lineup slot holds every deck position once,
  so the balance is exact after every ``n`` games (``n * m`` for the filling agents).
"""

from __future__ import annotations

import random

from mafia_arena.engine.game import Game
from mafia_arena.experiments.plan import Matchup
from mafia_arena.rules import Variant
from mafia_arena.rules.composition import deck


def lineup(matchup: Matchup, block: int) -> list[str]:
    """The `players` agent labels of one block: fixed seats first, then the filling turn."""
    fixed = [a.label for a in matchup.pool for _ in range(matchup.quotas.get(a.label, 0))]
    fillers = [a.label for a in matchup.pool if a.label not in matchup.quotas]
    rest = matchup.players - len(fixed)
    fill = [fillers[(j + block) % len(fillers)] for j in range(rest)] if rest else []
    return fixed + fill


def dealt_roles(variant: Variant, players: int, seed: int) -> list[str]:
    """The role card of each seat for this seed, read from the engine itself."""
    game = Game(variant, players, seed)
    return [seat.card for seat in game.state.seats]


def seat_agents(matchup: Matchup, game_index: int, seed: int, variant: Variant) -> list[str]:
    """The agent label of every seat of game `game_index` (global index)."""
    local = game_index - matchup.first_index
    n = matchup.players
    if matchup.seating == "random":
        return _random(matchup, n, seed)
    if matchup.seating == "balanced":
        return _balanced(matchup, n, local, seed, variant)
    raise ValueError(f"unknown seating {matchup.seating!r}")


def _random(matchup: Matchup, n: int, seed: int) -> list[str]:
    rng = random.Random(f"{seed}:seating")
    fixed = [a.label for a in matchup.pool for _ in range(matchup.quotas.get(a.label, 0))]
    fillers = [a.label for a in matchup.pool if a.label not in matchup.quotas]
    seats: list[str | None] = [None] * n
    for seat, label in zip(rng.sample(range(n), len(fixed)), fixed, strict=True):
        seats[seat] = label
    return [label if label is not None else rng.choice(fillers) for label in seats]


def _balanced(matchup: Matchup, n: int, local: int, seed: int, variant: Variant) -> list[str]:
    block, rotation = divmod(local, n)
    slots = lineup(matchup, block)
    cards = dealt_roles(variant, n, seed)
    order = {role: k for k, role in enumerate(dict.fromkeys(deck(variant, n)))}
    positions = sorted(range(n), key=lambda seat: (order[cards[seat]], seat))
    seats = [""] * n
    for p, seat in enumerate(positions):
        seats[seat] = slots[(p + rotation) % n]
    return seats
