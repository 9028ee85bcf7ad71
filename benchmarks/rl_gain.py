"""What training buys: a trained town policy against random and heuristic votes.

Trains from a committed spec (default `experiments/rl-town-votes.toml`) for each
training seed, then evaluates every contender on the same held-out seeded games per
opponent of the spec's pool: the trained policy, uniformly random votes, and the
heuristic's own votes (the co-player deciding). Prints win rates with 95% Wilson
intervals and the policy's margin over the heuristic per opponent and seed.

    python benchmarks/rl_gain.py                       # 1 seed, 5,000 games each
    python benchmarks/rl_gain.py --seeds 0 1 2 3 4     # the multi-seed check
    python benchmarks/rl_gain.py --policy agents/policies/rl-town-votes.npz  # no training
    python benchmarks/rl_gain.py --policy A.npz B.npz --games 2000   # side by side

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
from mafia_arena.views.encode_history import ObservationSpec

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=REPO / "experiments" / "rl-town-votes.toml")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--steps", type=int, default=None, help="override the spec's steps")
    parser.add_argument(
        "--policy", type=Path, nargs="+", default=None, help="evaluate these files, no training"
    )
    parser.add_argument(
        "--no-baselines",
        action="store_true",
        help="skip random and heuristic votes (they replay the same seeded games every run)",
    )
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
    for opponent in setup.opponents if not args.no_baselines else ():
        baselines["random"].append(
            win_rate(setup, "random votes", random_chooser(0), opponent, args.games)
        )
        baselines["heuristic"].append(
            win_rate(setup, "heuristic votes", None, opponent, args.games)
        )

    policies: list[tuple[str, PolicyFile]] = []
    if args.policy is not None:
        for path in args.policy:
            loaded = PolicyFile.load(path)
            layout = loaded.header.get("observation", {}).get("layout", "v0")
            policies.append((f"{path.stem} ({layout})", loaded))
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
        # each policy plays on the observation layout its header names (v0 when none)
        layout = ObservationSpec.from_header(policy.header.get("observation"))
        played = dataclasses.replace(
            setup,
            observation=layout.layout,
            history_days=layout.history_days,
            egocentric=layout.egocentric,
            max_players=layout.max_players,
        )
        margins = []
        for index, opponent in enumerate(setup.opponents):
            learned = win_rate(played, label, policy.act, opponent, args.games)
            print("  " + learned.row())
            if args.no_baselines:
                continue
            for row in (baselines["heuristic"][index], baselines["random"][index]):
                print("  " + row.row())
            margin = learned.rate - baselines["heuristic"][index].rate
            margins.append(margin)
            print(f"  margin over heuristic votes vs {opponent}: {margin:+.3f}")
        if args.no_baselines:
            continue
        ok = all(m >= 0.10 for m in margins)
        beats += ok
        print(f"{label}: {'meets' if ok else 'misses'} the +0.10 target against every opponent")
    if not args.no_baselines:
        print(f"{beats} of {len(policies)} policies meet the target")


if __name__ == "__main__":
    main()
