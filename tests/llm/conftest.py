"""Fixtures for the LLM layer.

* ``fake_openai``: the scripted endpoint of :mod:`tests.llm.fake_openai` on a free port.
* ``fake_definition``: an agent pointed at it, with fast retries and a generous timeout
  (tests of timeouts set a short one).
* ``local_server``: the bundled SmolLM2 server, started once per test session.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.llm.fake_openai import FakeOpenAI, fake_agent_definition

from mafia_arena.llm.breaker import reset_breakers
from mafia_arena.llm.definition import AgentDefinition


@pytest.fixture(autouse=True)
def _fresh_breakers() -> Iterator[None]:
    """Endpoint breakers are process-wide: each test starts with all of them closed."""
    reset_breakers()
    yield
    reset_breakers()


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def fake_definition(fake_openai: FakeOpenAI) -> AgentDefinition:
    """An agent pointed at the fake endpoint, with fast retries and a generous timeout
    (tests of timeouts set a short one)."""
    return fake_agent_definition(fake_openai.base_url)
