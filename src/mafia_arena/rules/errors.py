"""The one error a broken variant file produces."""

from __future__ import annotations

from typing import Any


class VariantError(ValueError):
    """A variant file or override is invalid.

    The message always names the file, the key (a dotted path) and the reason, so a
    user who edits `envs/*.toml` can fix it without reading the engine.
    """

    def __init__(self, source: str, key: str, reason: str) -> None:
        self.source = source
        self.key = key
        self.reason = reason
        self.overrides: dict[str, Any] = {}
        """The switches the error comes from, where the caller asked (`rules.table`)."""
        self.players: int | None = None
        """The player count whose deal failed, where the error came from a deal."""
        super().__init__(f"{source}: {key}: {reason}")
