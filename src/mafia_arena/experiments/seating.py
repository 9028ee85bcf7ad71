"""Who sits where: the `random` and `balanced` seating schemes.

Both are pure functions of (matchup, game index, base seed), so a task can recompute
the seating of any game and a re-run seats everyone identically.

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
  n``, rotation ``r = g mod n``) deck position ``p`` goes to lineup slot
  ``(π_b(p) + r) mod n``, where ``π_b`` is a permutation of the deck positions drawn
  once per block (`block_permutation`). Over each block of ``n`` games every lineup
  slot holds every deck position once, so the balance is exact after every ``n`` games
  (``n * m`` for the filling agents). The permutation is what keeps two cards' holders
  from being tied together: with ``π`` the identity the offset between two positions
  would be the same in every game, so whoever held one card, the holder of the other
  would be fixed, and a role's row in ``roles.csv`` would repeat another role's.
"""

from __future__ import annotations

import random

from mafia_arena.engine.game import Game
from mafia_arena.experiments.plan import Matchup, game_seed
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


def seat_agents(matchup: Matchup, game_index: int, base_seed: int, variant: Variant) -> list[str]:
    """The agent label of every seat of game `game_index` (global index) of an
    experiment with `base_seed` (the game's own seed is `game_seed(base_seed, index)`)."""
    local = game_index - matchup.first_index
    n = matchup.players
    seed = game_seed(base_seed, game_index)
    if matchup.seating == "random":
        return _random(matchup, n, seed)
    if matchup.seating == "balanced":
        block = local // n
        permutation = block_permutation(base_seed, matchup.first_index + block * n, n)
        return _balanced(matchup, n, local, seed, variant, permutation)
    raise ValueError(f"unknown seating {matchup.seating!r}")


def block_permutation(base_seed: int, block_start: int, players: int) -> list[int]:
    """`π_b` of the module docstring: the deck positions' order for the block of games
    that starts at global index `block_start`, drawn from its own generator (the same
    for every game of the block, whichever task plays it)."""
    order = list(range(players))
    random.Random(f"mafia-arena:{base_seed}:{block_start}:deck-positions").shuffle(order)
    return order


def _random(matchup: Matchup, n: int, seed: int) -> list[str]:
    rng = random.Random(f"{seed}:seating")
    fixed = [a.label for a in matchup.pool for _ in range(matchup.quotas.get(a.label, 0))]
    fillers = [a.label for a in matchup.pool if a.label not in matchup.quotas]
    seats: list[str | None] = [None] * n
    for seat, label in zip(rng.sample(range(n), len(fixed)), fixed, strict=True):
        seats[seat] = label
    return [label if label is not None else rng.choice(fillers) for label in seats]


def _balanced(
    matchup: Matchup, n: int, local: int, seed: int, variant: Variant, permutation: list[int]
) -> list[str]:
    block, rotation = divmod(local, n)
    slots = lineup(matchup, block)
    cards = dealt_roles(variant, n, seed)
    order = {role: k for k, role in enumerate(dict.fromkeys(deck(variant, n)))}
    positions = sorted(range(n), key=lambda seat: (order[cards[seat]], seat))
    seats = [""] * n
    for p, seat in enumerate(positions):
        seats[seat] = slots[(permutation[p] + rotation) % n]
    return seats
