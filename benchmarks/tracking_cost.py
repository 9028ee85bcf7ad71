"""What MLflow tracking costs a tournament of many matchups: the whole command's wall time.

Run: ``.venv/bin/python benchmarks/tracking_cost.py [--matchups 100] [--repeat 3]
[--baseline-src OTHER/src]``

The spec has `--matchups` one-game matchups of scripted players, so the run is almost
all final logging: per matchup a child run (params, metrics, tags), its tables, log
archive and three plots. Each repetition runs ``mafia-arena tournament SPEC --no-ray``
as a user does, into a fresh results folder (with one host key: the same games every
time) and a fresh SQLite MLflow store, and takes its wall time; the median of the
repetitions is reported, and with the median of the same command with ``--no-tracking``
what tracking costs per matchup. With ``--baseline-src`` (the ``src`` folder of another
checkout, e.g. ``git worktree add /tmp/before <commit>``) the same command runs with that
code too, the two alternating so that both see the same load, and the ratio is printed.

Baseline (2 cores shared with other work, 40 matchups, median of 7,
alternating, one run): before a plot's figure was reused by the next plot of the same
kind and axes and a new child run got its tags with its creation, the command took
28.2 s against 25.9 s now (`BASELINE_RATIO`); see docs/tournaments.md, *MLflow*.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
HOST_KEY = bytes(range(32))
BASELINE_RATIO = 28.2 / 25.9  # the measurement in the module docstring


def spec_text(matchups: int) -> str:
    """A spec of `matchups` one-game matchups of random players on the simple variant."""
    head = 'name = "tracking-cost"\nbase_seed = 3\ngames = 1\npool = ["random"]\n'
    return head + "".join(
        f'\n[[variants]]\nvariant = "simple"\nplayers = 5\nlabel = "m{i:04d}"\n'
        for i in range(matchups)
    )


def one_run(src: Path, spec: Path, work: Path, track: bool = True) -> float:
    """Wall seconds of one tournament command with the code under `src` (tracked, or with
    ``--no-tracking``)."""
    results, store = work / "results", work / "mlflow"
    shutil.rmtree(results, ignore_errors=True)
    shutil.rmtree(store, ignore_errors=True)
    results.mkdir()
    store.mkdir()
    (results / "host_key").write_text(HOST_KEY.hex() + "\n", encoding="ascii")
    command = [sys.executable, "-m", "mafia_arena.cli", "tournament", str(spec), "--no-ray"]
    command += ["--results", str(results)]
    command += (
        ["--tracking-uri", f"sqlite:///{store / 'mlflow.db'}"] if track else ["--no-tracking"]
    )
    env = {**os.environ, "PYTHONPATH": str(src)}
    started = time.perf_counter()
    subprocess.run(command, env=env, cwd=work, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matchups", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline-src", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        spec = work / "spec.toml"
        spec.write_text(spec_text(args.matchups), encoding="utf-8")
        codes = {"now": SRC}
        if args.baseline_src is not None:
            codes["baseline"] = args.baseline_src.resolve()
        times: dict[str, list[float]] = {name: [] for name in [*codes, "untracked"]}
        for _ in range(args.repeat):
            for name, src in codes.items():  # alternating: both see the same load
                times[name].append(one_run(src, spec, work))
            times["untracked"].append(one_run(SRC, spec, work, track=False))
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, values in times.items():
        shown = ", ".join(f"{v:.1f}" for v in values)
        print(f"{name}: median {medians[name]:.1f} s over {len(values)} runs ({shown})")
    for name in codes:
        logging_s = (medians[name] - medians["untracked"]) / args.matchups
        print(f"{name}: tracking costs {logging_s:.3f} s per matchup (vs --no-tracking)")
    if "baseline" in medians:
        print(f"baseline / now: {medians['baseline'] / medians['now']:.2f}x (this run)")
    else:
        print(f"documented baseline / now: {BASELINE_RATIO:.2f}x (see the module docstring)")


if __name__ == "__main__":
    main()
