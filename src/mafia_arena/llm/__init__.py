"""The LLM endpoint layer: agent definitions, the embedded local model, and ``ChatClient``.

This package is independent of the game engine. The game builds prompts; this layer
turns them into free text (``ChatClient.complete``) or into one of a list of legal
options (``ChatClient.choose``), against any OpenAI-compatible endpoint or a LangChain chat
model, and accounts for tokens, cost, latency, re-asks, retries and fallbacks.

Modules, one job each:

* :mod:`~mafia_arena.llm.definition`: ``AgentDefinition`` and the TOML loader.
* :mod:`~mafia_arena.llm.local_server`: the bundled SmolLM2 model behind a llama.cpp server.
* :mod:`~mafia_arena.llm.transport`: one request via openai or LangChain; error kinds.
* :mod:`~mafia_arena.llm.parsing`: schemas, answer instructions and lenient choice parsing.
* :mod:`~mafia_arena.llm.concurrency`: per-endpoint limit on requests in flight.
* :mod:`~mafia_arena.llm.accounting`: ``CallStats`` and ``UsageCounter``.
* :mod:`~mafia_arena.llm.client`: ``ChatClient`` (re-asks, retries, fallbacks, accounting).

Names are exported lazily so that importing ``AgentDefinition`` does not import the
``openai`` package (which comes with the ``llm`` extra).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .accounting import CallStats, ErrorKind, UsageCounter
    from .client import ChatClient, ChoiceResult, Completion
    from .definition import (
        AgentDefinition,
        AgentDefinitionError,
        load_agent_definition,
        load_agent_definitions,
    )
    from .local_server import (
        LocalServer,
        LocalServerError,
        get_local_server,
        start_local_server,
        stop_local_server,
    )

_EXPORTS = {
    "AgentDefinition": "definition",
    "AgentDefinitionError": "definition",
    "load_agent_definition": "definition",
    "load_agent_definitions": "definition",
    "CallStats": "accounting",
    "ErrorKind": "accounting",
    "UsageCounter": "accounting",
    "ChatClient": "client",
    "ChoiceResult": "client",
    "Completion": "client",
    "LocalServer": "local_server",
    "LocalServerError": "local_server",
    "get_local_server": "local_server",
    "start_local_server": "local_server",
    "stop_local_server": "local_server",
}

__all__ = [
    "AgentDefinition",
    "AgentDefinitionError",
    "CallStats",
    "ChatClient",
    "ChoiceResult",
    "Completion",
    "ErrorKind",
    "LocalServer",
    "LocalServerError",
    "UsageCounter",
    "get_local_server",
    "load_agent_definition",
    "load_agent_definitions",
    "start_local_server",
    "stop_local_server",
]
assert sorted(__all__) == sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
