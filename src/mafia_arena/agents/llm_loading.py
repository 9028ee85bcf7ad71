"""Agent files of kind ``llm`` become `LLMAgent` players through the agent registry.

Contract
--------
* ``load_llm_agent(spec)``: an :class:`~mafia_arena.agents.llm_agent.LLMAgent` for an
  agent-file spec (``agents/x.toml`` or ``x``, resolved by
  :func:`~mafia_arena.agents.files.resolve_agent_file`) whose ``kind`` is ``llm``, with
  the templates of the file's folder; ``None`` for any other spec, so the next loader
  may try it.
* Importing this module registers the loader
  (:func:`~mafia_arena.agents.registry.register_loader`);
  :func:`~mafia_arena.agents.registry.make_agent` imports it.

Why: the registry finds its loaders by importing their modules, and the player itself
needs neither agent-file resolution nor the registry to play.
"""

from __future__ import annotations

from mafia_arena.agents.files import agent_file_kind, resolve_agent_file
from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.agents.registry import register_loader
from mafia_arena.llm.definition import load_agent_definition

__all__ = ["load_llm_agent"]


def load_llm_agent(spec: str) -> LLMAgent | None:
    """An `LLMAgent` for an agent-file spec (``agents/x.toml`` or ``x``), else None."""
    path = resolve_agent_file(spec)
    if path is None or agent_file_kind(path) != "llm":
        return None
    return LLMAgent(load_agent_definition(path), agents_dir=path.parent)


register_loader(load_llm_agent)
