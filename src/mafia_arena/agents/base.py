"""The `Agent` protocol shared by scripted, LLM, RL and human players.

An agent receives a `View` (its seat's knowledge and the current request with its legal
choices) and returns a decision: one of the request's `Choice`s, or a `Speech` where the
request accepts free text. `act` is asynchronous so that LLM and human seats can wait
without blocking other seats; purely computational agents subclass `SyncAgent`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from mafia_arena.engine.choices import Decision
from mafia_arena.views.view import View


@dataclass
class AgentStats:
    """Reliability and cost counters of one agent in one game (summed by the runner)."""

    decisions: int = 0
    reasks: int = 0
    retries: int = 0
    fallbacks: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    latency_s: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, float]:
        return {
            "decisions": self.decisions,
            "reasks": self.reasks,
            "retries": self.retries,
            "fallbacks": self.fallbacks,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost": round(self.cost, 8),
            "latency_s": round(self.latency_s, 4),
        }


@runtime_checkable
class Agent(Protocol):
    """A player. `name` identifies it in results; `kind` is scripted/llm/rl/human."""

    name: str
    kind: str
    stats: AgentStats

    async def act(self, view: View) -> Decision: ...

    def reset(self, seat: int, seed: int) -> None:
        """Called once before a game with the seat it plays and a per-seat seed."""


class SyncAgent:
    """Base for agents that decide instantly; the runner calls `decide` directly."""

    name = "sync"
    kind = "scripted"

    def __init__(self) -> None:
        self.stats = AgentStats()

    def reset(self, seat: int, seed: int) -> None:
        self.stats = AgentStats()

    def decide(self, view: View) -> Decision:
        raise NotImplementedError

    async def act(self, view: View) -> Decision:
        return self.decide(view)
