"""Agent-steps per second of the batched env at 1, 8 and 64 games, against the AEC env.

An agent-step is one decision of one seat. The batched env (`MafiaVectorEnv`) steps
every row with a random legal action per row, drawn for the whole batch at once from
the stacked masks; finished games reset themselves. The AEC rows are the standard
PettingZoo loop, one game at a time, `last()` at every step: `env()` (all wrappers,
text view in `infos`) and `env(max_text=0)`. All in one process, random valid actions.

    python benchmarks/vector_env.py [--variant standard] [--players 10]
        [--games 1 8 64] [--seconds 2] [--repeats 3]

Every row is measured right next to a fresh AEC ``env()`` measurement (A then B, B then A
on the next repetition), ``--repeats`` times; rows report the median rate and the ratio
the median of the adjacent pairs, so load on a shared machine hits both sides alike.
Target (issue "speed"): the batched env at 64 games >= 3x the AEC env's agent-steps/s.
An AEC agent-step includes the waits of the night slots (every living seat steps each
slot), a batched row steps decisions only, so the script also prints the ratio against
the AEC env's decisions per second (the row "decisions only").
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from engine_throughput import aec_game
from mafia_arena.env.vector import MafiaVectorEnv


def vector_rate(variant: str, players: int, games: int) -> Callable[[float], float]:
    """A measurement: agent-steps per second of a `games`-row batch for `seconds`."""
    env = MafiaVectorEnv(variant, players, games, copy=False)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)

    def run(seconds: float) -> float:
        nonlocal obs
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(20):
                # uniform over the legal ids: the largest random key among the legal ones
                keys = rng.random(obs["action_mask"].shape) * obs["action_mask"]
                obs, *_ = env.step(keys.argmax(axis=1))
            steps += 20 * games
        return steps / (time.perf_counter() - start)

    return run


def aec_rate(
    variant: str, players: int, *, steps: bool = True, **kwargs: object
) -> Callable[[float], float]:
    """AEC agent-steps per second (night waits included), or decisions per second."""
    play = aec_game(variant, players, count_steps=steps, **kwargs)
    seed = 0

    def run(seconds: float) -> float:
        nonlocal seed
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            steps += play(seed)
            seed += 1
        return steps / (time.perf_counter() - start)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--games", nargs="+", type=int, default=[1, 8, 64])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    v, n = args.variant, args.players
    base = aec_rate(v, n)
    settings = {
        "AEC env(), decisions only": aec_rate(v, n, steps=False),
        "AEC env(max_text=0)": aec_rate(v, n, max_text=0),
    }
    for games in args.games:
        settings[f"MafiaVectorEnv, {games} games"] = vector_rate(v, n, games)
    base_rates: list[float] = []
    rates: dict[str, list[float]] = {label: [] for label in settings}
    ratios: dict[str, list[float]] = {label: [] for label in settings}
    for rep in range(args.repeats):
        for label, run in settings.items():
            if rep % 2 == 0:
                ours, theirs = run(args.seconds), base(args.seconds)
            else:
                theirs, ours = base(args.seconds), run(args.seconds)
            base_rates.append(theirs)
            rates[label].append(ours)
            ratios[label].append(ours / theirs)
    print(
        f"\n{v}, {n} players, random valid actions, median of {args.repeats} "
        f"repetitions of >= {args.seconds:g} s each, every row measured next to AEC env()\n"
    )
    print(f"{'setting':28} {'agent-steps/s':>14} {'vs AEC env()':>13}")
    print(f"{'AEC env()':28} {statistics.median(base_rates):14.0f} {'':>13}")
    for label in settings:
        print(
            f"{label:28} {statistics.median(rates[label]):14.0f} "
            f"{statistics.median(ratios[label]):12.2f}x"
        )
    decisions = statistics.median(ratios["AEC env(), decisions only"])
    print(
        "\nAn AEC agent-step includes the night slots' waits; a batched row steps decisions"
        f" only ({decisions:.2f} of the AEC steps are decisions). Against AEC env()"
        " decisions/s:"
    )
    for games in args.games:
        label = f"MafiaVectorEnv, {games} games"
        print(f"  {label:28} {statistics.median(ratios[label]) / decisions:6.2f}x")


if __name__ == "__main__":
    main()
