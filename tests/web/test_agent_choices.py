"""The bot list a creator picks from leaves out an agent file that cannot be read (bytes
that are not UTF-8, nesting too deep for the parser, a pipe that would stall the server
until a writer came) instead of failing the page, and one that reads but makes no bot
(a missing key, an unknown kind, a policy file that is not there): such a file was
offered and refused only once picked ("cannot be loaded"). The reason is logged once,
naming the file, when the server starts."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import httpx
import pytest
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer

from mafia_arena.web.manager import agent_choices
from mafia_arena.web.settings import Settings

BROKEN = {
    "nomodel.toml": 'name = "nomodel"\nbase_url = "local"\n',
    "telepath.toml": 'name = "telepath"\nkind = "telepath"\n',
    "lost.toml": 'name = "lost"\nkind = "rl"\npolicy = "policies/none.npz"\n',
}
"""Agent files that read as TOML but make no bot, each for its own reason."""


def agents_folder(tmp_path: Path) -> Path:
    """An `agents/` folder under `tmp_path` with one file that makes a bot (a local
    LLM player) and the `BROKEN` ones."""
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "free.toml").write_text('name = "free"\nbase_url = "local"\nmodel = "m"\n')
    for name, text in BROKEN.items():
        (agents / name).write_text(text)
    return agents


@pytest.mark.timeout(60)
def test_unreadable_agent_files_are_not_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "free.toml").write_text('name = "free"\nbase_url = "local"\nmodel = "m"\n')
    (agents / "latin1.toml").write_bytes('name = "b\xe4d"\n'.encode("latin-1"))
    (agents / "nested.toml").write_text("deep = " + "[" * 5000 + "]" * 5000 + "\n")
    os.mkfifo(agents / "pipe.toml")
    monkeypatch.chdir(tmp_path)
    unreadable = {"agents/latin1.toml", "agents/nested.toml", "agents/pipe.toml"}
    for paid_too in (False, True):  # where paid bots are allowed they are not read as such
        choices = agent_choices(Settings(allowed_agents=None, allow_paid_bots=paid_too))
        assert "agents/free.toml" in choices
        assert not unreadable & set(choices)


def test_agent_files_that_make_no_bot_are_not_offered_and_logged_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    agents_folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    settings = Settings(allowed_agents=None, allow_paid_bots=False)
    with caplog.at_level(logging.WARNING, logger="mafia_arena.web.manager"):
        first = agent_choices(settings)
        again = agent_choices(settings)
    assert first == again
    assert "agents/free.toml" in first
    assert not {f"agents/{name}" for name in BROKEN} & set(first)
    said = [r.getMessage() for r in caplog.records if "left off the bot list" in r.getMessage()]
    assert len(said) == len(BROKEN)  # each once, though the list was made twice
    reasons = {
        "nomodel.toml": ": model: required key is missing",
        "telepath.toml": ': kind: "telepath" is no agent kind',
        "lost.toml": ": policy: ",
    }
    for name, reason in reasons.items():
        (line,) = [text for text in said if f"agents/{name}" in text]
        assert reason in line


def test_the_server_offers_only_agent_files_that_load_and_says_why_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    agents_folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    caplog.set_level(logging.WARNING, logger="mafia_arena.web.manager")
    live = LiveServer(settings_for(tmp_path, allowed_agents=None))
    try:
        offered = httpx.get(live.url + "/api/agents", timeout=HTTP_TIMEOUT).json()
        assert "agents/free.toml" in offered and "heuristic" in offered
        assert not {f"agents/{name}" for name in BROKEN} & set(offered)
        seats = [{"kind": "bot", "agent": "agents/telepath.toml"}]
        spec = {"variant": "standard", "players": 7, "seats": seats}
        refused = httpx.post(live.url + "/api/games", json=spec, timeout=HTTP_TIMEOUT)
        assert refused.status_code == 400
        assert "unknown or disallowed bot 'agents/telepath.toml'" in refused.text
    finally:
        live.close()
    said = [r.getMessage() for r in caplog.records if "left off the bot list" in r.getMessage()]
    assert sorted(line.split()[2] for line in said) == sorted(f"agents/{n}" for n in BROKEN)
