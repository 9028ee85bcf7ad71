"""The two runners record the same game in the same log: the answers to a simultaneous
request are logged in seat order whether `play_match_sync` or `play_match` plays it."""

from __future__ import annotations

import asyncio

import pytest
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match, play_match_sync
from mafia_arena.seating import seat_agents


@pytest.mark.parametrize("seed", [0, 2, 3])
def test_a_secret_ballot_asked_in_speaking_order_logs_the_same_in_both_runners(
    seed: int,
) -> None:
    """Club's simultaneous ballot asks its voters in speaking order, not seat order."""
    switches = {"ballot": "simultaneous"}
    rules = load_variant("club", switches)
    agents = "heuristic,heuristic:liar,random"
    synced = play_match_sync(
        rules, seat_agents(agents, 12, rules), seed, switches, host_key=FIXED_HOST_KEY
    )
    awaited = asyncio.run(
        play_match(rules, seat_agents(agents, 12, rules), seed, switches, host_key=FIXED_HOST_KEY)
    )
    assert synced.log.to_jsonl() == awaited.log.to_jsonl()
