"""Palermo in numbers: faction win rates and how often each card and ability is used.

Plays seeded games of each Palermo preset (12, 16, 20, 24 players) with strict
heuristic players (an error in a strategy stops the run with its preset and seed) and
reports, per preset, each camp's win rate with a 95% Wilson interval and the mean
number of uses per game of every card and ability (the engine's own count), plus the
share of games in which each was used at least once; and each preset's games per
CPU-second (summed over the workers).

    python benchmarks/palermo_stats.py [--games 10000] [--presets 12,16,20,24]
        [--workers 2] [--seed 0] [--markdown table.md]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cache

from mafia_arena.agents.heuristic import HeuristicAgent
from mafia_arena.engine import Game
from mafia_arena.engine.palermo.state import of
from mafia_arena.rules import Variant, load_variant
from mafia_arena.stats import wilson_interval
from mafia_arena.views import SeatTracker

PRESETS = (12, 16, 20, 24)


@dataclass
class PresetStats:
    games: int = 0
    wins: Counter[str] = field(default_factory=Counter)
    uses: Counter[str] = field(default_factory=Counter)
    used_in: Counter[str] = field(default_factory=Counter)
    rounds: int = 0
    cpu_seconds: float = 0.0

    def merge(self, other: PresetStats) -> None:
        self.games += other.games
        self.cpu_seconds += other.cpu_seconds
        self.wins.update(other.wins)
        self.uses.update(other.uses)
        self.used_in.update(other.used_in)
        self.rounds += other.rounds


@cache
def palermo() -> Variant:
    """The variant, read once per process (parsing the file took a tenth of a 12-player
    game); a `Variant` is frozen, so every game may share it."""
    return load_variant("palermo")


def play_one(players: int, seed: int) -> tuple[str, dict[str, int], int]:
    variant = palermo()
    game = Game(variant, players, seed)
    agents = []
    for seat in range(players):
        agent = HeuristicAgent(seed, strict=True)
        agent.reset(seat, seed * 1000 + seat)
        agent.set_variant(variant)
        agents.append((agent, SeatTracker(seat)))
    while not game.over:
        pending = game.pending()
        if not pending:
            break
        for seat in sorted(pending):
            agent, tracker = agents[seat]
            game.submit(seat, agent.decide(tracker.view(game)))
    return game.state.winner or "draw", dict(of(game).used), of(game).round


def chunk(players: int, seeds: range) -> PresetStats:
    stats = PresetStats()
    cpu = time.process_time()
    for seed in seeds:
        try:
            winner, used, rounds = play_one(players, seed)
        except Exception as error:  # a failing seed is reported with its table
            raise RuntimeError(f"palermo {players} players, seed {seed}: {error!r}") from error
        stats.games += 1
        stats.wins[winner] += 1
        stats.uses.update(used)
        stats.used_in.update(used.keys())
        stats.rounds += rounds
    stats.cpu_seconds = time.process_time() - cpu
    return stats


def run(games: int, presets: tuple[int, ...], workers: int, seed: int) -> dict[int, PresetStats]:
    """Play `games` seeded games per preset on `workers` processes.

    Every game is seeded by its own number (seed, seed + 1, ...) alone, the seeds are cut
    into contiguous chunks, and the chunks' figures are merged back in seed order, so
    the result is the same for every worker count (1 plays in this process).
    """
    out = {n: PresetStats() for n in presets}
    size = max(1, games // (max(1, workers) * 4))
    jobs = [
        (n, range(start, min(start + size, seed + games)))
        for n in presets
        for start in range(seed, seed + games, size)
    ]
    if workers <= 1:
        results = [chunk(n, seeds) for n, seeds in jobs]
    else:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(chunk, *zip(*jobs, strict=True)))
    for (n, _), stats in zip(jobs, results, strict=True):
        out[n].merge(stats)
    return out


def markdown(results: dict[int, PresetStats]) -> str:
    lines = ["| players | games | camp | wins | rate | 95% interval |", "|---|---|---|---|---|---|"]
    for n, s in results.items():
        for camp in ("town", "mafia", "rival", "draw"):
            k = s.wins.get(camp, 0)
            low, high = wilson_interval(k, s.games)
            lines.append(
                f"| {n} | {s.games} | {camp} | {k} | {k / s.games:.3f} | {low:.3f}–{high:.3f} |"
            )
    lines += [
        "",
        "| players | card or ability | uses per game | share of games used |",
        "|---|---|---|---|",
    ]
    for n, s in results.items():
        for what in sorted(s.uses):
            lines.append(
                f"| {n} | {what} | {s.uses[what] / s.games:.3f} | {s.used_in[what] / s.games:.3f} |"
            )
    lines.append("")
    lines.append(
        "Mean rounds per game: "
        + ", ".join(f"{n}: {s.rounds / s.games:.2f}" for n, s in results.items())
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--presets", default=",".join(map(str, PRESETS)))
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        help="processes (1: in this process); no effect on the figures",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", default="")
    args = parser.parse_args()
    presets = tuple(int(p) for p in args.presets.split(","))
    start = time.perf_counter()
    results = run(args.games, presets, args.workers, args.seed)
    text = markdown(results)
    print(text)
    elapsed = time.perf_counter() - start
    played = args.games * len(presets)
    print(
        f"\n{args.games} games per preset in {elapsed:.1f}s "
        f"({played / elapsed:.1f} games/s on {args.workers} workers)"
    )
    print(
        "Games per CPU-second: "
        + ", ".join(f"{n}: {s.games / s.cpu_seconds:.1f}" for n, s in results.items())
    )
    if args.markdown:
        with open(args.markdown, "w") as handle:
            handle.write(text + "\n")


if __name__ == "__main__":
    main()
