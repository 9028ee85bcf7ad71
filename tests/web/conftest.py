"""Fixtures for the web app tests: a live server with instant bots, and a browser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.web.browser_support import ensure_chromium, launch_chromium
from tests.web.support import LiveServer

from mafia_arena.web import Settings


def settings_for(tmp_path: Path, **changes: object) -> Settings:
    """Instant bots (no pacing), nights that end once their actors have answered (the
    fixed night, `web/night_pace.py`, would make every night with a person last its
    whole timers: `tests/web/test_night_pace.py` plays it on a clock of its own), stores
    under `tmp_path`; chosen seeds allowed, so the tests' games are reproducible."""
    base = {
        "bot_delay": 0.0,
        "fixed_nights": False,
        "timer_scale": 1.0,
        "grace": 30.0,
        "results_dir": tmp_path / "results",
        "logs_dir": tmp_path / "logs",
        "db": tmp_path / "live.sqlite",
        "allowed_agents": ("random",),
        "chosen_seeds": True,
    }
    base.update(changes)
    return Settings(**base)  # type: ignore[arg-type]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    """A live server whose bots get the same seat seeds every run (a fixed host key),
    so a test's game with a chosen seed always takes the same course."""
    live = LiveServer(settings_for(tmp_path))
    live.manager.host_key = FIXED_HOST_KEY
    try:
        yield live
    finally:
        live.close()


@pytest.fixture
def heuristic_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A server whose bots may be heuristic or random players, with a fixed host key
    (the same seat seeds, so the same bot moves, in every run)."""
    live = LiveServer(settings_for(tmp_path, allowed_agents=("heuristic", "random")))
    live.manager.host_key = FIXED_HOST_KEY
    try:
        yield live
    finally:
        live.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's headless Chromium through Playwright; skips when it cannot be had."""
    if not ensure_chromium():
        pytest.skip("browser tests need Debian's Chromium: apt-get install -y chromium")
    yield from launch_chromium()
