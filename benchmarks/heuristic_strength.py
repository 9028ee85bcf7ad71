"""How much stronger is each scripted preset than `random`, seat for seat?

Mixed, balanced seating in mirrored pairs: games ``2k`` and ``2k + 1`` share one seed
(one deal); each seat of the pair's first game goes to the preset or to `random` by a
seeded coin, and the second game swaps every seat. So each agent holds every card of
every deal exactly once — both play each role equally often, on the same deals — while
the coin lets one team be all preset, all random or mixed. (A fixed alternation would
split a two-card mafia one-one in every game, and since a faction wins or loses as one,
both agents' mafia win rates would then be equal by construction.) A seat wins when it
is among the game's winners.

Prints, per variant and preset, the win rate of each agent per side and per role with
95 % intervals of two kinds: per-seat Wilson intervals, and game-clustered ones. The
seats of one team share one outcome (a faction wins or loses as one), and the two games
of a mirrored pair share one deal, so seats are not independent draws and the Wilson
interval is too narrow; the clustered interval is a percentile bootstrap over mirrored
game pairs (`BOOTSTRAP_DRAWS` resamples of whole pairs, a fixed seed: a rerun prints the
same figures). The verdict — "better", "worse" or "overlap" — says whether the preset's
clustered interval lies wholly above or below random's.

    .venv/bin/python benchmarks/heuristic_strength.py [--games 2000]
        [--configs simple:7,standard:7,classic:10,club:10,dictator:12,palermo:12]
        [--presets heuristic,heuristic:liar,heuristic:quiet,heuristic:aggressive]
        [--csv out.csv]
"""

from __future__ import annotations

import argparse
import csv
import random
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from mafia_arena.agents.heuristic.rulebook import rulebook
from mafia_arena.agents.registry import make_agent
from mafia_arena.engine.catalogue import GameEnded
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match_sync
from mafia_arena.stats import wilson_interval as wilson

CONFIGS = "simple:7,standard:7,classic:10,club:10,dictator:12,palermo:12"
PRESETS = "heuristic,heuristic:liar,heuristic:quiet,heuristic:aggressive"
BASELINE = "random"
HOST_KEY = b"heuristic_strength benchmark key"
"""A fixed host key (seat seeds, `mafia_arena.seat_seeds`): a rerun replays every game."""
BOOTSTRAP_DRAWS = 2000
BOOTSTRAP_SEED = 19
"""The clustered intervals' resampling is seeded: the same games give the same figures."""

Key = tuple[str, str]


@dataclass
class Tally:
    """Seats played and seats won, by (agent, group) where group is a side or a role,
    in total and per mirrored game pair (the unit the clustered interval resamples)."""

    seats: dict[Key, int] = field(default_factory=lambda: defaultdict(int))
    wins: dict[Key, int] = field(default_factory=lambda: defaultdict(int))
    by_pair: dict[Key, dict[int, list[int]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(lambda: [0, 0]))
    )
    pairs: set[int] = field(default_factory=set)

    def add(self, agent: str, group: str, won: bool, pair: int = 0) -> None:
        self.seats[(agent, group)] += 1
        self.wins[(agent, group)] += won
        cell = self.by_pair[(agent, group)][pair]
        cell[0] += 1
        cell[1] += won
        self.pairs.add(pair)

    def rate(self, agent: str, group: str) -> tuple[float, float, float, int]:
        """Win rate, per-seat Wilson 95 % interval, seats."""
        n = self.seats.get((agent, group), 0)
        w = self.wins.get((agent, group), 0)
        low, high = wilson(w, n)
        return (w / n if n else float("nan")), low, high, n

    def clustered(self, agent: str, group: str) -> tuple[float, float]:
        """A 95 % percentile-bootstrap interval of the win rate over game pairs.

        Every draw resamples whole pairs with replacement (the same draws for every
        agent and group) and takes wins over seats of the drawn pairs; draws with no
        seat of the group are left out. NaNs when the group has no seats."""
        pairs = sorted(self.pairs)
        cells = self.by_pair.get((agent, group), {})
        if not pairs or not cells:
            return float("nan"), float("nan")
        seats = np.array([cells[p][0] if p in cells else 0 for p in pairs], dtype=np.int64)
        wins = np.array([cells[p][1] if p in cells else 0 for p in pairs], dtype=np.int64)
        rng = np.random.default_rng(BOOTSTRAP_SEED)
        draws = rng.integers(0, len(pairs), size=(BOOTSTRAP_DRAWS, len(pairs)))
        drawn_seats = seats[draws].sum(axis=1)
        drawn_wins = wins[draws].sum(axis=1)
        kept = drawn_seats > 0
        rates = drawn_wins[kept] / drawn_seats[kept]
        low, high = np.percentile(rates, [2.5, 97.5])
        return float(low), float(high)


def verdict(mine: tuple[float, float], base: tuple[float, float]) -> str:
    """``better`` when the preset's interval lies wholly above the baseline's,
    ``worse`` when wholly below, else ``overlap``."""
    if mine[0] > base[1]:
        return "better"
    if mine[1] < base[0]:
        return "worse"
    return "overlap"


def mixed_seating(players: int, game: int, preset: str) -> tuple[int, list[str]]:
    """The seed and the agent of every seat of game `game` (see the module docstring)."""
    pair, mirrored = divmod(game, 2)
    coins = random.Random(f"mixed:{pair}")
    first = [coins.random() < 0.5 for _ in range(players)]
    return pair, [preset if coin != bool(mirrored) else BASELINE for coin in first]


def play(variant_name: str, players: int, preset: str, games: int) -> Tally:
    """`games` games (seeds 0..games/2) in mixed seating; the tally of every seat."""
    variant = load_variant(variant_name)
    book = rulebook(variant)
    tally = Tally()
    for game in range(games):
        seed, names = mixed_seating(players, game, preset)
        agents = [make_agent(n) for n in names]
        result = play_match_sync(variant, agents, seed, host_key=HOST_KEY)
        over = next(e.fact for e in reversed(result.log.events) if isinstance(e.fact, GameEnded))
        winners = set(over.winners)
        for seat, name in enumerate(names):
            role = over.roles[seat]
            side = book.side_of_faction(over.factions[seat])
            won = seat in winners
            tally.add(name, f"side:{side}", won, seed)
            tally.add(name, f"role:{role}", won, seed)
            tally.add(name, "all", won, seed)
    return tally


def groups(tally: Tally) -> Iterator[str]:
    found = sorted({g for _, g in tally.seats})
    yield from (g for g in found if g == "all")
    yield from (g for g in found if g.startswith("side:"))
    yield from (g for g in found if g.startswith("role:"))


def report(variant: str, players: int, preset: str, tally: Tally, rows: list[dict]) -> None:
    """Print one line per group (rate, Wilson interval, clustered interval, seats, for
    the preset then the baseline, and the verdict on the clustered intervals) and add
    one row per agent and group to `rows`."""
    print(f"{variant}/{players}: {preset} vs {BASELINE}  (rate [Wilson] {{clustered}} seats)")
    for group in groups(tally):
        mine, base = tally.rate(preset, group), tally.rate(BASELINE, group)
        mine_c, base_c = tally.clustered(preset, group), tally.clustered(BASELINE, group)
        said = verdict(mine_c, base_c)
        print(
            f"  {group:24s} {preset:20s} {_cell(mine, mine_c)}"
            f"   {BASELINE} {_cell(base, base_c)}  {said}"
        )
        for agent, (rate, low, high, n), (c_low, c_high) in (
            (preset, mine, mine_c),
            (BASELINE, base, base_c),
        ):
            rows.append(
                {
                    "variant": variant,
                    "players": players,
                    "preset": preset,
                    "agent": agent,
                    "group": group,
                    "seats": n,
                    "win_rate": round(rate, 4),
                    "low": round(low, 4),
                    "high": round(high, 4),
                    "clustered_low": round(c_low, 4),
                    "clustered_high": round(c_high, 4),
                    "verdict": said if agent == preset else "",
                }
            )


def _cell(rate: tuple[float, float, float, int], clustered: tuple[float, float]) -> str:
    return (
        f"{rate[0]:.3f} [{rate[1]:.3f}, {rate[2]:.3f}] {{{clustered[0]:.3f}, {clustered[1]:.3f}}}"
        f" n={rate[3]:5d}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--configs", default=CONFIGS, help="variant:players,...")
    parser.add_argument("--presets", default=PRESETS, help="scripted agent names")
    parser.add_argument("--csv", default="", help="also write every row to this CSV file")
    args = parser.parse_args()
    rows: list[dict] = []
    for config in args.configs.split(","):
        variant, players = config.split(":")
        for preset in args.presets.split(","):
            start = time.perf_counter()
            tally = play(variant, int(players), preset, args.games)
            report(variant, int(players), preset, tally, rows)
            print(f"  ({args.games} games, {time.perf_counter() - start:.1f} s)\n", flush=True)
    if args.csv and rows:
        with open(args.csv, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
