"""Driver peak memory and games per second of a scripted tournament as it grows.

Each measurement is a whole tournament in a fresh Python process (so its peak resident
memory is that tournament's alone), MLflow off unless ``--track`` (then a SQLite store in
the temporary folder), played on a local Ray with 1 or 2 workers, or in-process
(``--workers 0``). The child reports the driver's peak RSS (``ru_maxrss``; Ray's own
processes are not counted) and `Summary.games_per_s`. The default spec is the scripted
one of `tournament_scaling.py` (simple, standard and classic at 7 players, random and
heuristic agents); ``--quick`` plays `random` players on `simple` alone, which keeps
100,000 games to minutes on a small machine.

    python benchmarks/tournament_memory.py [--games 10000 100000] [--workers 1 2]
        [--batch 100] [--quick] [--track]

Targets (issue "speed"): 2 Ray workers >= 1.8x one worker; driver peak memory at
100,000 games within 1.2x of that at 10,000 (the script prints the ratio of the largest
to the smallest size per worker count). Each game stores its log (10 to 30 KB) in a
temporary folder, so 100,000 games need up to 3 GB of free disk.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tournament_scaling import VARIANTS, spec_text

CHILD = """
import json, resource, sys
from mafia_arena.experiments import run_tournament

spec, results, workers, uri = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
if workers:
    import ray

    ray.init(num_cpus=workers, include_dashboard=False, logging_level="warning")
summary = run_tournament(
    spec,
    use_ray=bool(workers),
    results_dir=results,
    track=bool(uri),
    tracking_uri=uri or None,
    progress=False,
)
peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"games_per_s": summary.games_per_s, "peak_mib": peak_kib / 1024}))
"""


def measure(
    total: int, workers: int, batch: int, root: Path, *, quick: bool, track: bool
) -> dict[str, float]:
    """One tournament of about `total` games in a child process."""
    folder = root / f"{total}-{workers}"
    folder.mkdir()
    spec = folder / "spec.toml"
    variants = 1 if quick else len(VARIANTS)
    if quick:  # random players on simple only
        spec.write_text(spec_text(total, batch, pool=("random",), variants=("simple",)))
    else:
        spec.write_text(spec_text(total // variants, batch))
    uri = f"sqlite:///{folder / 'mlflow.db'}" if track else ""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(spec), str(folder / "results"), str(workers), uri],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"tournament of {total} games failed:\n{done.stderr[-3000:]}")
    row: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    row["games"] = variants * (total // variants)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="+", type=int, default=[10_000, 100_000])
    parser.add_argument("--workers", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="random players on simple")
    parser.add_argument("--track", action="store_true", help="log to MLflow (SQLite)")
    args = parser.parse_args()
    print(f"{'games':>8} {'workers':>7} {'games/s':>9} {'driver peak MiB':>16}", flush=True)
    peaks: dict[int, list[float]] = {}
    rates: dict[int, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for total in args.games:
            for workers in args.workers:
                row = measure(
                    total, workers, args.batch, Path(tmp), quick=args.quick, track=args.track
                )
                peaks.setdefault(workers, []).append(row["peak_mib"])
                rates.setdefault(total, []).append(row["games_per_s"])
                print(
                    f"{int(row['games']):8d} {workers:7d} {row['games_per_s']:9.1f} "
                    f"{row['peak_mib']:16.1f}",
                    flush=True,
                )
                shutil.rmtree(Path(tmp) / f"{total}-{workers}")  # 100,000 logs: gigabytes
    if len(args.games) > 1:
        for workers, values in peaks.items():
            print(
                f"driver peak, {max(args.games)} / {min(args.games)} games, {workers} "
                f"worker(s): {values[-1] / values[0]:.2f}x  (target <= 1.20)"
            )
    if 1 in args.workers and 2 in args.workers:
        for total, values in rates.items():
            one, two = values[args.workers.index(1)], values[args.workers.index(2)]
            print(f"{total} games: 2 workers / 1 worker {two / one:.2f}x  (target >= 1.80)")


if __name__ == "__main__":
    main()
