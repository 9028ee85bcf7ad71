"""Fault injection for the crash tests: kill the process running a batch, or slow games.

Read once by the driver from the environment variable ``MAFIA_ARENA_FAULT`` (JSON) and
handed to every task, so it reaches Ray workers however they were started::

    MAFIA_ARENA_FAULT='{"kill_at": 5, "marker": "<a fresh folder>/killed-once"}'
    MAFIA_ARENA_FAULT='{"sleep_per_game_s": 0.05}'
    MAFIA_ARENA_FAULT='{"crash_games": [3]}'

``kill_at``: the process that starts the batch holding game ``kill_at`` SIGKILLs itself,
once — the marker file, created atomically, records that it happened, so the retry runs
normally. On Ray that is a worker crash (Ray retries the task); in-process it kills the
driver. A marker that is there already means the kill happened, so give each run a path
of its own (a test's temporary folder): one an earlier run left at a fixed path such as
``/tmp/killed-once`` makes the run kill nothing. ``sleep_per_game_s`` makes every game
that long at least, so a test can stop a driver while games are still being played.
``crash_games``: those games raise `InjectedFault` when they start, as a bug in a game
would (the other games of the batch go on). Unset, nothing happens and nothing is paid.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass

ENV = "MAFIA_ARENA_FAULT"


class InjectedFault(RuntimeError):
    """The error a ``crash_games`` game raises."""


@dataclass(frozen=True)
class FaultPlan:
    kill_at: int | None = None
    marker: str | None = None
    sleep_per_game_s: float = 0.0
    crash_games: tuple[int, ...] = ()

    @classmethod
    def from_env(cls) -> FaultPlan | None:
        raw = os.environ.get(ENV, "").strip()
        if not raw:
            return None
        data = json.loads(raw)
        return cls(
            data.get("kill_at"),
            data.get("marker"),
            float(data.get("sleep_per_game_s", 0.0)),
            tuple(int(i) for i in data.get("crash_games", ())),
        )

    def before_batch(self, indices: Sequence[int]) -> None:
        """SIGKILL this process if the batch holds `kill_at` and it has not happened yet."""
        if self.kill_at is None or self.kill_at not in indices or not self.marker:
            return
        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.write(fd, str(os.getpid()).encode())
        os.fsync(fd)
        os.close(fd)
        os.kill(os.getpid(), signal.SIGKILL)

    def before_game(self, index: int) -> None:
        """Raise `InjectedFault` if game `index` is one of ``crash_games``."""
        if index in self.crash_games:
            raise InjectedFault(f"injected fault in game {index}")

    def after_game(self) -> None:
        if self.sleep_per_game_s > 0:
            time.sleep(self.sleep_per_game_s)
