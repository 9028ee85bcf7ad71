"""An LLM player's retries and re-asks, by cause, in its counters, its game's log header,
the results record and the tracked seat table.

Against the scripted HTTP endpoint (a real server, faults injected): each request a
decision needed beyond its first is counted in ``stats.extra`` as ``retries_<cause>``
or ``reasks_<cause>`` (``belief_`` in front for belief calls), the causes of a seat
summing to its ``retries`` and ``reasks``; the counts are exact, read off what the
server was made to do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.llm.fake_openai import (
    Action,
    FakeOpenAI,
    drop,
    error,
    error_body_200,
    garbage_body,
    reply,
)
from tests.llm_agent.support import enum_of, first_view, play, set_answer

from mafia_arena.agents import make_agent
from mafia_arena.agents.base import Agent
from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.agents.llm_shared import aclose_shared_clients
from mafia_arena.experiments.records import build_record
from mafia_arena.llm import AgentDefinition
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import GameLog
from mafia_arena.tracking.tables import seat_rows

LLM_SEATS = range(6)
NO_OPTION = '{"reason": "because", "choice": "kill P99"}'


def by_request(actions: dict[int, Action]) -> Callable[[dict[str, Any]], Action | None]:
    """The action for the n-th request (1-based) where `actions` has one, else the
    automatic legal answer."""
    count = [0]

    def answer(body: dict[str, Any]) -> Action | None:
        count[0] += 1
        return actions.get(count[0])

    return answer


async def _act(definition: AgentDefinition, kind: str) -> LLMAgent:
    view = first_view(kind)
    agent = LLMAgent(definition)
    agent.reset(view.seat, 7)
    try:
        await agent.act(view)
    finally:
        await aclose_shared_clients()
    assert agent.take_fallback() is None
    return agent


async def test_a_decisions_retries_and_re_asks_are_counted_by_cause(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    set_answer(
        fake,
        by_request(
            {
                1: drop(),  # connection lost: retried
                2: reply(NO_OPTION),  # names no option: re-asked
                3: error(503),  # the re-ask meets a server error: retried
                4: reply(""),  # says nothing: re-asked
                5: error_body_200("overloaded"),  # an error sent as HTTP 200: retried
            }
        ),
    )
    definition = fake_definition.model_copy(update={"max_retries": 2})
    agent = await _act(definition, "vote")
    stats = agent.stats
    assert (stats.retries, stats.reasks) == (3, 2)
    # the decision's trace splits its own counts by cause the same way
    (trace,) = agent.traces
    assert (trace["retries"], trace["reasks"]) == (3, 2)
    assert trace["retry_causes"] == {"connection": 1, "endpoint_error": 1, "server_error": 1}
    assert trace["reask_causes"] == {"empty_answer": 1, "invalid_answer": 1}
    assert stats.extra == {
        "retries_connection": 1,
        "retries_endpoint_error": 1,
        "retries_server_error": 1,
        "reasks_empty_answer": 1,
        "reasks_invalid_answer": 1,
    }
    assert len(fake.requests) == 6


async def test_belief_calls_count_their_causes_apart_from_the_decisions(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    """A first discussion turn with beliefs stated: the belief text, the intended vote,
    then the speech. Only the speech is the decision."""
    set_answer(
        fake,
        by_request(
            {
                1: drop(),  # the beliefs' text: retried
                3: error(500),  # the intended vote: retried
                4: reply("P2, I think"),  # no option named: re-asked
                6: error(429, **{"Retry-After": "0"}),  # the speech: retried
                7: reply(""),  # says nothing: re-asked
            }
        ),
    )
    definition = fake_definition.model_copy(update={"state_beliefs": True})
    agent = await _act(definition, "speak")
    stats = agent.stats
    assert (stats.retries, stats.reasks) == (1, 1)
    assert stats.extra == {
        "belief_calls": 1,
        "belief_reasks": 1,
        "belief_retries": 2,
        "belief_reasks_invalid_answer": 1,
        "belief_retries_connection": 1,
        "belief_retries_server_error": 1,
        "reasks_empty_answer": 1,
        "retries_rate_limit": 1,
    }
    assert agent.beliefs and agent.beliefs[0]["complete"]
    assert len(fake.requests) == 8


#: The faults a game's requests meet in turn, by the cause they are counted under.
FAULTS: list[tuple[str, Callable[[], Action]]] = [
    ("retries_connection", drop),
    ("reasks_invalid_answer", lambda: reply(NO_OPTION)),
    ("retries_server_error", lambda: error(500)),
    ("reasks_empty_answer", lambda: reply("")),
    ("retries_rate_limit", lambda: error(429, **{"Retry-After": "0"})),
    ("retries_server_error", garbage_body),
    ("retries_endpoint_error", lambda: error_body_200("overloaded")),
]
FALLBACK_OF = {
    "retries_connection": "llm:connection",
    "retries_server_error": "llm:server_error",
    "retries_rate_limit": "llm:rate_limit",
    "retries_endpoint_error": "llm:endpoint_error",
    "reasks_invalid_answer": "llm:invalid_answer",
    "reasks_empty_answer": "llm:empty_answer",
}


def every_other_request(served: Counter[str]) -> Callable[[dict[str, Any]], Action | None]:
    """The next fault of `FAULTS` on every other request, counted in `served` by cause.
    An answer naming no option waits for a request that asks for options (a speech
    cannot name none)."""
    count, turn = [0], [0]

    def answer(body: dict[str, Any]) -> Action | None:
        count[0] += 1
        cause, fault = FAULTS[turn[0] % len(FAULTS)]
        if count[0] % 2 or (cause == "reasks_invalid_answer" and enum_of(body) is None):
            return None
        turn[0] += 1
        served[cause] += 1
        return fault()

    return answer


def _llm_seats(definition: AgentDefinition) -> list[Agent]:
    return [LLMAgent(definition) if s in LLM_SEATS else make_agent("heuristic") for s in range(7)]


async def test_a_games_counts_by_cause_reach_its_log_record_and_seat_table(
    fake: FakeOpenAI, fake_definition: AgentDefinition, tmp_path: Path
) -> None:
    """Each fault served is either counted as one retry or re-ask of its cause, or is
    the failure a call ended with (a fallback of that kind in the log, after its one
    retry or two re-asks failed too)."""
    served: Counter[str] = Counter()
    set_answer(fake, every_other_request(served))
    agents = _llm_seats(fake_definition)
    result = await play(agents, seed=3)
    log = GameLog.load(result.log.save(tmp_path / "game.jsonl"))
    header = log.meta["agent_stats"]
    fallbacks = Counter(d["fallback"] for d in log.decisions if d.get("fallback"))
    counted: Counter[str] = Counter()
    for seat in LLM_SEATS:
        stats, extra = header[seat], header[seat].get("extra", {})
        retries = {k: v for k, v in extra.items() if k.startswith("retries_")}
        reasks = {k: v for k, v in extra.items() if k.startswith("reasks_")}
        assert sum(retries.values()) == stats["retries"] == agents[seat].stats.retries
        assert sum(reasks.values()) == stats["reasks"] == agents[seat].stats.reasks
        counted.update(retries)
        counted.update(reasks)
    assert set(served) == set(FALLBACK_OF)  # every cause was met
    for cause, number in served.items():
        assert counted[cause] == number - fallbacks[FALLBACK_OF[cause]], cause
    assert sum(counted.values()) > sum(fallbacks.values())

    variant = load_variant("standard", {"discussion_rounds": 1})
    record = build_record(
        experiment="retries",
        spec_hash="0" * 16,
        game_index=0,
        seed=3,
        variant=variant,
        agents=agents,
        result=result,
    )
    for seat in LLM_SEATS:
        assert record["seats"][seat]["extra"] == header[seat]["extra"]
    rows = seat_rows([record], lambda index: "llm vs heuristic")
    for row in rows[: len(LLM_SEATS)]:
        extra = header[row["seat"]]["extra"]
        assert {k: row[f"extra.{k}"] for k in extra} == extra
    assert all(not any(k.startswith("extra.") for k in row) for row in rows[len(LLM_SEATS) :])
