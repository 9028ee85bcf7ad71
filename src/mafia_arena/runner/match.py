"""Play one game with seated agents.

`play_match` is asynchronous: the requests the rules make simultaneous (night picks,
votes) are sent to their agents concurrently, so LLM calls of different seats — and of
different games in one event loop — overlap. An agent that raises, times out or returns
an illegal decision never stops the game: the seat's default is recorded as a fallback
and counted. `play_match_sync` is the fast path for agents that decide instantly.
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
    return game


def _result(game: Game, agents: Sequence[Agent], overrides: dict[str, Any] | None
            ) -> MatchResult:
    stats = [a.stats.to_json() for a in agents]
    log = GameLog.from_game(game, overrides, [a.name for a in agents],
                            {"agent_stats": stats, "agent_kinds": [a.kind for a in agents]})
    return MatchResult(log, game.state.winner, stats)


def _fallback(game: Game, seat: int, agent: Agent, reason: str) -> None:
    agent.stats.fallbacks += 1
    game.submit_default(seat, reason)


def play_match_sync(variant: Variant, agents: Sequence[SyncAgent], seed: int,
                    overrides: dict[str, Any] | None = None) -> MatchResult:
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


async def play_match(variant: Variant, agents: Sequence[Agent], seed: int,
                     overrides: dict[str, Any] | None = None,
                     decision_timeout: float | None = None,
                     on_event: Any = None) -> MatchResult:
    """Play a game, asking simultaneous requests concurrently."""
    game = _prepare(variant, agents, seed)
    trackers = [SeatTracker(s) for s in range(len(agents))]
    seen = 0
    while not game.over:
        pending = sorted(game.pending())
        views = {seat: trackers[seat].view(game) for seat in pending}

        async def decide(seat: int) -> Any:
            coroutine = agents[seat].act(views[seat])
            if decision_timeout is None:
                return await coroutine
            return await asyncio.wait_for(coroutine, decision_timeout)

        outcomes = await asyncio.gather(*(decide(s) for s in pending),
                                        return_exceptions=True)
        for seat, outcome in zip(pending, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                reason = "timeout" if isinstance(outcome, TimeoutError) else "error"
                _fallback(game, seat, agents[seat], reason)
                continue
            try:
                game.submit(seat, outcome)
            except IllegalDecision:
                _fallback(game, seat, agents[seat], "illegal")
        if on_event is not None:
            for event in game.events[seen:]:
                on_event(event)
            seen = len(game.events)
    return _result(game, agents, overrides)
