"""`mafia-arena serve`'s switches for the operator's settings: which bots creators may
seat, paid bots, the grace period, idle turns, the per-address limits, the time to
send a request and the time an idle connection is kept — checked before any server
starts."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from tests.cli.test_cli_errors import assert_one_paragraph, run_cli
from tests.web.support import IdleRace, ServerProcess, http_responses, idle_and_silent

from mafia_arena.cli.server import serve_settings
from mafia_arena.web import Settings
from mafia_arena.web.manager import agent_choices


def test_the_switches_set_the_servers_settings(tmp_path: Path) -> None:
    agent_file = tmp_path / "mine.toml"
    agent_file.write_text('name = "mine"\n')
    options = serve_settings(
        allow_agent=["random", str(agent_file), "random"],
        allow_paid_bots=True,
        grace=30.5,
        idle_turns=4,
        sockets_per_address=100,
        connections_per_address=200,
        request_timeout=45.5,
        keep_alive=20.0,
    )
    settings = Settings(**options)
    assert settings.allowed_agents == ("random", str(agent_file))
    assert agent_choices(settings) == ["random", str(agent_file)]
    assert settings.allow_paid_bots is True
    assert settings.grace == 30.5 and settings.idle_turns == 4
    assert (settings.max_sockets_per_client, settings.max_connections_per_client) == (100, 200)
    assert settings.request_timeout == 45.5
    assert settings.keep_alive == 20.0


def test_without_the_switches_the_defaults_stay() -> None:
    settings = Settings(**serve_settings())
    defaults = Settings()
    assert settings.allowed_agents is None and not settings.allow_paid_bots
    assert (settings.grace, settings.idle_turns) == (defaults.grace, defaults.idle_turns)
    assert settings.max_sockets_per_client == defaults.max_sockets_per_client
    assert settings.max_connections_per_client == defaults.max_connections_per_client
    assert settings.request_timeout == defaults.request_timeout
    assert settings.keep_alive == defaults.keep_alive == 5.0


@pytest.mark.parametrize(
    ("args", "parts"),
    [
        (["--allow-agent", "nobody"], ("--allow-agent", "unknown agent 'nobody'")),
        (["--grace", "-1"], ("--grace", "at least 0")),
        (["--grace", "nan"], ("--grace", "at least 0")),
        (["--idle-turns", "0"], ("--idle-turns", "at least 1")),
        (["--sockets-per-address", "0"], ("--sockets-per-address", "at least 1")),
        (["--connections-per-address", "-3"], ("--connections-per-address", "at least 1")),
        (["--request-timeout", "0"], ("--request-timeout", "above 0")),
        (["--request-timeout", "-2.5"], ("--request-timeout", "above 0")),
        (["--request-timeout", "nan"], ("--request-timeout", "above 0")),
        (["--request-timeout", "inf"], ("--request-timeout", "above 0")),
        (["--request-timeout", "soon"], ("--request-timeout", "a valid number")),
        (["--keep-alive", "0"], ("--keep-alive", "above 0")),
        (["--keep-alive", "nan"], ("--keep-alive", "above 0")),
    ],
    ids=[
        "unknown-agent",
        "negative-grace",
        "nan-grace",
        "zero-idle-turns",
        "zero-sockets",
        "negative-connections",
        "zero-request-timeout",
        "negative-request-timeout",
        "nan-request-timeout",
        "endless-request-timeout",
        "wordy-request-timeout",
        "zero-keep-alive",
        "nan-keep-alive",
    ],
)
def test_a_bad_switch_is_a_user_error_and_no_server_starts(
    args: list[str], parts: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = run_cli(["serve", "--port", "1", *args], capsys)
    assert code == 2, err
    assert_one_paragraph(err, *parts)


def test_a_port_another_program_holds_is_a_user_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the server's own failure came as its log lines and exit code 3
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        args = ["serve", "--port", str(port), "--db", str(tmp_path / "web.sqlite")]
        code, err = run_cli(args, capsys)
    assert code == 2, err
    assert_one_paragraph(err, "--port", f"cannot listen on 127.0.0.1:{port}")
    assert not (tmp_path / "web.sqlite").exists()


def timers_raced(tmp_path: Path, *args: str) -> IdleRace:
    """`idle_and_silent` against a real `serve ARGS` process: which of an idle and a
    silent connection the server closed first, and what each got."""
    process = ServerProcess(tmp_path, tmp_path / "live.sqlite", args=args)
    process.start()
    try:
        return idle_and_silent(process.port)
    finally:
        process.kill()


def test_the_request_timeout_switch_reaches_the_running_server(tmp_path: Path) -> None:
    """`serve --request-timeout 1`: a connection that sends nothing gets its 408 before
    a connection left idle earlier is closed at the keep-alive time (`--keep-alive 3`);
    with the default request timeout (10 s) the idle one was closed first. The order of
    the two server timers tells it, not the test's clock (`idle_and_silent`;
    `web/connections.py` holds the deadline)."""
    race = timers_raced(tmp_path, "--request-timeout", "1", "--keep-alive", "3")
    assert race.closed == ["silent", "idle"]
    assert [status for status, _ in http_responses(race.after["silent"])] == [408]
    assert race.after["idle"] == b""


def test_the_keep_alive_switch_reaches_the_running_server(tmp_path: Path) -> None:
    """`serve --keep-alive 0.5`: a connection left idle after its answers is closed
    before a later connection that sends nothing gets its 408 (`--request-timeout 3`);
    with uvicorn's default keep-alive (5 s) the 408 came first. The order of the two
    server timers tells it, not the test's clock (`idle_and_silent`)."""
    race = timers_raced(tmp_path, "--keep-alive", "0.5", "--request-timeout", "3")
    assert race.closed == ["idle", "silent"]
    assert race.after["idle"] == b""
    assert [status for status, _ in http_responses(race.after["silent"])] == [408]
