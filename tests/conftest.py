"""Fixtures shared by several test folders."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def local_server() -> Iterator[Any]:
    """The process-wide SmolLM2 server, started once for the whole test session."""
    from mafia_arena.llm.local_server import get_local_server, stop_local_server

    server = get_local_server()
    yield server
    stop_local_server()
