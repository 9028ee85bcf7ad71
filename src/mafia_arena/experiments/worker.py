"""The task body: play a batch of games of one matchup and return their records and logs.

`play_batch` is what a Ray task runs (and what the in-process driver calls directly).
It is idempotent: every game's seed and seating are recomputed from the base seed and
the game index, so a retried or re-run batch plays exactly the same games. It returns
data and writes nothing; the driver alone stores results (workers may be on other
machines). It imports neither Ray nor MLflow, so a worker starts light.

Games are isolated: a game that raises becomes a ``{"failed": {"game_index", "seed",
"error"}}`` item and the other games of the batch are returned as usual, so one bad
game never keeps its batch out of the store (a re-run plays only the games not stored).
The errors worth retrying (`RETRYABLE`: an endpoint hiccup) still fail the whole task,
which Ray retries.

Scripted tables use `play_match_sync`. If any seat of the batch is async (an LLM), the
whole batch runs in one event loop, its games concurrently, with the LLM requests in
flight per endpoint capped at the smaller of the spec's `llm_in_flight` and the agent
file's ``max_concurrency`` (what the endpoint can serve): the shared endpoint semaphore
is created first with that limit, so it is the one every client of the loop uses.
"""

from __future__ import annotations

import asyncio
import json
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from mafia_arena.agents.base import Agent, all_synchronous
from mafia_arena.agents.registry import make_agent
from mafia_arena.experiments.errors import TransientError
from mafia_arena.experiments.faults import FaultPlan
from mafia_arena.experiments.plan import Matchup, game_seed
from mafia_arena.experiments.records import build_record
from mafia_arena.experiments.seating import seat_agents
from mafia_arena.rules import Variant, load_variant
from mafia_arena.runner.integrity import VOID_THRESHOLD
from mafia_arena.runner.match import MatchResult, play_match, play_match_sync


@dataclass(frozen=True)
class BatchJob:
    experiment: str
    spec_hash: str
    base_seed: int
    matchup: Matchup
    indices: Sequence[int]
    llm_in_flight: int = 4
    decision_timeout_s: float | None = None
    fault: FaultPlan | None = None
    host_key: bytes | None = None
    """Derives every seat's own seed (`mafia_arena.seat_seeds`); kept in the results
    folder, so a re-run batch hands the agents the same seeds."""
    void_threshold: float = VOID_THRESHOLD
    """The experiment's `void_threshold` (`runner.integrity`)."""
    variant_file: str | None = None
    """What the logs record as the matchup's variant file where it is a researcher's own
    (``meta["variant_file"]``, `input_files.reference_from`: a path from the logs
    folder where the file lies in the project), instead of its absolute path."""


RETRYABLE: tuple[type[Exception], ...] = (TransientError, ConnectionError, TimeoutError)


def failure(index: int, seed: int, error: BaseException | str) -> dict[str, Any]:
    """The item of a game that raised: its index, seed and the error (short traceback)."""
    text = error if isinstance(error, str) else _describe(error)
    return {"failed": {"game_index": index, "seed": seed, "error": text}}


def _describe(error: BaseException) -> str:
    lines = traceback.format_exception(type(error), error, error.__traceback__, limit=-6)
    return "".join(lines).strip()


@lru_cache(maxsize=32)
def _variant(source: str, overrides: str) -> Variant:
    return load_variant(source, json.loads(overrides))


def play_batch(job: BatchJob) -> list[dict[str, Any]]:
    """Play `job.indices`; return, in index order, ``{"record": {...}, "log": "<jsonl>",
    "traces": "<jsonl>"}`` (traces: the decision-trace sidecar's text, "" without LLM
    seats) per finished game and ``{"failed": {...}}`` per game that raised (module docstring)."""
    matchup = job.matchup
    variant = _variant(matchup.variant_source, json.dumps(matchup.overrides, sort_keys=True))
    targets = {a.label: a.target for a in matchup.pool}
    tables: list[tuple[int, int, list[Agent]]] = []
    out: dict[int, dict[str, Any]] = {}
    for index in job.indices:
        seed = game_seed(job.base_seed, index)
        try:
            labels = seat_agents(matchup, index, job.base_seed, variant)
            tables.append((index, seed, [make_agent(targets[label]) for label in labels]))
        except RETRYABLE:
            raise
        except Exception as exc:
            out[index] = failure(index, seed, exc)
    if job.fault is not None:
        job.fault.before_batch(job.indices)
    if all(all_synchronous(agents) for _, _, agents in tables):
        results: list[MatchResult | BaseException] = []
        for index, seed, agents in tables:
            try:
                if job.fault is not None:
                    job.fault.before_game(index)
                results.append(
                    play_match_sync(
                        variant,
                        agents,
                        seed,
                        matchup.overrides,
                        host_key=job.host_key,
                        void_threshold=job.void_threshold,
                        shuffle_names=matchup.shuffle_names,
                        shuffle_options=matchup.shuffle_options,
                    )
                )
            except RETRYABLE:
                raise
            except Exception as exc:
                results.append(exc)
            if job.fault is not None:
                job.fault.after_game()
    else:
        results = asyncio.run(_play_async(job, variant, tables))
    for (index, seed, agents), result in zip(tables, results, strict=True):
        if isinstance(result, RETRYABLE):
            raise result
        if isinstance(result, BaseException):
            out[index] = failure(index, seed, result)
            continue
        if job.variant_file is not None and result.log.meta.get("variant_file"):
            result.log.meta["variant_file"] = job.variant_file  # an own file: as it travels
        try:
            record = build_record(
                experiment=job.experiment,
                spec_hash=job.spec_hash,
                game_index=index,
                seed=seed,
                variant=variant,
                agents=agents,
                result=result,
                switches=matchup.overrides,
            )
            # the code that played it, which the driver checks against its own
            record["code"] = dict(result.log.meta.get("code") or {})
            out[index] = {
                "record": record,
                "log": result.log.to_jsonl(),
                "traces": result.log.traces_jsonl(),
            }
        except Exception as exc:
            out[index] = failure(index, seed, exc)
    return [out[index] for index in sorted(out)]


async def _play_async(
    job: BatchJob, variant: Variant, tables: list[tuple[int, int, list[Agent]]]
) -> list[MatchResult | BaseException]:
    _cap_endpoints(job.matchup, job.llm_in_flight)

    async def one(index: int, seed: int, agents: list[Agent]) -> MatchResult:
        if job.fault is not None:
            job.fault.before_game(index)
        result = await play_match(
            variant,
            agents,
            seed,
            job.matchup.overrides,
            decision_timeout=job.decision_timeout_s,
            void_threshold=job.void_threshold,
            host_key=job.host_key,
            shuffle_names=job.matchup.shuffle_names,
            shuffle_options=job.matchup.shuffle_options,
        )
        if job.fault is not None and job.fault.sleep_per_game_s:
            await asyncio.sleep(job.fault.sleep_per_game_s)
        return result

    games = (one(index, seed, agents) for index, seed, agents in tables)
    return list(await asyncio.gather(*games, return_exceptions=True))


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
