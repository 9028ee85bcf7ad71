"""What training buys: a trained town policy against random and heuristic votes.

Trains from a committed spec (default `experiments/rl-town-votes.toml`) for each
training seed, then evaluates every contender on the same held-out seeded games per
opponent of the spec's pool: the trained policy, uniformly random votes, and the
heuristic's own votes (the co-player deciding). Prints win rates with 95% Wilson
intervals and the policy's margin over the heuristic per opponent and seed.

    python benchmarks/rl_gain.py                       # 1 seed, 5,000 games each
    python benchmarks/rl_gain.py --seeds 0 1 2 3 4     # the multi-seed check
    python benchmarks/rl_gain.py --policy agents/policies/rl-town-votes.npz  # no training

Not a test: it takes tens of minutes on two cores.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

from mafia_arena.agents.policy_file import PolicyFile
from mafia_arena.rl.evaluate import WinRate, random_chooser, win_rate
from mafia_arena.rl.spec import load_train_spec

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=REPO / "experiments" / "rl-town-votes.toml")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--steps", type=int, default=None, help="override the spec's steps")
    parser.add_argument("--policy", type=Path, default=None, help="evaluate this file only")
    parser.add_argument("--out", type=Path, default=REPO / "runs" / "rl_gain")
    args = parser.parse_args()

    spec = load_train_spec(args.spec)
    if args.steps is not None:
        spec = dataclasses.replace(spec, steps=args.steps)
    setup = spec.setup
    print(
        f"spec {args.spec.name}: {setup.variant} {setup.players}p, learner = {setup.side} "
        f"{'/'.join(setup.kinds)}, pool = {', '.join(setup.opponents)}, {args.games} games"
    )

    baselines: dict[str, list[WinRate]] = {"random": [], "heuristic": []}
    for opponent in setup.opponents:
        baselines["random"].append(
            win_rate(setup, "random votes", random_chooser(0), opponent, args.games)
        )
        baselines["heuristic"].append(
            win_rate(setup, "heuristic votes", None, opponent, args.games)
        )

    policies: list[tuple[str, PolicyFile]] = []
    if args.policy is not None:
        policies.append((args.policy.name, PolicyFile.load(args.policy)))
    else:
        from mafia_arena.rl.train import train

        for seed in args.seeds:
            started = time.perf_counter()
            seeded = dataclasses.replace(spec, seed=seed)
            result = train(seeded, args.out / f"seed{seed}", track=False, log=lambda _: None)
            minutes = (time.perf_counter() - started) / 60
            print(f"trained seed {seed}: {spec.steps} decisions in {minutes:.1f} min")
            policies.append((f"policy seed {seed}", PolicyFile.load(result.policy_path)))

    beats = 0
    for label, policy in policies:
        margins = []
        for index, opponent in enumerate(setup.opponents):
            learned = win_rate(setup, label, policy.act, opponent, args.games)
            for row in (learned, baselines["heuristic"][index], baselines["random"][index]):
                print("  " + row.row())
            margin = learned.rate - baselines["heuristic"][index].rate
            margins.append(margin)
            print(f"  margin over heuristic votes vs {opponent}: {margin:+.3f}")
        ok = all(m >= 0.10 for m in margins)
        beats += ok
        print(f"{label}: {'meets' if ok else 'misses'} the +0.10 target against every opponent")
    print(f"{beats} of {len(policies)} policies meet the target")


if __name__ == "__main__":
    main()
