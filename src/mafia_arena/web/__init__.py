"""Humans play with bots: the web app (`create_app`, `serve`) and the terminal mode.

Imports are lazy so that the terminal mode (`play_in_terminal`) works without the
optional ``web`` extra (FastAPI, uvicorn) installed. See docs/web.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mafia_arena.web.app import create_app, serve
    from mafia_arena.web.settings import Settings
    from mafia_arena.web.terminal import play_in_terminal

__all__ = ["Settings", "create_app", "play_in_terminal", "serve"]

_HOMES = {
    "create_app": "app",
    "serve": "app",
    "Settings": "settings",
    "play_in_terminal": "terminal",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        import importlib

        return getattr(importlib.import_module(f"mafia_arena.web.{_HOMES[name]}"), name)
    raise AttributeError(name)
