"""The task body: play a batch of games of one matchup and return their records and logs.

`play_batch` is what a Ray task runs (and what the in-process driver calls directly).
It is idempotent: every game's seed and seating are recomputed from the base seed and
the game index, so a retried or re-run batch plays exactly the same games. It returns
data and writes nothing; the driver alone stores results (workers may be on other
machines). It imports neither Ray nor MLflow, so a worker starts light.

Scripted tables use `play_match_sync`. If any seat of the batch is async (an LLM), the
whole batch runs in one event loop, its games concurrently, with the LLM requests in
flight per endpoint capped at the smaller of the spec's `llm_in_flight` and the agent
file's ``max_concurrency`` (what the endpoint can serve): the shared endpoint semaphore
is created first with that limit, so it is the one every client of the loop uses.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from mafia_arena.agents.base import Agent, all_synchronous
from mafia_arena.agents.registry import make_agent
from mafia_arena.experiments.faults import FaultPlan
from mafia_arena.experiments.plan import Matchup, game_seed
from mafia_arena.experiments.records import build_record
from mafia_arena.experiments.seating import seat_agents
from mafia_arena.rules import Variant, load_variant
from mafia_arena.runner.match import MatchResult, play_match, play_match_sync


@dataclass(frozen=True)
class BatchJob:
    experiment: str
    spec_hash: str
    base_seed: int
    matchup: Matchup
    indices: tuple[int, ...]
    llm_in_flight: int = 4
    decision_timeout_s: float | None = None
    fault: FaultPlan | None = None
    host_key: bytes | None = None
    """Derives every seat's own seed (`mafia_arena.seat_seeds`); kept in the results
    folder, so a re-run batch hands the agents the same seeds."""


@lru_cache(maxsize=32)
def _variant(source: str, overrides: str) -> Variant:
    return load_variant(source, json.loads(overrides))


def play_batch(job: BatchJob) -> list[dict[str, Any]]:
    """Play `job.indices`; return ``[{"record": {...}, "log": "<jsonl>"}]`` in index order."""
    matchup = job.matchup
    variant = _variant(matchup.variant_source, json.dumps(matchup.overrides, sort_keys=True))
    targets = {a.label: a.target for a in matchup.pool}
    tables: list[tuple[int, int, list[Agent]]] = []
    for index in job.indices:
        seed = game_seed(job.base_seed, index)
        labels = seat_agents(matchup, index, seed, variant)
        tables.append((index, seed, [make_agent(targets[label]) for label in labels]))
    if job.fault is not None:
        job.fault.before_batch(job.indices)
    if all(all_synchronous(agents) for _, _, agents in tables):
        results = []
        for _, seed, agents in tables:
            results.append(
                play_match_sync(variant, agents, seed, matchup.overrides, host_key=job.host_key)
            )
            if job.fault is not None:
                job.fault.after_game()
    else:
        results = asyncio.run(_play_async(job, variant, tables))
    out = []
    for (index, seed, agents), result in zip(tables, results, strict=True):
        record = build_record(
            experiment=job.experiment,
            spec_hash=job.spec_hash,
            game_index=index,
            seed=seed,
            variant=variant,
            agents=agents,
            result=result,
        )
        out.append({"record": record, "log": result.log.to_jsonl()})
    return out


async def _play_async(
    job: BatchJob, variant: Variant, tables: list[tuple[int, int, list[Agent]]]
) -> list[MatchResult]:
    _cap_endpoints(job.matchup, job.llm_in_flight)

    async def one(seed: int, agents: list[Agent]) -> MatchResult:
        result = await play_match(
            variant,
            agents,
            seed,
            job.matchup.overrides,
            decision_timeout=job.decision_timeout_s,
            host_key=job.host_key,
        )
        if job.fault is not None and job.fault.sleep_per_game_s:
            await asyncio.sleep(job.fault.sleep_per_game_s)
        return result

    return list(await asyncio.gather(*(one(seed, agents) for _, seed, agents in tables)))


def _cap_endpoints(matchup: Matchup, limit: int) -> None:
    """Create each LLM endpoint's semaphore in this loop: min(spec limit, agent's own)."""
    try:
        from mafia_arena.llm.concurrency import endpoint_semaphore
        from mafia_arena.llm.definition import AgentDefinitionError, load_agent_definition
    except ImportError:  # the llm extra is not installed: no LLM agents to cap
        return
    for ref in matchup.pool:
        if not ref.is_file:
            continue
        try:
            definition = load_agent_definition(ref.target)
        except AgentDefinitionError:
            continue  # an agent file of another kind (RL checkpoint, scripted preset)
        endpoint_semaphore(definition.base_url, min(limit, definition.max_concurrency))
