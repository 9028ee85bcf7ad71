"""The bot list a creator picks from leaves out an agent file that cannot be read (bytes
that are not UTF-8, nesting too deep for the parser, a pipe that would stall the server
until a writer came) instead of failing the page."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mafia_arena.web.manager import agent_choices
from mafia_arena.web.settings import Settings


def test_unreadable_agent_files_are_not_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "free.toml").write_text('name = "free"\nbase_url = "local"\n')
    (agents / "latin1.toml").write_bytes('name = "b\xe4d"\n'.encode("latin-1"))
    (agents / "nested.toml").write_text("deep = " + "[" * 5000 + "]" * 5000 + "\n")
    os.mkfifo(agents / "pipe.toml")
    monkeypatch.chdir(tmp_path)
    choices = agent_choices(Settings(allowed_agents=None, allow_paid_bots=False))
    assert "agents/free.toml" in choices
    assert not {"agents/latin1.toml", "agents/nested.toml", "agents/pipe.toml"} & set(choices)
