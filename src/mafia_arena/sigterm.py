"""SIGTERM as Ctrl-C: how a tournament driver stops when `kill`, ``timeout`` or a
process manager ends it.

Why a module of its own, below the command line, the driver and `local_ray`: the
command installs the handler before it imports the driver (so a SIGTERM while the
heavy imports, the spec check or the service checks run is already an interrupt), the
driver keeps it for the whole run, and the local Ray start keeps `ray.init` from
swapping it for Ray's own (`local_ray`). Python's default ends the process at once
(exit 143, nothing said, MLflow runs left ``RUNNING``); Ray's handler exits 15 with
nothing said. As a `KeyboardInterrupt` every layer's Ctrl-C path runs: Ray is shut
down, the MLflow runs end ``KILLED`` and the command says how to resume.

`interrupts_deferred` holds both signals back over a few lines that must not be cut in
the middle: a training run's files of one evaluation (an interrupt inside numpy's zip
writer left a half-made archive and a traceback at exit), a game log and its traces, a
board's renames, a results store moved aside with its logs.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

STARTING_MESSAGE = (
    "interrupted while starting, before any game was played; run the same command to start again"
)
"""What a tournament says when stopped before any game of the run was played (by the
driver's `Interrupted`, or by the command when the interrupt comes while the
experiments package itself is being imported). Here, below both, so one text serves."""


_ARRIVED: list[int] = []
"""The SIGTERMs that `_interrupt` turned into `KeyboardInterrupt`s since `take_sigterm`
(see `sigterm_arrived`)."""


def _interrupt(signum: int, frame: FrameType | None) -> None:
    _ARRIVED.append(signum)
    raise KeyboardInterrupt


def sigterm_arrived() -> bool:
    """Whether a SIGTERM arrived since `take_sigterm`, even if the `KeyboardInterrupt`
    it raised went nowhere: Python reports and drops an exception raised inside a
    `__del__`, a weak reference's callback or a garbage collection, and a library may
    catch it; a command checks this where it must not go on after a SIGTERM."""
    return bool(_ARRIVED)


def interrupt_behind(error: BaseException) -> bool:
    """Whether `error` is a `KeyboardInterrupt` or was raised from one (its chain of
    direct causes holds one): Python 3.11 turns an interrupt that lands while a class
    is made, inside a descriptor's `__set_name__` (as `dataclasses` has), into a
    `RuntimeError` raised from it."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__
    return False


def take_sigterm() -> Any:
    """Make SIGTERM raise `KeyboardInterrupt`; return the handler it replaced (None off
    the main thread, where no handler can be set)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    if not sigterm_is_interrupt():  # a nested take keeps what arrived under the outer
        _ARRIVED.clear()
    return signal.signal(signal.SIGTERM, _interrupt)


def sigterm_is_interrupt() -> bool:
    """Whether SIGTERM raises `KeyboardInterrupt` here now (`take_sigterm` is in force)."""
    return signal.getsignal(signal.SIGTERM) is _interrupt


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While inside, SIGTERM stops the process as Ctrl-C does; the previous handler is
    restored on the way out (off the main thread nothing changes: no handler can be
    set there)."""
    previous = take_sigterm()
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """While inside, Ctrl-C and SIGTERM wait: the first that arrives is delivered again
    on the way out, under the handlers that were in force before (so Ctrl-C raises
    `KeyboardInterrupt` after the block, and SIGTERM does what it would have done).
    For short blocks only: the process does not stop until the block ends. Off the main
    thread nothing changes (no handler can be set there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        arrived.append(signum)

    # Read before any is swapped: an interrupt raised by the handler not yet swapped (or
    # already given back) may land between two swaps, and must not leave `hold` in place,
    # which would swallow every later Ctrl-C or SIGTERM of the process.
    previous = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        for number in previous:
            signal.signal(number, hold)
        yield
    finally:
        _give_back(previous)
        if arrived:
            signal.raise_signal(arrived[0])


def _give_back(handlers: dict[signal.Signals, Any]) -> None:
    """Set each signal's handler in `handlers` again (None, a handler not set from Python:
    the default), every one of them even when an interrupt lands between two."""
    if not handlers:
        return
    number, handler = next(iter(handlers.items()))
    try:
        signal.signal(number, signal.SIG_DFL if handler is None else handler)
    finally:
        _give_back({n: h for n, h in handlers.items() if n != number})
