"""Tables with an async (LLM-like) agent: one event loop per batch, games concurrent."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.host_key import with_host_key
from tests.tournament.conftest import write_spec

from mafia_arena.agents import registry
from mafia_arena.agents.base import AgentBase, AgentStats
from mafia_arena.agents.random_agent import RandomAgent
from mafia_arena.experiments import load_spec, read_records, run_tournament
from mafia_arena.experiments.plan import batches


class SlowThinker(AgentBase):
    """An async agent (not a SyncAgent) that waits like an LLM call, then plays randomly."""

    name = "slow-thinker"
    kind = "llm"
    active = 0
    most_active = 0

    def __init__(self) -> None:
        super().__init__()
        self.inner = RandomAgent()

    def reset(self, seat: int, seed: int) -> None:
        self.inner.reset(seat, seed)
        self.stats = AgentStats()

    async def act(self, view):
        cls = type(self)
        cls.active += 1
        cls.most_active = max(cls.most_active, cls.active)
        try:
            await asyncio.sleep(0.001)
            self.stats.decisions += 1
            self.stats.tokens_in += 10
            return self.inner.decide(view)
        finally:
            cls.active -= 1


SPEC = """
base_seed = 5
seating = "balanced"
[concurrency]
batch_size = 2
llm_batch_size = 4
[[variants]]
variant = "simple"
players = 5
games = 4
pool = ["random"]
[[variants]]
variant = "simple"
players = 6
games = 4
pool = ["random", "slow"]
seats = { slow = 2 }
"""


def test_async_tables_run_concurrently_and_deterministically(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(registry._SCRIPTED, "slow", SlowThinker)
    spec = write_spec(tmp_path, "mixed", SPEC)
    experiment = load_spec(spec)
    planned = batches(experiment, range(experiment.games_total), {"slow"})
    assert [tuple(b.indices) for b in planned] == [(4, 5, 6, 7), (0, 1), (2, 3)]  # slow first

    SlowThinker.most_active = 0
    first = run_tournament(
        spec, use_ray=False, results_dir=with_host_key(tmp_path / "a"), track=False, progress=False
    )
    assert first.ok and SlowThinker.most_active > 2  # seats of several games at once
    second = run_tournament(
        spec, use_ray=False, results_dir=with_host_key(tmp_path / "b"), track=False, progress=False
    )
    assert second.ok
    records = read_records(tmp_path / "a" / "games.jsonl")
    assert records == read_records(tmp_path / "b" / "games.jsonl")
    slow_seats = [s for r in records[4:] for s in r["seats"] if s["agent"] == "slow-thinker"]
    assert len(slow_seats) == 8
    assert all(
        s["agent_kind"] == "llm" and s["tokens_in"] == 10 * s["decisions"] for s in slow_seats
    )
