"""Driver peak memory and games per second of a scripted tournament as it grows.

Each measurement is a whole tournament in a fresh Python process (so its peak resident
memory is that tournament's alone): the scripted spec of `tournament_scaling.py`
(simple, standard and classic at 7 players, random and heuristic agents), MLflow off,
played on a local Ray with 1 or 2 workers, or in-process (``--workers 0``). The child
reports the driver's peak RSS (``ru_maxrss``; Ray's own processes are not counted) and
`Summary.games_per_s`.

    python benchmarks/tournament_memory.py [--games 10000 100000] [--workers 1 2]
        [--batch 100]

Targets (issue "speed"): 2 Ray workers >= 1.8x one worker; driver peak memory at
100,000 games within 1.2x of that at 10,000. Each game stores its log (about 30 KB) in a
temporary folder, so 100,000 games need about 3 GB of free disk.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tournament_scaling import SPEC

CHILD = """
import json, resource, sys
from mafia_arena.experiments import run_tournament

spec, results, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
if workers:
    import ray

    ray.init(num_cpus=workers, include_dashboard=False, logging_level="warning")
summary = run_tournament(
    spec, use_ray=bool(workers), results_dir=results, track=False, progress=False
)
peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"games_per_s": summary.games_per_s, "peak_mib": peak_kib / 1024}))
"""


def measure(total: int, workers: int, batch: int, root: Path) -> dict[str, float]:
    """One tournament of `total` games (split over the spec's 3 variants) in a child."""
    folder = root / f"{total}-{workers}"
    folder.mkdir()
    spec = folder / "spec.toml"
    spec.write_text(SPEC.format(games=total // 3, batch=batch))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(spec), str(folder / "results"), str(workers)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"tournament of {total} games failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="+", type=int, default=[10_000, 100_000])
    parser.add_argument("--workers", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--batch", type=int, default=100)
    args = parser.parse_args()
    print(f"{'games':>8} {'workers':>7} {'games/s':>9} {'driver peak MiB':>16}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for total in args.games:
            for workers in args.workers:
                row = measure(total, workers, args.batch, Path(tmp))
                print(
                    f"{3 * (total // 3):8d} {workers:7d} {row['games_per_s']:9.1f} "
                    f"{row['peak_mib']:16.1f}",
                    flush=True,
                )
                shutil.rmtree(Path(tmp) / f"{total}-{workers}")  # 100,000 logs: gigabytes


if __name__ == "__main__":
    main()
