"""A policy tournament's results say which policy played and with which switches, and
play again byte for byte.

The agent's name is not the weights: every record and every game log's header carries
the policy's card (the file's name and sha256, the fallback, the numpy version), so a
record or a log read apart from its results folder still names the policy. Every record
names the switches its entry sets (``overrides``), so records of one variant played with
other switches are told apart. Two runs of the same spec with the
same host key into two folders store the same records and logs, byte for byte (only the
store's own id differs), and every stored log replays. The leaderboard's model cards
show the policy's build.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
from tests.host_key import with_host_key
from tests.tournament.conftest import write_spec

from mafia_arena.experiments import read_records, run_tournament
from mafia_arena.leaderboard.render import markdown_model_cards
from mafia_arena.leaderboard.table import model_cards
from mafia_arena.runner.log import GameLog, replay_differs, replay_or_why

REPO = Path(__file__).resolve().parents[2]
AGENT = REPO / "agents" / "rl-town-votes.toml"
POLICY = REPO / "agents" / "policies" / "rl-town-votes.npz"


def _play(tmp_path: Path, folder: str) -> Path:
    spec = write_spec(
        tmp_path,
        "rl-provenance",
        f"""
base_seed = 21
games = 3
seating = "balanced"
pool = ["random", "heuristic", "{AGENT.as_posix()}"]
[[variants]]
variant = "standard"
players = 7
set = {{ discussion_rounds = 1 }}
""",
    )
    results = with_host_key(tmp_path / folder)
    summary = run_tournament(spec, use_ray=False, results_dir=results, track=False, progress=False)
    assert summary.ok
    return results


def test_a_policy_tournament_names_its_policy_and_plays_again_byte_for_byte(
    tmp_path: Path,
) -> None:
    first, second = _play(tmp_path, "first"), _play(tmp_path, "second")

    card = {
        "policy": POLICY.name,
        "policy_sha256": hashlib.sha256(POLICY.read_bytes()).hexdigest(),
        "fallback": "heuristic",
        "numpy": np.__version__,
    }
    records = read_records(first / "games.jsonl")
    assert len(records) == 3
    for record in records:
        assert record["cards"] == {"rl-town-votes": card}
        log = GameLog.load(first / record["log_path"])
        assert log.meta["cards"] == {"rl-town-votes": card}
        # the switches the entry sets, which its log's header has in force
        assert record["overrides"] == {"discussion_rounds": 1}
        assert log.overrides["discussion_rounds"] == 1
        game = replay_or_why(log, record["log_path"])
        assert not isinstance(game, str), game
        assert replay_differs(log, game) is None

    # the board's model cards show the policy's build: its file, hash, fallback, numpy
    cards = model_cards(records)
    assert list(cards["agent"]) == ["rl-town-votes"]
    assert json.loads(cards.iloc[0]["build"]) == card
    assert cards.iloc[0]["games"] == 3
    assert card["policy_sha256"] in markdown_model_cards(cards)

    assert (first / "games.jsonl").read_bytes() == (second / "games.jsonl").read_bytes()
    logs = sorted(p.name for p in (first / "logs").iterdir())
    assert logs == sorted(p.name for p in (second / "logs").iterdir())
    for name in logs:
        assert (first / "logs" / name).read_bytes() == (second / "logs" / name).read_bytes()
    manifests = [json.loads((f / "manifest.json").read_text()) for f in (first, second)]
    for manifest in manifests:
        del manifest["store_id"]  # each store's own id (it names its MLflow run)
    assert manifests[0] == manifests[1]
