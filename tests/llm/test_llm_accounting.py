"""UsageCounter sums CallStats per agent and merges into per-game/tournament totals."""

from __future__ import annotations

import json
import threading

from mafia_arena.llm import CallStats, UsageCounter


def test_add_and_merge() -> None:
    agent = UsageCounter()
    agent.add(CallStats(prompt_tokens=10, completion_tokens=5, latency_s=0.5, cost=0.1, requests=1))
    agent.add(
        CallStats(
            prompt_tokens=20,
            completion_tokens=0,
            latency_s=1.0,
            requests=3,
            reasks=1,
            retries=1,
            fallback=True,
            error_kind="timeout",
        )
    )
    assert agent.calls == 2 and agent.total_tokens == 35
    assert agent.fallbacks == 1 and agent.errors == {"timeout": 1}

    game = UsageCounter()
    game.merge(agent)
    game.merge(agent)
    snapshot = game.as_dict()
    assert snapshot["calls"] == 4 and snapshot["requests"] == 8 and snapshot["reasks"] == 2
    assert snapshot["cost"] == 0.2 and snapshot["errors"] == {"timeout": 2}
    json.dumps(snapshot)  # serialisable for result files


def test_the_causes_of_retries_and_re_asks_are_summed_and_merged() -> None:
    """Each call's split by cause adds up in the counter, and in a merge, as the
    totals do: every cause's counts sum to ``retries`` and ``reasks``."""
    agent = UsageCounter()
    agent.add(
        CallStats(
            requests=4,
            retries=2,
            reasks=1,
            retry_causes=(("rate_limit", 1), ("timeout", 1)),
            reask_causes=(("invalid_answer", 1),),
        )
    )
    agent.add(CallStats(requests=2, retries=1, retry_causes=(("rate_limit", 1),)))
    assert agent.retry_causes == {"rate_limit": 2, "timeout": 1}
    game = UsageCounter()
    game.merge(agent)
    game.merge(agent)
    snapshot = game.as_dict()
    assert snapshot["retry_causes"] == {"rate_limit": 4, "timeout": 2}
    assert snapshot["reask_causes"] == {"invalid_answer": 2}
    assert sum(snapshot["retry_causes"].values()) == snapshot["retries"]
    assert sum(snapshot["reask_causes"].values()) == snapshot["reasks"]
    json.dumps(snapshot)


def test_add_is_thread_safe() -> None:
    counter = UsageCounter()
    stats = CallStats(prompt_tokens=1, completion_tokens=1, requests=1)

    def work() -> None:
        for _ in range(2000):
            counter.add(stats)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counter.calls == 8000 and counter.total_tokens == 16000
