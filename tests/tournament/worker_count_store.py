"""A small tournament of scripted players and the shipped policy, played on a private
local Ray of a chosen number of workers, and its leaderboard, from the command line.

Run as ``python -m tests.tournament.worker_count_store FOLDER WORKERS`` by
`test_worker_count.py`: in FOLDER it writes `SPEC` with ``concurrency.workers =
WORKERS`` as ``spec.toml``, plays it into ``results`` (the fixed host key, no MLflow) on
the cluster the driver starts, and writes the board to ``board``, with the same
relative paths in every folder, so the commands the board's README records are the
same too. It also writes ``cluster.json``: the CPUs of the cluster the driver started
(read from Ray as the driver's own start returns), so a test can tell that the games
were played by that many workers.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests.host_key import with_host_key
from tests.tournament.seeded_store import run

from mafia_arena.experiments import executors

SPEC = """\
name = "worker-count"
description = "Scripted players and the shipped policy on four variants, two games a batch."
base_seed = 17
games = 4
seating = "balanced"
pool = ["random", "heuristic", "heuristic:liar"]

[concurrency]
workers = {workers}
batch_size = 2

[[variants]]
variant = "simple"
players = 5

[[variants]]
variant = "classic"
players = 7
set = {{ discussion_rounds = 1 }}

[[variants]]
variant = "standard"
players = 7
pool = ["heuristic", "{policy}"]

[[variants]]
variant = "palermo"
players = 12
"""
"""`workers` is filled in; `policy` is the shipped trained policy's agent file."""

POLICY = Path(__file__).resolve().parents[2] / "agents" / "rl-town-votes.toml"


def record_the_cluster(into: Path) -> None:
    """Make the tournament's Ray start write the CPUs of the cluster it started to
    `into`, the start itself unchanged."""
    start = executors.ensure_ray

    def started(address: str | None, num_cpus: int) -> bool:
        import ray

        ours = start(address, num_cpus)
        cpus = ray.cluster_resources().get("CPU")
        into.write_text(json.dumps({"started": ours, "cpus": cpus}), encoding="utf-8")
        return ours

    executors.ensure_ray = started


if __name__ == "__main__":
    folder, workers = Path(sys.argv[1]), int(sys.argv[2])
    folder.mkdir(parents=True, exist_ok=True)
    os.chdir(folder)
    Path("spec.toml").write_text(
        SPEC.format(workers=workers, policy=POLICY.as_posix()), encoding="utf-8"
    )
    with_host_key(Path("results"))
    record_the_cluster(Path("cluster.json").resolve())
    run(["tournament", "spec.toml", "--no-tracking", "--results", "results"])
    run(["leaderboard", "results", "--out", "board"])
