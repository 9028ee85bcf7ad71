"""Agent files (`agents/*.toml`): finding the file a spec names, and its kind.

An agent file describes one player as data. Its optional top-level ``kind`` says which
loader builds it: ``llm`` (the default: an endpoint, a model and prompts, see
`llm.definition`) or ``rl`` (a trained policy file, see `agents.policy`).
"""

from __future__ import annotations

from pathlib import Path

from mafia_arena.agents.llm_prompts import default_prompts_dir
from mafia_arena.input_files import exists
from mafia_arena.llm.definition import declared_kind


def _repo_agents_dir() -> Path | None:
    prompts = default_prompts_dir()
    return prompts.parent if prompts is not None else None


def is_file(path: Path) -> bool:
    """Whether `path` is a file; False for a name the system cannot look up at all.

    Why: `Path.is_file` raises `OSError` for a name longer than the system allows, so a
    mistyped ``--agents`` value would end in a traceback instead of "unknown agent".
    """
    try:
        return path.is_file()
    except OSError:
        return False


def is_dir(path: Path) -> bool:
    """Whether `path` is a folder; False for a name the system cannot look up at all
    (as `is_file`)."""
    try:
        return path.is_dir()
    except OSError:
        return False


def resolve_agent_file(spec: str) -> Path | None:
    """The agent file a spec names, or None if the spec is not an agent file.

    ``agents/x.toml`` or any ``*.toml`` path (relative to the working directory, else to
    the repository); a bare name ``x`` if ``agents/x.toml`` exists in the working
    directory or the repository. A ``.toml`` spec that names nothing raises ValueError;
    one that names something other than a file (a folder, a pipe) is returned, for the
    loader to say what it is (`llm.definition.load_agent_definition`) rather than that
    nothing is there.
    """
    spec = spec.strip()
    roots = [Path.cwd()]
    repo_agents = _repo_agents_dir()
    if repo_agents is not None:
        roots.append(repo_agents.parent)
    if spec.endswith(".toml"):
        path = Path(spec).expanduser()
        candidates = [path] if path.is_absolute() else [root / path for root in roots]
        for candidate in candidates:
            if is_file(candidate):
                return candidate.resolve()
        for candidate in candidates:
            if exists(candidate):
                return candidate.resolve()
        where = "the working folder" + (" and the repository" if len(roots) > 1 else "")
        raise ValueError(f"{spec}: no such agent file (looked from {where})")
    if not spec or "/" in spec or "\\" in spec or spec.startswith("."):
        return None
    for root in roots:
        candidate = root / "agents" / f"{spec}.toml"
        if is_file(candidate):
            return candidate.resolve()
    return None


AGENT_KINDS = ("llm", "rl")
"""The kinds of agent file a loader builds (`llm_loading`, `policy`)."""


def agent_file_kind(path: Path) -> str:
    """The ``kind`` an agent file declares (``llm`` when it declares none)."""
    kind = declared_kind(path)
    return kind if isinstance(kind, str) else "llm"
