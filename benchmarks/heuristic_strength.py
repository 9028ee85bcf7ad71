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
95 % Wilson intervals, and whether the preset's interval lies wholly above random's.

    .venv/bin/python benchmarks/heuristic_strength.py [--games 2000]
        [--configs simple:7,standard:7,classic:10,club:10]
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

from mafia_arena.agents.heuristic.rulebook import rulebook
from mafia_arena.agents.registry import make_agent
from mafia_arena.engine.catalogue import GameEnded
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match_sync
from mafia_arena.stats import wilson_interval as wilson

CONFIGS = "simple:7,standard:7,classic:10,club:10"
PRESETS = "heuristic,heuristic:liar,heuristic:quiet,heuristic:aggressive"
BASELINE = "random"
HOST_KEY = b"heuristic_strength benchmark key"
"""A fixed host key (seat seeds, `mafia_arena.seat_seeds`): a rerun replays every game."""


@dataclass
class Tally:
    """Seats played and seats won, by (agent, group) where group is a side or a role."""

    seats: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    wins: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))

    def add(self, agent: str, group: str, won: bool) -> None:
        self.seats[(agent, group)] += 1
        self.wins[(agent, group)] += won

    def rate(self, agent: str, group: str) -> tuple[float, float, float, int]:
        n = self.seats.get((agent, group), 0)
        w = self.wins.get((agent, group), 0)
        low, high = wilson(w, n)
        return (w / n if n else float("nan")), low, high, n


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
            tally.add(name, f"side:{side}", won)
            tally.add(name, f"role:{role}", won)
            tally.add(name, "all", won)
    return tally


def groups(tally: Tally) -> Iterator[str]:
    found = sorted({g for _, g in tally.seats})
    yield from (g for g in found if g == "all")
    yield from (g for g in found if g.startswith("side:"))
    yield from (g for g in found if g.startswith("role:"))


def report(variant: str, players: int, preset: str, tally: Tally, rows: list[dict]) -> None:
    print(f"{variant}/{players}: {preset} vs {BASELINE}")
    for group in groups(tally):
        mine = tally.rate(preset, group)
        base = tally.rate(BASELINE, group)
        verdict = "better" if mine[1] > base[2] else ("worse" if mine[2] < base[1] else "overlap")
        print(
            f"  {group:22s} {preset:22s} {mine[0]:.3f} [{mine[1]:.3f}, {mine[2]:.3f}]"
            f" n={mine[3]:5d}"
            f"   {BASELINE} {base[0]:.3f} [{base[1]:.3f}, {base[2]:.3f}] n={base[3]:5d}  {verdict}"
        )
        for agent, (rate, low, high, n) in ((preset, mine), (BASELINE, base)):
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
                    "verdict": verdict if agent == preset else "",
                }
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
