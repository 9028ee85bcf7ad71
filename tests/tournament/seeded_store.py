"""A small scripted tournament played in-process, and its leaderboard, from the command line.

Run as ``python -m tests.tournament.seeded_store FOLDER`` by
`test_hash_seed_independence.py`, in processes started with different hash seeds
(`tests.hash_seeds`): in FOLDER it writes `SPEC` as ``spec.toml``, plays it into
``results`` (the fixed host key, no MLflow) and writes the board to ``board``, with the
same relative paths in every folder, so the commands the board's README records are the
same too.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.host_key import with_host_key

from mafia_arena.cli import main

SPEC = """\
name = "hash-seeds"
description = "Scripted players on every variant with rules held in sets of names."
base_seed = 5
games = 2
seating = "balanced"
pool = ["random", "heuristic", "heuristic:liar"]

[concurrency]
batch_size = 2

[[variants]]
variant = "standard"
players = 7
set = { discussion_order = "random", vote_intentions = true, ballot = "sequential", abstain = true }

[[variants]]
variant = "club"
players = 16

[[variants]]
variant = "palermo"
players = 12

[[variants]]
variant = "dictator"
players = 12

[[variants]]
variant = "classic"
players = 10
seating = "random"
"""


def run(argv: list[str]) -> None:
    """One command of the command line; exits unless it succeeded."""
    try:
        main(argv)
    except SystemExit as done:
        if done.code:
            raise


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    os.chdir(folder)
    Path("spec.toml").write_text(SPEC, encoding="utf-8")
    with_host_key(Path("results"))
    run(["tournament", "spec.toml", "--no-ray", "--no-tracking", "--results", "results"])
    run(["leaderboard", "results", "--out", "board"])
