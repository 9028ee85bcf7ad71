"""The `Agent` protocol shared by scripted, LLM, RL and human players.

An agent receives a `View` (its seat's knowledge and the current request with its legal
choices) and returns a decision: one of the request's `Choice`s, or a `Speech` where the
request accepts free text. `act` is asynchronous so that LLM and human seats can wait
without blocking other seats; purely computational agents subclass `SyncAgent`, whose
`decide` drivers call directly. Every hook a driver uses is declared on `Agent`, so no
driver probes an agent for optional methods.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from mafia_arena.engine.choices import Decision
from mafia_arena.rules import Variant
from mafia_arena.views.shown_names import Presentation
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

    def plus(self, other: AgentStats) -> AgentStats:
        """The counters of two agents that played one seat (a person and the stand-in
        bot that played their absences), summed.

        `extra` holds the counters of both: one that both keep is summed, one that only
        either keeps is taken as it is (a policy stand-in's ``fallback_decisions``
        beside a person, who counts none). Why: the seat's header counts every decision
        made there, as its re-asks and retries already do; keeping only the first's
        would drop what the stand-in counted."""
        extra = dict(self.extra)
        for key, value in other.extra.items():
            extra[key] = extra.get(key, 0) + value
        return AgentStats(
            self.decisions + other.decisions,
            self.reasks + other.reasks,
            self.retries + other.retries,
            self.fallbacks + other.fallbacks,
            self.tokens_in + other.tokens_in,
            self.tokens_out + other.tokens_out,
            self.cost + other.cost,
            self.latency_s + other.latency_s,
            extra,
        )

    def to_json(self) -> dict[str, Any]:
        """The counters a game log's header records (``meta.agent_stats``).

        `latency_s` is left out: it is measured wall time, so two plays of one game with
        the same decisions would log different bytes, and a log must be a function of
        the game. Each decision's latency is in its trace (the log's sidecar), the one
        stored file that holds measured times; `latency_s` stays on the object for
        callers that time a run.

        The agent's own further counters (`extra`: a trained policy's
        ``policy_decisions`` and ``fallback_decisions``, an LLM player's belief calls)
        are under ``extra``, sorted by name, each whole number as an integer
        (`extra_json`). The key is there only when the agent counted something, so the
        header of an agent that keeps no such counter is the one it always was."""
        out: dict[str, Any] = {
            "decisions": self.decisions,
            "reasks": self.reasks,
            "retries": self.retries,
            "fallbacks": self.fallbacks,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost": round(self.cost, 8),
        }
        if self.extra:
            out["extra"] = extra_json(self.extra)
        return out


def extra_json(extra: Mapping[str, float]) -> dict[str, int | float]:
    """`extra` counters as stored: sorted by name, a whole number as an integer (``3``,
    not ``3.0``, whether the agent counted in ints or floats), any other rounded like
    ``cost``. Why: the same counts give the same bytes in logs and records whichever
    way an agent adds them up."""
    return {
        key: int(value) if float(value).is_integer() else round(float(value), 8)
        for key, value in sorted(extra.items())
    }


@runtime_checkable
class Agent(Protocol):
    """A player: every hook a driver (runner, web app, tournament worker) calls.

    `name` identifies it in results; `kind` is scripted/llm/rl/human. Subclass
    `AgentBase` (or `SyncAgent`) to get the defaults of every optional hook.
    """

    name: str
    kind: str
    stats: AgentStats

    @property
    def synchronous(self) -> bool:
        """True when `decide` answers at once: drivers then call it instead of `act`
        (`play_match_sync` needs every seat synchronous)."""
        ...

    @property
    def beliefs(self) -> Sequence[Mapping[str, Any]]:
        """Beliefs the agent stated this game (LLM players with ``state_beliefs``), each
        with ``seq`` and ``seat``; the runner copies them to ``log.meta["beliefs"]``."""
        ...

    @property
    def traces(self) -> Sequence[Mapping[str, Any]]:
        """Decision traces kept this game (LLM players), each with ``seq`` and ``seat``;
        the runner copies them to ``log.traces`` (beside the log, never shown to a seat)."""
        ...

    def reset(self, seat: int, seed: int) -> None:
        """Called once before a game with the seat it plays and that seat's own seed.

        The seed is derived from the game seed with a key only the host holds
        (`mafia_arena.seat_seeds`): it seeds the agent's own randomness and tells
        nothing about the deal."""
        ...

    def set_variant(self, variant: Variant) -> None:
        """The exact variant of the coming game (switches applied), after `reset`."""
        ...

    def set_presentation(self, presentation: Presentation) -> None:
        """How the game is shown to a model (the experiment's shuffled seat names), after
        `set_variant`; agents that show the game to no model ignore it."""
        ...

    def decide(self, view: View) -> Decision:
        """The decision for `view.request`, at once; only called where `synchronous`."""
        ...

    async def act(self, view: View) -> Decision:
        """The decision for `view.request` (one of its choices, or a `Speech`)."""
        ...

    def take_fallback(self) -> str | None:
        """The fallback reason of the last answer, then forgotten (None: a real answer).

        An agent that could not decide (a failed model call) returns a placeholder and
        reports the reason here; the runner then records the engine's default with it."""
        ...

    def card(self) -> Mapping[str, Any] | None:
        """The card a game log's header and its results record keep for this agent
        (LLM players: model, endpoint kind, sampling, prompt versions, local build;
        trained policies: the policy file and its sha256; `runner.match.agent_cards`);
        None for agents without one (scripted and human players)."""
        ...


class AgentBase:
    """The defaults of every `Agent` hook: asynchronous, no stated beliefs, no reported
    fallbacks, no model card; `reset` starts fresh stats and `set_variant` keeps the variant."""

    name = "agent"
    kind = "scripted"
    synchronous = False
    beliefs: Sequence[Mapping[str, Any]] = ()
    traces: Sequence[Mapping[str, Any]] = ()

    def __init__(self) -> None:
        self.stats = AgentStats()
        self.variant: Variant | None = None

    def reset(self, seat: int, seed: int) -> None:
        self.stats = AgentStats()

    def set_variant(self, variant: Variant) -> None:
        self.variant = variant

    def set_presentation(self, presentation: Presentation) -> None:
        return None

    def decide(self, view: View) -> Decision:
        raise TypeError(f"agent {self.name!r} decides asynchronously; await act()")

    async def act(self, view: View) -> Decision:
        raise NotImplementedError

    def take_fallback(self) -> str | None:
        return None

    def card(self) -> Mapping[str, Any] | None:
        return None


class SyncAgent(AgentBase):
    """Base for agents that decide instantly; drivers call `decide` directly."""

    name = "sync"
    synchronous = True

    def decide(self, view: View) -> Decision:
        raise NotImplementedError

    async def act(self, view: View) -> Decision:
        return self.decide(view)


def all_synchronous(agents: Iterable[Agent]) -> bool:
    """Whether every agent decides at once (then a game needs no event loop)."""
    return all(agent.synchronous for agent in agents)
