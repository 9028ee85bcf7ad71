"""What training buys: trained town policies against random and heuristic votes.

Trains from a committed spec (default `experiments/rl-town-votes.toml`) once per
training seed, then evaluates every contender on the same held-out seeded games per
opponent of the spec's pool: each seed's policy, uniformly random votes, and the
heuristic's own votes (the co-player deciding). Prints win rates with 95% Wilson
intervals, each policy's margin over the heuristic per opponent, whether it meets the
target (+0.10 over the heuristic's votes against every opponent), and how many seeds
do; `--markdown FILE` writes the same as tables.

    python benchmarks/rl_gain.py                       # 1 seed, 5,000 games each
    python benchmarks/rl_gain.py --seeds 0 1 2 3 4 --jobs 2   # the multi-seed check
    python benchmarks/rl_gain.py --policy agents/policies/rl-town-votes.npz  # no training
    python benchmarks/rl_gain.py --policy A.npz B.npz --games 2000   # side by side

`--jobs N` trains (and then evaluates) in N worker processes; every result is the same
as with one, since each training and each evaluation is seeded on its own. Not a test:
it takes tens of minutes on two cores.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from mafia_arena.agents.policy_file import PolicyFile
from mafia_arena.rl.evaluate import WinRate, random_chooser, shown_margin, win_rate
from mafia_arena.rl.spec import TrainSpec, load_train_spec
from mafia_arena.rl.team_env import TeamSetup
from mafia_arena.views.encode_history import ObservationSpec

REPO = Path(__file__).resolve().parents[1]
TARGET = 0.10
HEURISTIC, RANDOM = "heuristic votes", "random votes"


def train_seed(spec: TrainSpec, seed: int, out: Path) -> tuple[int, Path, float]:
    """Train `spec` with `seed` into `out`/seed<seed>; (seed, policy file, minutes)."""
    from mafia_arena.rl.train import train

    started = time.perf_counter()
    seeded = dataclasses.replace(spec, seed=seed)
    result = train(seeded, out / f"seed{seed}", track=False, log=lambda _: None)
    return seed, result.policy_path, (time.perf_counter() - started) / 60


def played_setup(setup: TeamSetup, policy: PolicyFile) -> TeamSetup:
    """`setup` on the observation layout (and advice) the policy's header names."""
    layout = ObservationSpec.from_header(policy.header.get("observation"))
    return dataclasses.replace(
        setup,
        observation=layout.layout,
        history_days=layout.history_days,
        egocentric=layout.egocentric,
        max_players=layout.max_players,
        advice=policy.header.get("advice") is not None,
    )


def evaluate(
    setup: TeamSetup, label: str, policy: Path | None, opponent: str, games: int
) -> WinRate:
    """One contender against one opponent: a policy file, or a baseline by its label."""
    if policy is not None:
        loaded = PolicyFile.load(policy)
        return win_rate(played_setup(setup, loaded), label, loaded.act, opponent, games)
    choose = random_chooser(0) if label == RANDOM else None
    return win_rate(setup, label, choose, opponent, games)


def run_all(jobs: int, calls: Sequence[tuple[Callable[..., Any], tuple[Any, ...]]]) -> list[Any]:
    """The calls' results in order, in `jobs` worker processes (in this one for 1)."""
    if jobs <= 1:
        return [call(*args) for call, args in calls]
    with ProcessPoolExecutor(jobs) as pool:
        futures = [pool.submit(call, *args) for call, args in calls]
        return [future.result() for future in futures]


def markdown(
    opponents: Sequence[str],
    baselines: dict[str, list[WinRate]],
    policies: dict[str, list[WinRate]],
    games: int,
) -> str:
    """The win rates and margins as Markdown tables (for docs/rl.md)."""

    head = "| town votes by | " + " | ".join(f"vs {o}" for o in opponents) + " |"
    rule = "| --- |" + " --- |" * len(opponents)
    lines = [f"Town win rate on {games:,} held-out seeded games per opponent [95% CI]:", ""]
    lines += [head, rule]
    for label, rates in {**policies, **baselines}.items():
        lines.append(f"| {label} | " + " | ".join(r.shown() for r in rates) + " |")
    if baselines.get(HEURISTIC):
        lines += ["", "Margin over the heuristic's votes (target: +0.10 against every opponent):"]
        lines += ["", head.replace("town votes by", "policy"), rule]
        for label, rates in policies.items():
            margins = [shown_margin(r, h) for r, h in zip(rates, baselines[HEURISTIC], strict=True)]
            lines.append(f"| {label} | " + " | ".join(margins) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=REPO / "experiments" / "rl-town-votes.toml")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--steps", type=int, default=None, help="override the spec's steps")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--policy", type=Path, nargs="+", default=None, help="evaluate these files, no training"
    )
    parser.add_argument(
        "--no-baselines",
        action="store_true",
        help="skip random and heuristic votes (they replay the same seeded games every run)",
    )
    parser.add_argument("--markdown", type=Path, default=None, help="write the tables here")
    parser.add_argument("--out", type=Path, default=REPO / "runs" / "rl_gain")
    args = parser.parse_args()
    if args.games < 1:  # a win rate over no games measures nothing, and meets no target
        parser.error("--games must be at least 1")

    spec = load_train_spec(args.spec)
    if args.steps is not None:
        spec = dataclasses.replace(spec, steps=args.steps)
    setup = spec.setup
    opponents = list(setup.opponents)
    print(
        f"spec {args.spec.name}: {setup.variant} {setup.players}p, learner = {setup.side} "
        f"{'/'.join(setup.kinds)}, pool = {', '.join(opponents)}, {args.games} games"
    )

    files: list[tuple[str, Path]] = []
    if args.policy is not None:
        for path in args.policy:
            header = PolicyFile.load(path).header
            layout = header.get("observation", {}).get("layout", "v0")
            advice = " + advice" if header.get("advice") else ""
            label = f"{path.stem} ({layout}{advice})"
            if label in dict(files):  # same file name in another folder
                label = f"{path.parent.name}/{label}"
            files.append((label, path))
    else:
        trained = run_all(args.jobs, [(train_seed, (spec, s, args.out)) for s in args.seeds])
        for seed, path, minutes in trained:
            print(f"trained seed {seed}: {spec.steps} decisions in {minutes:.1f} min")
            files.append((f"policy seed {seed}", path))

    contenders: list[tuple[str, Path | None]] = list(files)
    if not args.no_baselines:
        contenders += [(HEURISTIC, None), (RANDOM, None)]
    calls = [
        (evaluate, (setup, label, path, opponent, args.games))
        for label, path in contenders
        for opponent in opponents
    ]
    rates = iter(run_all(args.jobs, calls))
    table = {label: [next(rates) for _ in opponents] for label, _ in contenders}
    baselines = {k: table.pop(k) for k in (HEURISTIC, RANDOM) if k in table}

    beats = 0
    for label, learned in table.items():
        for index, rate in enumerate(learned):
            print("  " + rate.row())
            if not baselines:
                continue
            for row in (baselines[HEURISTIC][index], baselines[RANDOM][index]):
                print("  " + row.row())
            margin = shown_margin(rate, baselines[HEURISTIC][index])
            print(f"  margin over heuristic votes vs {rate.opponent}: {margin}")
        if baselines:
            ok = all(
                r.rate - h.rate >= TARGET
                for r, h in zip(learned, baselines[HEURISTIC], strict=True)
            )
            beats += ok
            print(f"{label}: {'meets' if ok else 'misses'} the +0.10 target against every opponent")
    if baselines:
        print(f"{beats} of {len(table)} policies meet the target")
    if args.markdown is not None:
        args.markdown.write_text(markdown(opponents, baselines, table, args.games))
        print(f"tables written to {args.markdown}")


if __name__ == "__main__":
    main()
