"""An asyncio event loop whose clock jumps: whole timed games in no wall-clock time.

`run_on_virtual_clock(main)` runs a coroutine on `JumpingLoop`. The loop's `time()` is
a counter that starts at 0; whenever the loop would wait (no callback ready, no I/O
ready) it advances the counter to the next timer instead of sleeping. Every sleep,
timeout and `call_later` of the web driver is measured on the loop's clock
(`GameSession.now`), so a test reads exact server times — when a night began, when
its dawn came, how many seconds a page was told are left — instead of racing the wall
clock. Real I/O still works (it is polled without waiting); nothing here may wait on
a thread, which would see virtual time run away.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class _Counter:
    def __init__(self) -> None:
        self.now = 0.0


class _JumpingSelector(selectors.DefaultSelector):
    """Polls without waiting; a wait for `timeout` seconds moves the counter instead."""

    def __init__(self, counter: _Counter) -> None:
        super().__init__()
        self.counter = counter

    def select(self, timeout: float | None = None) -> list[Any]:
        ready = super().select(0)
        if ready or timeout is None or timeout <= 0:
            return ready if ready or timeout is not None else super().select(None)
        self.counter.now += timeout
        return []


class JumpingLoop(asyncio.SelectorEventLoop):
    """A selector event loop on a virtual clock (see the module)."""

    def __init__(self) -> None:
        self._counter = _Counter()
        super().__init__(selector=_JumpingSelector(self._counter))

    def time(self) -> float:
        return self._counter.now


def run_on_virtual_clock(main: Coroutine[Any, Any, T]) -> T:
    """Run `main` to completion on a fresh `JumpingLoop`."""
    with asyncio.Runner(loop_factory=JumpingLoop) as runner:
        return runner.run(main)
