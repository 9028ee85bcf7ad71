"""Play one game with seated agents.

`play_match` is asynchronous: the requests the rules make simultaneous (night picks,
votes) are sent to their agents concurrently, so LLM calls of different seats — and of
different games in one event loop — overlap. An agent that raises, times out or returns
an illegal decision never stops the game: the seat's default is recorded as a fallback
and counted. An agent may also report a fallback itself (`take_fallback()`, LLM players
do after a failed model call): then the engine's default is recorded with that reason.
Agents that keep stated `beliefs` (LLM players with `state_beliefs`) have them copied to
`log.meta["beliefs"]`; agents that keep decision `traces` (LLM players) have them
copied to `log.traces` (stored beside the log, never shown to a seat). Every log's meta
carries the fallback record and the `void` verdict of `runner.integrity`.
`play_match_sync` is the fast path for agents that decide instantly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mafia_arena.agents.base import Agent, SyncAgent
from mafia_arena.engine.errors import IllegalDecision
from mafia_arena.engine.game import Game
from mafia_arena.rules import Variant
from mafia_arena.runner.integrity import VOID_THRESHOLD, fallback_record, void_verdict
from mafia_arena.runner.log import GameLog
from mafia_arena.views.view import SeatTracker


@dataclass
class MatchResult:
    log: GameLog
    winner: str | None
    stats: list[dict[str, Any]] = field(default_factory=list)

    @property
    def game_length(self) -> int:
        return max((e.day for e in self.log.events), default=0)


def _prepare(variant: Variant, agents: Sequence[Agent], seed: int) -> Game:
    game = Game(variant, len(agents), seed)
    for seat, agent in enumerate(agents):
        agent.reset(seat, seed)
        set_variant = getattr(agent, "set_variant", None)
        if callable(set_variant):  # LLM players describe the exact rules (switches too)
            set_variant(variant)
    return game


def _result(
    game: Game,
    agents: Sequence[Agent],
    overrides: dict[str, Any] | None,
    void_threshold: float = VOID_THRESHOLD,
) -> MatchResult:
    stats = [a.stats.to_json() for a in agents]
    meta: dict[str, Any] = {"agent_stats": stats, "agent_kinds": [a.kind for a in agents]}
    # beliefs stated by agents that keep them (LLM players with state_beliefs = true)
    beliefs = [dict(b) for a in agents for b in getattr(a, "beliefs", None) or []]
    if beliefs:
        meta["beliefs"] = sorted(beliefs, key=lambda b: (b.get("seq", 0), b.get("seat", 0)))
    record = fallback_record(e.payload for e in game.events if e.kind == "decision")
    meta["fallbacks"] = record
    reason = void_verdict(record, void_threshold)
    meta["void"] = reason is not None
    if reason is not None:
        meta["void_reason"] = reason
    traces = [dict(t) for a in agents for t in getattr(a, "traces", None) or []]
    traces.sort(key=lambda t: (t.get("seq", 0), t.get("seat", 0)))
    log = GameLog.from_game(game, overrides, [a.name for a in agents], meta, traces)
    return MatchResult(log, game.state.winner, stats)


def _reported_fallback(agent: Agent) -> str | None:
    """The fallback reason an agent reports for its last answer (LLM players do, through
    ``take_fallback``); the runner then records the engine's default with that reason."""
    take = getattr(agent, "take_fallback", None)
    return take() if callable(take) else None


def _fallback(game: Game, seat: int, agent: Agent, reason: str) -> None:
    agent.stats.fallbacks += 1
    game.submit_default(seat, reason)


def play_match_sync(
    variant: Variant,
    agents: Sequence[SyncAgent],
    seed: int,
    overrides: dict[str, Any] | None = None,
) -> MatchResult:
    """Play a game whose agents all decide synchronously (scripted players)."""
    game = _prepare(variant, agents, seed)
    trackers = [SeatTracker(s) for s in range(len(agents))]
    while not game.over:
        for seat in list(game.pending()):
            try:
                game.submit(seat, agents[seat].decide(trackers[seat].view(game)))
            except IllegalDecision:
                _fallback(game, seat, agents[seat], "illegal")
    return _result(game, agents, overrides)


async def play_match(
    variant: Variant,
    agents: Sequence[Agent],
    seed: int,
    overrides: dict[str, Any] | None = None,
    decision_timeout: float | None = None,
    on_event: Any = None,
    void_threshold: float = VOID_THRESHOLD,
) -> MatchResult:
    """Play a game, asking simultaneous requests concurrently; a game in which some
    seat's decisions were made by infrastructure fallbacks more than ``void_threshold``
    of the time is marked void (``log.meta["void"]``)."""
    game = _prepare(variant, agents, seed)
    trackers = [SeatTracker(s) for s in range(len(agents))]
    seen = 0
    while not game.over:
        pending = sorted(game.pending())
        views = {seat: trackers[seat].view(game) for seat in pending}

        async def decide(seat: int, views: dict[int, Any] = views) -> Any:
            coroutine = agents[seat].act(views[seat])
            if decision_timeout is None:
                return await coroutine
            return await asyncio.wait_for(coroutine, decision_timeout)

        outcomes = await asyncio.gather(*(decide(s) for s in pending), return_exceptions=True)
        for seat, outcome in zip(pending, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                reason = "timeout" if isinstance(outcome, TimeoutError) else "error"
                _fallback(game, seat, agents[seat], reason)
                continue
            reason = _reported_fallback(agents[seat])
            try:
                if reason:  # counted by the agent; the log gets the engine's default
                    game.submit_default(seat, reason)
                else:
                    game.submit(seat, outcome)
            except IllegalDecision:
                _fallback(game, seat, agents[seat], "illegal")
        if on_event is not None:
            for event in game.events[seen:]:
                on_event(event)
            seen = len(game.events)
    return _result(game, agents, overrides, void_threshold)
