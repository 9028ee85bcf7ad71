"""The errors a tournament raises, each saying what to fix.

`SpecError` follows the variant loader's convention (file, dotted key, reason) so a
typo in `experiments/*.toml` is fixed without reading the driver.
"""

from __future__ import annotations

from typing import Any


class SpecError(ValueError):
    """An experiment spec is invalid. The message names the file, the key and the reason."""

    def __init__(self, source: str, key: str, reason: str) -> None:
        self.source = source
        self.key = key
        self.reason = reason
        super().__init__(f"{source}: {key}: {reason}")


class ResultsConflict(RuntimeError):
    """The results folder holds games of another version of the spec, or is in use.

    Resuming into it would mix two different tournaments in one store, so the driver
    refuses; `resume=False` archives the old store, or choose another results folder.
    """


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
