"""A circuit breaker per endpoint, shared by every client in the process.

Contract
--------
* :func:`endpoint_breaker` returns the one :class:`CircuitBreaker` of an endpoint key
  (the agent's ``base_url``); the first caller fixes its threshold and cool-down.
* ``record_failure()`` after a request that failed in transport (timeout, connection,
  HTTP 429 or 5xx); ``record_success()`` after any answer. After ``failures``
  consecutive failures the breaker *opens*: for ``cooldown_s`` seconds
  :meth:`CircuitBreaker.allow` is False and callers fail at once with the
  ``circuit_open`` kind instead of waiting for another timeout. When the cool-down has
  passed requests go through again (half-open); the first success closes the breaker,
  the first failure opens it for another cool-down.
* Thread-safe; the state is plain data, so it is shared across event loops.
  :func:`reset_breakers` forgets every breaker (between test cases, or after an
  operator fixed an endpoint).

Why: with a dead or hanging endpoint every decision would cost ``timeout_s`` times
``max_retries + 1`` (five minutes with the shipped OpenAI settings), and every seat of
every game in flight would pay it. One open breaker turns that into immediate,
correctly attributed infrastructure fallbacks.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["CircuitBreaker", "endpoint_breaker", "reset_breakers"]


@dataclass
class CircuitBreaker:
    """Consecutive-failure breaker of one endpoint; see the module docstring."""

    failures: int
    cooldown_s: float
    clock: Callable[[], float] = time.monotonic
    consecutive: int = 0
    opened_at: float | None = None
    times_opened: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def is_open(self) -> bool:
        """True while the breaker refuses requests."""
        with self._lock:
            return self._open_now()

    def _open_now(self) -> bool:
        return self.opened_at is not None and self.clock() - self.opened_at < self.cooldown_s

    def allow(self) -> bool:
        """Whether a request may be sent now."""
        return not self.is_open

    def record_success(self) -> None:
        with self._lock:
            self.consecutive = 0
            self.opened_at = None

    def record_failure(self) -> None:
        with self._lock:
            self.consecutive += 1
            if self.consecutive >= self.failures and not self._open_now():
                self.opened_at = self.clock()
                self.times_opened += 1


_lock = threading.Lock()
_breakers: dict[str, CircuitBreaker] = {}


def endpoint_breaker(endpoint: str, failures: int, cooldown_s: float) -> CircuitBreaker:
    """The shared breaker of ``endpoint`` (created with these settings on first use)."""
    with _lock:
        breaker = _breakers.get(endpoint)
        if breaker is None:
            breaker = _breakers[endpoint] = CircuitBreaker(failures, cooldown_s)
        return breaker


def reset_breakers() -> None:
    """Forget every endpoint's breaker."""
    with _lock:
        _breakers.clear()
