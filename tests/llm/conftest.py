"""Fixtures for the LLM layer.

* ``fake_openai``: the scripted endpoint of :mod:`tests.llm.fake_openai` on a free port.
* ``fake_definition``: an agent pointed at it, with fast retries and a short timeout.
* ``local_server``: the bundled SmolLM2 server, started once per test session.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.llm.fake_openai import FakeOpenAI

from mafia_arena.llm.definition import AgentDefinition


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def fake_definition(fake_openai: FakeOpenAI) -> AgentDefinition:
    """An agent pointed at the fake endpoint, with fast retries and a short timeout."""
    return AgentDefinition(
        name="fake-agent",
        base_url=fake_openai.base_url,
        model="fake-model",
        max_tokens=32,
        timeout_s=1.0,
        max_retries=2,
        retry_backoff_s=0.01,
        retry_backoff_max_s=0.05,
        max_reasks=2,
        max_concurrency=4,
        price_per_input_token=0.001,
        price_per_output_token=0.002,
    )


@pytest.fixture(scope="session")
def local_server() -> Iterator[Any]:
    """The process-wide SmolLM2 server, started once for the whole test session."""
    from mafia_arena.llm.local_server import get_local_server, stop_local_server

    server = get_local_server()
    yield server
    stop_local_server()
