"""Fixtures for the web app tests: a live server with instant bots and its folders."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.web.support import LiveServer

from mafia_arena.web import Settings


def settings_for(tmp_path: Path, **changes: object) -> Settings:
    """Instant bots (no pacing, no night floor), stores under `tmp_path`."""
    base = {"bot_delay": 0.0, "timer_scale": 1.0, "grace": 30.0,
            "results_dir": tmp_path / "results", "logs_dir": tmp_path / "logs",
            "allowed_agents": ("random",)}
    base.update(changes)
    return Settings(**base)  # type: ignore[arg-type]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(settings_for(tmp_path))
    try:
        yield live
    finally:
        live.close()
