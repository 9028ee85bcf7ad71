"""Build agents from names: scripted presets now, agent files from `agents/` later."""

from __future__ import annotations

from collections.abc import Callable

from mafia_arena.agents.base import Agent
from mafia_arena.agents.files import AGENT_KINDS, resolve_agent_file
from mafia_arena.agents.random_agent import RandomAgent
from mafia_arena.llm.definition import declared_kind
from mafia_arena.toml_file import toml_spelling

_SCRIPTED: dict[str, Callable[[], Agent]] = {"random": RandomAgent}
_LOADERS: list[Callable[[str], Agent | None]] = []


def register_scripted(name: str, factory: Callable[[], Agent]) -> None:
    _SCRIPTED[name] = factory


def register_loader(loader: Callable[[str], Agent | None]) -> None:
    """A loader turns a spec such as ``agents/local-smollm2.toml`` into an agent."""
    _LOADERS.append(loader)


def scripted_agent_names() -> list[str]:
    _load_builtin()
    return sorted(_SCRIPTED)


def make_agent(spec: str) -> Agent:
    """An agent from a scripted preset name or an agent definition path."""
    _load_builtin()
    if spec in _SCRIPTED:
        return _SCRIPTED[spec]()
    for loader in _LOADERS:
        agent = loader(spec)
        if agent is not None:
            return agent
    path = resolve_agent_file(spec)
    if path is not None:  # a file no loader builds: its kind is the mistake
        kind = declared_kind(path)
        raise ValueError(
            f"{path}: kind: {toml_spelling(kind)} is no agent kind; give one of "
            f"{', '.join(AGENT_KINDS)} (or leave it out for llm)"
        )
    raise ValueError(
        f"unknown agent {spec!r}; scripted: {', '.join(sorted(_SCRIPTED))}, "
        "or a path to an agent file in agents/"
    )


def _load_builtin() -> None:
    """Import optional agent modules that register themselves (heuristic, LLM)."""
    import contextlib
    import importlib

    for module in (
        "mafia_arena.agents.heuristic",
        "mafia_arena.agents.liar",
        "mafia_arena.agents.policy",
        "mafia_arena.agents.llm_loading",
    ):
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
