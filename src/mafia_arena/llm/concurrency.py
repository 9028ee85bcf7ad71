"""Per-endpoint limits on requests in flight, shared by every client in the process.

Contract
--------
* :func:`endpoint_semaphore` returns the one :class:`asyncio.Semaphore` for an endpoint key
  (the agent's ``base_url``; ``"local"`` for the embedded server) in the running event
  loop. All :class:`~mafia_arena.llm.client.ChatClient` instances that talk to the same
  endpoint therefore share one limit, whatever agent they serve.
* The first caller for an endpoint fixes its limit (its definition's ``max_concurrency``);
  later callers asking for a different limit get the existing semaphore and a debug log
  line. Give agents on one endpoint the same ``max_concurrency``.
* Semaphores are kept per event loop (asyncio primitives must not cross loops) and are
  dropped with their loop. A process running several loops in several threads therefore
  has one limit per loop.

Why: a tournament runs many games concurrently; without a shared cap, 8 agents x 20 games
would open 160 connections to one small local server or blow a provider's rate limit,
turning throughput into 429s and timeouts.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref

__all__ = ["endpoint_semaphore"]

_log = logging.getLogger(__name__)
_lock = threading.Lock()
_by_loop: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[str, tuple[int, asyncio.Semaphore]]
] = weakref.WeakKeyDictionary()


def endpoint_semaphore(endpoint: str, limit: int) -> asyncio.Semaphore:
    """The shared semaphore of ``endpoint`` in the running loop (created with ``limit``)."""
    if limit < 1:
        raise ValueError("limit must be >= 1")
    loop = asyncio.get_running_loop()
    with _lock:
        table = _by_loop.setdefault(loop, {})
        entry = table.get(endpoint)
        if entry is None:
            entry = (limit, asyncio.Semaphore(limit))
            table[endpoint] = entry
        elif entry[0] != limit:
            _log.debug(
                "endpoint %s already limited to %d requests in flight; ignoring %d",
                endpoint,
                entry[0],
                limit,
            )
        return entry[1]
