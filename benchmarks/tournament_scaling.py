"""Throughput of a scripted tournament: in-process, on Ray with 1 worker, with 2 workers.

Run: ``.venv/bin/python benchmarks/tournament_scaling.py [--games 400] [--batch 50]
[--repeat 3]``

Each configuration plays the same spec into fresh results folders (MLflow off: this
measures playing and storing, not tracking) `--repeat` times and reports the best games
per second over the playing phase (`Summary.games_per_s`: submission to the last stored
game, Ray start-up excluded); the best of several runs is the least disturbed by other
work on the machine, as with `timeit`. Before the Ray measurements a tiny warm-up
tournament makes the workers import the game code, so start-up is not billed to the
measured runs. All runs must store identical records; the script checks it.

Targets: Ray with 2 workers >= 1.8x Ray with 1 worker; Ray with 1 worker within 10% of
in-process.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
from pathlib import Path

from mafia_arena.experiments import read_records, run_tournament
from mafia_arena.seat_seeds import KEY_FILE

HOST_KEY = bytes(range(32))  # one host key for every results folder: the same seat seeds


def keyed(folder: Path) -> Path:
    """`folder` holding `HOST_KEY`, so every run hands the agents the same seat seeds and
    the stores can be compared (a fresh folder would get a random key)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / KEY_FILE).write_text(HOST_KEY.hex() + "\n", encoding="ascii")
    return folder


VARIANTS = ("simple", "standard", "classic")


def spec_text(
    games: int,
    batch: int,
    pool: tuple[str, ...] = ("random", "heuristic"),
    variants: tuple[str, ...] = VARIANTS,
) -> str:
    """The benchmark's tournament spec: `games` seeded games of each 7-player variant."""
    pool_list = ", ".join(f'"{name}"' for name in pool)
    head = (
        f'name = "scaling"\nbase_seed = 11\nseating = "balanced"\npool = [{pool_list}]\n'
        f"games = {games}\n\n[concurrency]\nbatch_size = {batch}\n"
    )
    return head + "".join(f'\n[[variants]]\nvariant = "{v}"\nplayers = 7\n' for v in variants)


def measure(
    spec: Path, folder: Path, *, use_ray: bool, workers: int = 1, repeat: int = 1
) -> list[float]:
    """Games per second of `repeat` full runs of `spec` into `folder`/<i>."""
    if not use_ray:
        return [
            run_tournament(
                spec, use_ray=False, results_dir=keyed(folder / str(i)), track=False, progress=False
            ).games_per_s
            for i in range(repeat)
        ]
    import ray

    ray.init(num_cpus=workers, include_dashboard=False, logging_level=logging.WARNING)
    try:
        warm = spec.with_name("warmup.toml")
        warm.write_text(
            spec.read_text()
            .replace('name = "scaling"', 'name = "warmup"')
            .replace(f"games = {_games(spec)}", f"games = {2 * workers}")
            .replace("batch_size =", "batch_size = 1 #")
        )
        run_tournament(
            warm, results_dir=folder.with_name(folder.name + "-warmup"), track=False, progress=False
        )
        return [
            run_tournament(
                spec, results_dir=keyed(folder / str(i)), track=False, progress=False
            ).games_per_s
            for i in range(repeat)
        ]
    finally:
        ray.shutdown()


def _games(spec: Path) -> int:
    for line in spec.read_text().splitlines():
        if line.startswith("games = "):
            return int(line.split("=")[1])
    raise ValueError("no games line")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=400, help="games per variant (3 variants)")
    parser.add_argument("--batch", type=int, default=50, help="games per Ray task")
    parser.add_argument("--repeat", type=int, default=3, help="runs per configuration")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        spec = root / "scaling.toml"
        spec.write_text(spec_text(args.games, args.batch))
        total = 3 * args.games
        print(
            f"scripted tournament: {total} games (simple, standard, classic at 7 players; "
            f"random and heuristic), batches of {args.batch}"
        )
        runs = {
            "in-process": measure(spec, root / "local", use_ray=False, repeat=args.repeat),
            "ray, 1 worker": measure(
                spec, root / "ray1", use_ray=True, workers=1, repeat=args.repeat
            ),
            "ray, 2 workers": measure(
                spec, root / "ray2", use_ray=True, workers=2, repeat=args.repeat
            ),
        }
        stores = [
            read_records(path)
            for path in sorted(root.glob("*/*/games.jsonl"))
            if "warmup" not in str(path)
        ]
        identical = all(s == stores[0] for s in stores) and len(stores[0]) == total
    rates = {name: max(values) for name, values in runs.items()}
    for name, values in runs.items():
        print(
            f"  {name:<15} {max(values):8.1f} games/s  (runs: "
            + ", ".join(f"{v:.1f}" for v in values)
            + ")"
        )
    one_vs_local = rates["ray, 1 worker"] / rates["in-process"]
    two_vs_one = rates["ray, 2 workers"] / rates["ray, 1 worker"]
    print(f"ray 1 worker / in-process: {one_vs_local:.2f}  (target >= 0.90)")
    print(f"ray 2 workers / 1 worker:  {two_vs_one:.2f}  (target >= 1.80)")
    print(f"identical results in all three runs: {identical}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
