"""``play``, ``play --human`` and endpoint faults: a game whose model-backed seats were
played by fallbacks because the endpoint failed says so on stderr, whoever else sat at
the table (without the warning a game against a dead server ends as if all were well).

The endpoint is the HTTP server of :mod:`tests.llm.fake_openai` with nothing scripted, so
it answers every request with an HTTP 500; the person at the terminal answers the first
option of every turn.
"""

from __future__ import annotations

import functools
import io
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from tests.llm.fake_openai import FakeOpenAI
from typer.testing import CliRunner

from mafia_arena.cli import app
from mafia_arena.cli.games import count_endpoint_faults
from mafia_arena.engine.catalogue import DecisionRecord
from mafia_arena.llm.breaker import reset_breakers

WARNING = "played by fallbacks on endpoint faults"


@pytest.fixture
def dead_endpoint() -> Iterator[FakeOpenAI]:
    """An endpoint that fails every request (HTTP 500: nothing is scripted); the
    process-wide breakers are closed before and after."""
    reset_breakers()
    server = FakeOpenAI()
    try:
        yield server
    finally:
        server.close()
        reset_breakers()


def agent_file(tmp_path: Path, base_url: str) -> Path:
    """An LLM agent pointed at `base_url`, quick to give up."""
    path = tmp_path / "down.toml"
    path.write_text(
        'name = "down"\n'
        f'base_url = "{base_url}"\n'
        'model = "fake-model"\n'
        "max_tokens = 16\n"
        "timeout_s = 5.0\n"
        "max_retries = 0\n"
        "max_reasks = 0\n"
        "retry_backoff_s = 0.01\n"
        "retry_backoff_max_s = 0.02\n"
    )
    return path


def test_play_human_warns_when_the_bots_endpoint_failed(
    tmp_path: Path, dead_endpoint: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mafia_arena.web.terminal as terminal

    first_option = functools.partial(
        terminal.play_in_terminal, read=lambda prompt: "0", out=io.StringIO()
    )
    monkeypatch.setattr(terminal, "play_in_terminal", first_option)
    agent = agent_file(tmp_path, dead_endpoint.base_url)
    args = ["play", "--variant", "simple", "--players", "5", "--agents", str(agent)]
    result = CliRunner().invoke(app, [*args, "--human", "2", "--seed", "3"])

    assert result.exit_code == 0, result.output
    assert dead_endpoint.requests, "the bots never reached the endpoint"
    warnings = [line for line in result.stderr.splitlines() if WARNING in line]
    assert len(warnings) == 1, result.stderr
    assert warnings[0].startswith("warning: agent 'down' (openai:127.0.0.1): ")
    assert "in the game" in warnings[0] and "llm:server_error x" in warnings[0]


def test_play_human_is_quiet_when_no_endpoint_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    import mafia_arena.web.terminal as terminal

    first_option = functools.partial(
        terminal.play_in_terminal, read=lambda prompt: "0", out=io.StringIO()
    )
    monkeypatch.setattr(terminal, "play_in_terminal", first_option)
    args = ["play", "--variant", "simple", "--players", "5", "--agents", "heuristic"]
    result = CliRunner().invoke(app, [*args, "--human", "2", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert WARNING not in result.stderr


def test_the_persons_own_seat_is_not_charged_to_the_bot_it_replaced() -> None:
    """The runner's timeout of the person's turn is no endpoint's fault, even where the
    seating put a model-backed agent on that seat before the person took it."""
    card = SimpleNamespace(name="llm:down", card=lambda: {"endpoint": "http://x/v1"})
    records = [DecisionRecord(seat, "vote", fallback="timeout") for seat in (0, 1, 1)]
    log = SimpleNamespace(events=[SimpleNamespace(fact=r) for r in records])

    faults: Counter[tuple[str, str, str]] = Counter()
    count_endpoint_faults([card, card], log, faults, skip=(1,))
    assert faults == Counter({("llm:down", "http://x/v1", "timeout"): 1})
