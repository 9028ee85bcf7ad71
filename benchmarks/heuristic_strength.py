"""How much stronger is the heuristic town than the random town, against random mafia?

Seats are given in the command line's form (`mafia_arena.seating.seat_agents`):
``town=heuristic,mafia=random`` puts a `BySideAgent` in every seat, so seats dealt a
town role play `heuristic` (or `random`, the baseline) and all others play `random`.
Prints the town's win rate with its 95 % Wilson interval for both, and whether the
intervals are disjoint.
Also prints all-heuristic games (how balanced heuristic play is) and random town
against heuristic mafia (how strong the heuristic mafia are).

    .venv/bin/python benchmarks/heuristic_strength.py [--games 2000] [--quick]
        [--configs standard:7,classic:7,classic:10,simple:7]
"""

from __future__ import annotations

import argparse
import time

from mafia_arena.agents.heuristic.rulebook import rulebook
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match_sync
from mafia_arena.seating import seat_agents
from mafia_arena.stats import wilson_interval as wilson

CONFIGS = "standard:7,classic:7,classic:10,simple:7"
PAIRINGS: list[tuple[str, str]] = [
    ("heuristic town vs random mafia", "town=heuristic,mafia=random"),
    ("random town vs random mafia", "random"),
    ("heuristic everywhere", "heuristic"),
    ("random town vs heuristic mafia", "town=random,mafia=heuristic"),
]


def town_wins(variant: str, players: int, seats: str, games: int) -> int:
    """Games (seeds 0..games-1) won by a town-side faction."""
    spec = load_variant(variant)
    book = rulebook(variant)
    wins = 0
    for seed in range(games):
        agents = seat_agents(seats, players, spec)
        result = play_match_sync(spec, agents, seed)  # type: ignore[arg-type]
        wins += result.winner is not None and book.side_of_faction(result.winner) == "town"
    return wins


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--quick", action="store_true", help="only the first two pairings")
    parser.add_argument("--configs", default=CONFIGS, help="variant:players,...")
    args = parser.parse_args()
    pairings = PAIRINGS[:2] if args.quick else PAIRINGS
    for config in args.configs.split(","):
        variant, players = config.split(":")[0], int(config.split(":")[1])
        print(f"{variant}, {players} players, {args.games} games each")
        intervals = []
        for label, seats in pairings:
            start = time.perf_counter()
            wins = town_wins(variant, players, seats, args.games)
            low, high = wilson(wins, args.games)
            intervals.append((low, high))
            print(
                f"  {label:32s} town wins {wins / args.games:6.1%}  "
                f"95% CI [{low:.3f}, {high:.3f}]  ({time.perf_counter() - start:.1f} s)"
            )
        (_, top_baseline), (low_heuristic, _) = intervals[1], intervals[0]
        print(f"  heuristic town clearly better: {low_heuristic > top_baseline}\n")


if __name__ == "__main__":
    main()
