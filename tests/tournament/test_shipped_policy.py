"""The shipped policy (`agents/rl-town-votes.toml`) plays in a Ray tournament."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.host_key import with_host_key
from tests.tournament.conftest import write_spec

from mafia_arena.agents.policy_file import PolicyFile
from mafia_arena.experiments import read_records, run_tournament

REPO = Path(__file__).resolve().parents[2]
AGENT = REPO / "agents" / "rl-town-votes.toml"

pytestmark = pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy")


def test_the_shipped_policy_file_matches_its_spec() -> None:
    policy = PolicyFile.load(REPO / "agents" / "policies" / "rl-town-votes.npz")
    assert policy.header["spec"].endswith("experiments/rl-town-votes.toml")
    assert (policy.header["variant"], policy.header["players"]) == ("standard", 7)
    assert policy.header["kinds"] == ["vote"] and policy.header["side"] == "town"


def test_the_shipped_policy_plays_a_ray_tournament(ray_cluster: str, tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path,
        "rl-smoke",
        f"""
base_seed = 3
games = 8
seating = "balanced"
pool = ["heuristic", "{AGENT.as_posix()}"]
[concurrency]
workers = 2
batch_size = 4
max_retries = 1
[[variants]]
variant = "standard"
players = 7
""",
    )
    summary = run_tournament(
        spec,
        address=ray_cluster,
        results_dir=with_host_key(tmp_path / "results"),
        track=False,
        progress=False,
    )
    assert summary.ok
    records = read_records(tmp_path / "results" / "games.jsonl")
    assert len(records) == 8
    rl_seats = [s for r in records for s in r["seats"] if s["agent_kind"] == "rl"]
    assert rl_seats and sum(s["decisions"] for s in rl_seats) > 0
