"""The errors a tournament raises, each saying what to fix.

`SpecError` follows the variant loader's convention (file, dotted key, reason) so a
typo in `experiments/*.toml` is fixed without reading the driver.
"""

from __future__ import annotations

from typing import Any

from mafia_arena.sigterm import STARTING_MESSAGE


class SpecError(ValueError):
    """An experiment spec is invalid. The message names the file, the key and the reason."""

    def __init__(self, source: str, key: str, reason: str) -> None:
        self.source = source
        self.key = key
        self.reason = reason
        super().__init__(f"{source}: {key}: {reason}")


class ResultsConflict(RuntimeError):
    """The results folder holds games of another version of the spec or of the code, or
    is in use.

    Resuming into it would mix two different tournaments in one store, so the driver
    refuses and says what changed; `resume=False` archives the old store,
    `force_resume=True` resumes across a code change anyway, or choose another folder.
    """


class ServiceError(RuntimeError):
    """A service the tournament needs (the MLflow tracking server, a Ray cluster) cannot be
    reached. Raised by the checks that run before anything is written."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) stopped a tournament; `games_stored` games of its
    `games_total` are stored and the same call resumes with the rest. Stopped while
    starting (`while_starting`: before any game of the run was played), both are None:
    the spec or the store may not have been read yet."""

    def __init__(self, games_stored: int | None, games_total: int | None) -> None:
        if games_stored is None:
            message = STARTING_MESSAGE
        else:
            message = f"{games_stored} games stored; run the same command to resume"
        super().__init__(message)
        self.games_stored = games_stored
        self.games_total = games_total

    @classmethod
    def while_starting(cls) -> Interrupted:
        """Stopped before the run played any game: nothing of it was stored."""
        return cls(None, None)


class TransientError(RuntimeError):
    """A failure worth retrying (an endpoint hiccup); Ray retries tasks that raise it."""


class TournamentError(RuntimeError):
    """Some games failed for good (after retries). Stored games are kept and resumable.

    `summary` holds the `Summary` of the run, `failed` maps game index to the error.
    """

    def __init__(self, message: str, summary: Any) -> None:
        super().__init__(message)
        self.summary = summary
        self.failed: dict[int, str] = dict(getattr(summary, "failed", {}))
