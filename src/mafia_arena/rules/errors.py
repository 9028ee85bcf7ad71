"""The one error a broken variant file produces."""

from __future__ import annotations

import os
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


def names_a_file(asked: str) -> bool:
    """Whether a variant was written as a file (a folder in it, or the ``.toml`` suffix)
    rather than as a bundled name: "no such file" then says more than "unknown variant"."""
    return "/" in asked or os.sep in asked or asked.endswith(".toml")


class NoSuchVariant(VariantError):
    """A variant name or path that names no variant file.

    Its message says what was asked for, where it was looked for and what could be
    given instead (the bundled names), because the usual ``file: key: reason`` form
    would name a file the user never wrote (``envs/standrd.toml: -: ...``). The
    `reason` stays the loader's `NO_SUCH_VARIANT`, for callers that word it themselves.
    """

    def __init__(self, asked: str, source: str, reason: str, bundled: list[str]) -> None:
        super().__init__(source, "-", reason)
        self.asked = asked
        what = "no such file" if names_a_file(asked) else f"no variant {asked!r}"
        self.args = (
            f"{what} (looked for {source}); give a bundled name ({', '.join(bundled)})"
            " or the path of a variant file",
        )
