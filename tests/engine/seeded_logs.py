"""Seeded games of scripted players on every variant, written as logs; and their replays.

Run as a module by `test_hash_seed_independence.py` in processes started with different
hash seeds (`tests.hash_seeds`):

* ``python -m tests.engine.seeded_logs play FOLDER`` plays `CASES` with the fixed host
  key and saves each log as ``FOLDER/<case>.jsonl``;
* ``python -m tests.engine.seeded_logs replay FOLDER`` replays every log there with
  `runner.log.replay` and with ``mafia-arena replay`` (in this process) and prints one
  JSON line per log: whether the replay gives the stored events (`replay_differs`),
  the command's exit code, and the sha256 of the command's transcript.

The cases reach the rules whose bookkeeping is held in sets and dicts of names: every
variant, the largest club and Palermo tables (all club roles from 26 players on, the
Palermo vendetta window above 24), random and bidding speaking orders and intention
polls, with heuristic players whose choices read what the views say.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from tests.host_key import FIXED_HOST_KEY
from typer.testing import CliRunner

from mafia_arena.cli import app
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match_sync
from mafia_arena.runner.log import GameLog, replay, replay_differs
from mafia_arena.seating import seat_agents

AGENTS = "heuristic,random,heuristic:liar"
CASES: dict[str, tuple[str, int, dict[str, Any], int]] = {
    "simple-9": ("simple", 9, {"first_phase": "day", "reveal_on_death": False}, 1),
    "standard-8": ("standard", 8, {"discussion_order": "random", "vote_intentions": True}, 1),
    "classic-10": ("classic", 10, {"discussion_order": "bidding", "ballot": "sequential"}, 1),
    "club-34": ("club", 34, {}, 1),
    "dictator-24": ("dictator", 24, {}, 0),
    "palermo-40": ("palermo", 40, {}, 2),
}
"""Name → (variant, players, switches, seed)."""


def play(folder: Path) -> None:
    """Play every case and save its log in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, (variant, players, switches, seed) in CASES.items():
        rules = load_variant(variant, switches)
        agents = seat_agents(AGENTS, players, rules)
        result = play_match_sync(rules, agents, seed, switches, host_key=FIXED_HOST_KEY)
        result.log.save(folder / f"{name}.jsonl")


def replays(folder: Path) -> list[dict[str, Any]]:
    """For every log in `folder`: its name, `replay_differs` of its replay, and the exit
    code and transcript digest of ``mafia-arena replay``."""
    runner = CliRunner()
    found = []
    for path in sorted(folder.glob("*.jsonl")):
        log = GameLog.load(path)
        done = runner.invoke(app, ["replay", str(path)])
        found.append(
            {
                "log": path.name,
                "differs": replay_differs(log, replay(log)),
                "exit": done.exit_code,
                "matches": "replay matches the stored log" in done.output,
                "transcript": hashlib.sha256(done.output.encode()).hexdigest(),
            }
        )
    return found


def main(argv: list[str]) -> None:
    what, folder = argv[0], Path(argv[1])
    if what == "play":
        play(folder)
    else:
        for line in replays(folder):
            print(json.dumps(line, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1:])
