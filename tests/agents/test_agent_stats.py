"""`AgentStats`: what a game log's header records of an agent, and of a seat two played."""

from __future__ import annotations

from mafia_arena.agents.base import AgentStats

BARE = {
    "decisions": 5,
    "reasks": 1,
    "retries": 0,
    "fallbacks": 1,
    "tokens_in": 10,
    "tokens_out": 2,
    "cost": 0.25,
}
"""The header entry of an agent that keeps no counters of its own (as it always was)."""


def test_an_agent_s_own_counters_are_logged_sorted_only_where_it_keeps_some() -> None:
    bare = AgentStats(5, 1, 0, 1, 10, 2, 0.25, latency_s=3.5)
    assert bare.to_json() == BARE
    counted = AgentStats(5, 1, 0, 1, 10, 2, 0.25, extra={"z": 2.0, "a": 0.5, "m": 3})
    logged = counted.to_json()
    assert {k: v for k, v in logged.items() if k != "extra"} == BARE
    assert list(logged["extra"].items()) == [("a", 0.5), ("m", 3), ("z", 2)]
    assert isinstance(logged["extra"]["z"], int)  # 2.0 counted in floats is written 2


def test_a_seat_two_agents_played_sums_the_counters_both_keep() -> None:
    person = AgentStats(decisions=3, extra={"policy_decisions": 2, "fallback_decisions": 1})
    stand_in = AgentStats(decisions=4, extra={"fallback_decisions": 4, "errors": 1.0})
    seat = person.plus(stand_in)
    assert seat.decisions == 7
    assert seat.extra == {"policy_decisions": 2, "fallback_decisions": 5, "errors": 1.0}
    assert person.extra == {"policy_decisions": 2, "fallback_decisions": 1}  # untouched
    assert AgentStats().plus(stand_in).extra == stand_in.extra
