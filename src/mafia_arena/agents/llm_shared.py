"""What every LLM agent of a definition shares in a process: its client and its templates.

Contract
--------
* ``shared_client(definition)``: one :class:`~mafia_arena.llm.ChatClient` per
  definition, shared by every agent of that definition in the process (created on first
  use); the client keeps its connections per event loop and the per-endpoint concurrency
  cap is process-wide. ``await aclose_shared_clients()`` closes the connections opened
  in the running event loop.
* ``templates_for(definition, agents_dir)``: the prompt templates of a definition (see
  :mod:`mafia_arena.agents.llm_prompts`), the repository's defaults overridden by the
  agent folder's ``prompts/`` and the definition's ``prompt_template``; loaded once per
  process for each combination of folders and files.

Why: many seats and games play the same agent file; sharing one client reuses its
connections, and loading the templates once spares reading the files for every agent
built.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from mafia_arena.agents.llm_prompts import (
    PromptTemplates,
    TemplateError,
    default_prompts_dir,
    load_templates,
)
from mafia_arena.llm.definition import AgentDefinition

if TYPE_CHECKING:
    from mafia_arena.llm.client import ChatClient

__all__ = ["aclose_shared_clients", "shared_client", "templates_for"]

_clients: dict[AgentDefinition, ChatClient] = {}
_clients_lock = threading.Lock()


def shared_client(definition: AgentDefinition) -> ChatClient:
    """The process's one ``ChatClient`` for ``definition`` (created on first use).

    Raises :class:`~mafia_arena.llm.AgentDefinitionError` if the definition names an API
    key variable that is unset, so a misconfigured agent fails before any game starts.
    """
    from mafia_arena.llm.client import ChatClient  # needs the `llm` extra (openai)

    with _clients_lock:
        client = _clients.get(definition)
        if client is None:
            client = ChatClient(definition)
            _clients[definition] = client
        return client


async def aclose_shared_clients() -> None:
    """Close the shared clients' connections opened in the running event loop."""
    with _clients_lock:
        clients = list(_clients.values())
    for client in clients:
        await client.aclose()


@lru_cache(maxsize=32)
def _cached_templates(defaults: Path, local: Path | None, override: Path | None) -> PromptTemplates:
    return load_templates(defaults, local, override)


def templates_for(definition: AgentDefinition, agents_dir: str | Path | None) -> PromptTemplates:
    """The repository's default templates (``agents/prompts``), overridden by name by
    the files in ``<agents_dir>/prompts`` (when that is another folder), then by the
    definition's ``prompt_template`` (relative to that ``prompts`` folder).

    Raises `TemplateError` ``FILE: KEY: REASON``: a template the definition's
    ``prompt_template`` names (the file, or one in the folder it names) is told as the
    agent file's key, ``AGENT_FILE: prompt_template: TEMPLATE: REASON``, since that key
    is what to fix; any other template as ``TEMPLATE: -: REASON``."""
    defaults = default_prompts_dir()
    if defaults is None:
        raise TemplateError("agents/prompts", "-", "no such folder (the default prompt templates)")
    defaults = defaults.resolve()
    base = Path(agents_dir).resolve() if agents_dir is not None else defaults.parent
    local = base / "prompts"
    override = local / definition.prompt_template if definition.prompt_template else None
    try:
        return _cached_templates(
            defaults, local if local.is_dir() and local != defaults else None, override
        )
    except TemplateError as exc:
        agent_file = definition.source_file
        if agent_file is None or override is None or not _within(Path(exc.source), override):
            raise
        reason = f"{exc.source}: {exc.reason}"
        raise TemplateError(str(agent_file), "prompt_template", reason) from None


def _within(path: Path, override: Path) -> bool:
    """Whether `path` is the template file `override` or a file in the folder it names."""
    return path == override or override in path.parents
