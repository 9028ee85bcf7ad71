"""Per-call accounting of LLM use, and a counter that sums it.

Contract
--------
* Every :class:`~mafia_arena.llm.client.ChatClient` call returns a frozen :class:`CallStats`:
  tokens as reported by the endpoint (summed over every request of the call, re-asks and
  retries included; 0 when the endpoint reports no usage), wall-clock latency of the whole
  call, cost from the agent's prices, how many requests, re-asks and retries it took,
  whether it ended in a fallback and, if so, why (``error_kind``).
* ``retry_causes`` and ``reask_causes`` split ``retries`` and ``reasks`` by cause, as
  ``(cause, count)`` pairs sorted by cause (:func:`causes`), each summing to its
  total. A retry's cause is the error kind of the request that failed (``timeout``,
  ``connection``, ``rate_limit``, ``server_error``, ``endpoint_error``), or
  ``response_format`` for the request sent again in llama.cpp's dialect after the
  endpoint refused ``json_schema``; a re-ask's is what was wrong with the answer
  (``invalid_answer``, a refusal included, or ``empty_answer``). Why: a decision that
  took five requests because of a flaky proxy and one that took five because the
  model kept naming no option cost alike; only the causes tell which of the two the
  endpoint or the model is to answer for.
* Every fallback kind is attributed (:func:`attribution`) to ``"infrastructure"`` (the
  network, the endpoint, its rate limits, an error or empty body the endpoint sent as
  an answer, the circuit breaker, the game's failure budget or its decision time limit:
  nothing the model chose) or ``"model"`` (the model answered, but nothing legal
  or nothing at all: ``invalid_answer``, ``empty_answer``, and the runner's ``illegal``).
  Ratings may charge a model for the second, never for the first.
* ``usage_estimated`` counts requests whose reply carried no ``usage``: their tokens are
  estimated from the characters sent and received (:func:`estimate_tokens`) instead of
  silently counting zero.
* :class:`UsageCounter` sums :class:`CallStats`. Each client owns one (per agent); a game
  runner can keep its own per game and ``add`` the stats of the results it receives, and
  counters ``merge`` for per-tournament totals. ``add`` is thread-safe. It sums the
  causes too (``retry_causes``, ``reask_causes``: a count per cause, each summing to
  ``retries`` or ``reasks``), so an agent's totals say what its retries were for.

Why: rating LLM players is only meaningful next to what they cost (tokens, money, time)
and how often they failed to produce a legal move; these numbers go on the leaderboard.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

__all__ = [
    "ERROR_KINDS",
    "INFRASTRUCTURE_KINDS",
    "MODEL_KINDS",
    "Attribution",
    "CallStats",
    "ErrorKind",
    "UsageCounter",
    "attribution",
    "causes",
    "estimate_tokens",
]

#: Why a call ended in a fallback. Transport kinds come from the endpoint or network
#: (``endpoint_error``: an HTTP 200 whose body is an error object or has no choices, so
#: no model answered); ``cancelled``: the caller stopped waiting (the game's decision
#: time limit); ``invalid_answer``/``empty_answer`` mean the model's content stayed
#: unusable after every re-ask.
ErrorKind = Literal[
    "timeout",
    "connection",
    "rate_limit",
    "server_error",
    "bad_request",
    "auth",
    "endpoint_error",
    "circuit_open",
    "budget_spent",
    "cancelled",
    "invalid_answer",
    "empty_answer",
    "error",
]
ERROR_KINDS: tuple[str, ...] = get_args(ErrorKind)

#: Who a fallback is charged to.
Attribution = Literal["infrastructure", "model"]

#: Fallback kinds the model answered for (the runner's ``illegal`` too: a move the
#: rules refused). Everything else, unknown kinds included, is infrastructure: a
#: rating must never charge a model for a failure it may not have caused.
MODEL_KINDS: frozenset[str] = frozenset({"invalid_answer", "empty_answer", "illegal"})
INFRASTRUCTURE_KINDS: frozenset[str] = frozenset(ERROR_KINDS) - MODEL_KINDS

#: Characters per token of the usage estimate (English text, BPE tokenisers).
CHARS_PER_TOKEN = 4


def attribution(kind: str) -> Attribution:
    """``"model"`` or ``"infrastructure"`` for a fallback kind or reason.

    Accepts a bare kind (``timeout``) or a recorded fallback reason (``llm:timeout``).
    """
    bare = kind.rsplit(":", 1)[-1]
    return "model" if bare in MODEL_KINDS else "infrastructure"


def causes(counts: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    """``counts`` as :class:`CallStats` keeps them: ``(cause, count)`` pairs sorted by
    cause, zero counts left out (the same counts always give the same value)."""
    return tuple((cause, count) for cause, count in sorted(counts.items()) if count)


def estimate_tokens(chars: int) -> int:
    """Tokens of a text of ``chars`` characters, for replies that report no usage."""
    return (chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


@dataclass(frozen=True, slots=True)
class CallStats:
    """What one ``complete``/``choose`` call consumed and how it ended."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cost: float = 0.0
    requests: int = 0
    reasks: int = 0
    retries: int = 0
    fallback: bool = False
    error_kind: ErrorKind | None = None
    usage_estimated: int = 0
    #: ``retries`` and ``reasks`` by cause (module docstring, :func:`causes`)
    retry_causes: tuple[tuple[str, int], ...] = ()
    reask_causes: tuple[tuple[str, int], ...] = ()

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def attribution(self) -> Attribution | None:
        """Who the fallback is charged to; None when the call did not fall back."""
        return attribution(self.error_kind) if self.error_kind is not None else None


@dataclass
class UsageCounter:
    """Running totals of :class:`CallStats`."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cost: float = 0.0
    requests: int = 0
    reasks: int = 0
    retries: int = 0
    fallbacks: int = 0
    usage_estimated: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    #: ``retries`` and ``reasks`` by cause, summed over the calls (module docstring)
    retry_causes: Counter[str] = field(default_factory=Counter)
    reask_causes: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(
        default_factory=threading.Lock, init=False, repr=False, compare=False
    )

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, stats: CallStats) -> None:
        """Count one call."""
        with self._lock:
            self.calls += 1
            self.prompt_tokens += stats.prompt_tokens
            self.completion_tokens += stats.completion_tokens
            self.latency_s += stats.latency_s
            self.cost += stats.cost
            self.requests += stats.requests
            self.reasks += stats.reasks
            self.retries += stats.retries
            self.usage_estimated += stats.usage_estimated
            if stats.fallback:
                self.fallbacks += 1
            if stats.error_kind is not None:
                self.errors[stats.error_kind] += 1
            self.retry_causes.update(dict(stats.retry_causes))
            self.reask_causes.update(dict(stats.reask_causes))

    def merge(self, other: UsageCounter) -> None:
        """Add another counter's totals into this one."""
        snapshot = other.as_dict()
        with self._lock:
            self.calls += snapshot["calls"]
            self.prompt_tokens += snapshot["prompt_tokens"]
            self.completion_tokens += snapshot["completion_tokens"]
            self.latency_s += snapshot["latency_s"]
            self.cost += snapshot["cost"]
            self.requests += snapshot["requests"]
            self.reasks += snapshot["reasks"]
            self.retries += snapshot["retries"]
            self.fallbacks += snapshot["fallbacks"]
            self.usage_estimated += snapshot["usage_estimated"]
            self.errors.update(snapshot["errors"])
            self.retry_causes.update(snapshot["retry_causes"])
            self.reask_causes.update(snapshot["reask_causes"])

    def as_dict(self) -> dict[str, Any]:
        """A plain, JSON-serialisable snapshot."""
        with self._lock:
            return {
                "calls": self.calls,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "total_tokens": self.total_tokens,
                "latency_s": self.latency_s,
                "cost": self.cost,
                "requests": self.requests,
                "reasks": self.reasks,
                "retries": self.retries,
                "fallbacks": self.fallbacks,
                "usage_estimated": self.usage_estimated,
                "errors": dict(self.errors),
                "retry_causes": dict(causes(self.retry_causes)),
                "reask_causes": dict(causes(self.reask_causes)),
            }
