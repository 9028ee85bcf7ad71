"""Games per second and time per decision as the table grows, engine and environments.

For each variant and player count, random valid actions, the same loops as
`engine_throughput.py`: the engine alone, the AEC ``env()`` with ``last()`` at every
step, the same with ``max_text=0``, and the Parallel ``parallel_env()``. The time per
decision shows where a large table costs more than its extra decisions (a view, an
observation or a text per seat that grows with the table).

    python benchmarks/player_scaling.py [--variants standard club]
        [--players 7 10 16 26] [--seconds 1] [--repeats 3]

A count outside a variant's bounds is replaced by the nearest bound (club starts at 8);
the table shows the count played. Rows report the median of ``--repeats`` repetitions; the
repetitions cycle over all settings, so load on a shared machine spreads over them. Every
row divides by the engine's decisions per game (for the envs, those of their games), so
the time per decision compares the engine and the envs like for like, and the ratio of
the Parallel env to the AEC env is printed per table size.
"""

from __future__ import annotations

import argparse
import statistics

from engine_throughput import Play, aec_game, engine_game, measure, parallel_game
from mafia_arena.rules import load_variant

SETTINGS = {
    "engine": engine_game,
    "AEC env()": aec_game,
    "AEC env(max_text=0)": lambda v, n: aec_game(v, n, max_text=0),
    "Parallel env": parallel_game,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", nargs="+", default=["standard", "club"])
    parser.add_argument("--players", nargs="+", type=int, default=[7, 10, 16, 26])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    plays: dict[tuple[str, int, str], Play] = {}
    for variant in args.variants:
        spec = load_variant(variant)
        counts = dict.fromkeys(
            min(max(n, spec.min_players), spec.max_players) for n in args.players
        )
        for n in counts:
            for setting, build in SETTINGS.items():
                plays[(variant, n, setting)] = build(variant, n)
    rates: dict[tuple[str, int, str], list[tuple[float, float]]] = {k: [] for k in plays}
    for _ in range(args.repeats):
        for key, play in plays.items():
            rates[key].append(measure(play, args.seconds))

    print(
        f"\nrandom valid actions, median of {args.repeats} repetitions of "
        f">= {args.seconds:g} s each\n"
    )
    print(
        f"{'variant':9} {'players':>7} {'setting':22} {'games/s':>9} "
        f"{'decisions/game':>15} {'µs/decision':>12}"
    )
    per_decision: dict[tuple[str, int, str], float] = {}
    for (variant, n, setting), samples in rates.items():
        rate = statistics.median(r for r, _ in samples)
        per_game = statistics.median(d for _, d in samples)
        per_decision[(variant, n, setting)] = 1e6 / (rate * per_game)
        print(
            f"{variant:9} {n:7d} {setting:22} {rate:9.1f} {per_game:15.1f} "
            f"{per_decision[(variant, n, setting)]:12.1f}"
        )
    print("\nParallel env / AEC env() per decision (target <= 1.5 at 26-player club):")
    for variant, n, setting in per_decision:
        if setting == "Parallel env":
            ratio = per_decision[(variant, n, setting)] / per_decision[(variant, n, "AEC env()")]
            print(f"  {variant} {n}p: {ratio:.2f}")


if __name__ == "__main__":
    main()
