"""Fixtures for the LLM player tests.

* ``fake``: the scripted OpenAI-compatible endpoint of :mod:`tests.llm.fake_openai`; once
  its script is used up it answers every request automatically (:func:`auto_answer`),
  so whole games can be played against it.
* ``fake_definition``: an agent definition pointed at it (fast retries, short timeout).
* ``local_server``: the bundled SmolLM2 server, started once per test session.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.llm.fake_openai import FakeOpenAI, fake_agent_definition
from tests.llm_agent.support import install_auto

from mafia_arena.llm.breaker import reset_breakers
from mafia_arena.llm.definition import AgentDefinition


@pytest.fixture(autouse=True)
def _fresh_breakers() -> Iterator[None]:
    """Endpoint breakers are process-wide: each test starts with all of them closed."""
    reset_breakers()
    yield
    reset_breakers()


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    server = install_auto(FakeOpenAI())
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def fake_definition(fake: FakeOpenAI) -> AgentDefinition:
    return fake_agent_definition(
        fake.base_url,
        name="fake-llm",
        max_tokens=48,
        timeout_s=30.0,  # generous: a loaded machine must not turn answers into retries
        max_retries=1,
        retry_backoff_max_s=0.02,
        max_concurrency=2,
    )
