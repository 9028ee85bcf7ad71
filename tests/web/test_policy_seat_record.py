"""A web game's record keeps a trained policy seat's own counters, as a tournament's.

The shipped policy (`agents/rl-town-votes.toml`) plays a seat of a 7-player `standard`
game with heuristic bots; the record `web.storage.results_record` writes for it carries
the policy's split of its decisions (``extra``) and the bots' seats none.
"""

from __future__ import annotations

from pathlib import Path

from tests.host_key import FIXED_HOST_KEY

from mafia_arena.agents import make_agent
from mafia_arena.results_file import check_values
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import replay_or_why
from mafia_arena.runner.match import play_match_sync
from mafia_arena.web.storage import SeatEntry, results_record

AGENT = Path(__file__).resolve().parents[2] / "agents" / "rl-town-votes.toml"


def test_a_web_record_keeps_the_policy_seat_s_split_of_its_decisions() -> None:
    agents = [make_agent(str(AGENT)), *(make_agent("heuristic") for _ in range(6))]
    result = play_match_sync(load_variant("standard"), agents, 3, host_key=FIXED_HOST_KEY)
    game = replay_or_why(result.log)
    assert not isinstance(game, str), game
    entries = [SeatEntry(agent.name, agent.kind, agent.stats) for agent in agents]
    record = results_record(game, {}, entries, "policy-seat", None)
    check_values(record)  # what the store's readers accept
    policy, *bots = record["seats"]
    assert sorted(policy["extra"]) == ["fallback_decisions", "policy_decisions"]
    assert sum(policy["extra"].values()) == policy["decisions"] > 0
    assert all("extra" not in seat for seat in bots)
