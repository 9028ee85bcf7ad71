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


def tournament_spec(tmp_path: Path, pool: str) -> Path:
    """A two-game 5-player spec of `pool` (TOML list items), stored under `tmp_path`."""
    spec = tmp_path / "probe.toml"
    spec.write_text(
        f'name = "probe"\nbase_seed = 5\ngames = 2\npool = [{pool}]\n'
        f'results = "{tmp_path / "results"}"\n'
        '[[variants]]\nvariant = "standard"\nplayers = 5\n'
        "set = { discussion_rounds = 1 }\n",
        encoding="utf-8",
    )
    return spec


def test_a_tournament_left_with_void_games_says_so_and_exits_1(
    tmp_path: Path, dead_endpoint: FakeOpenAI
) -> None:
    """Every game against a dead endpoint is void: the summary still prints (with the
    fallback kinds, and no dangling separator where the win rates would be), then one
    stderr line, and the exit code is 1, so ``tournament && leaderboard`` stops before a
    board is written from results the spec does not yet have."""
    agent = agent_file(tmp_path, dead_endpoint.base_url)
    spec = tournament_spec(tmp_path, f'"{agent}"')
    args = ["tournament", str(spec), "--no-ray", "--no-tracking"]
    result = CliRunner().invoke(app, args)

    assert result.exit_code == 1, result.output
    assert "2/2 games stored" in result.stdout and "2 void" in result.stdout
    (matchup,) = [line for line in result.stdout.splitlines() if "standard-5p:" in line]
    assert matchup.endswith("(2 void, not counted); no game counted"), matchup
    assert "void games' fallbacks, seats of down: llm:" in result.stdout
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert line.startswith("error: 2 void game(s) decided by infrastructure failures")
    assert "run the same command to play them again" in line
    assert "Traceback" not in result.output


def test_a_tournament_without_void_games_exits_0(tmp_path: Path) -> None:
    """...and a rerun with every game stored says there was nothing left to play, not a
    rate of 0 games/s on Ray, which it never started."""
    spec = tournament_spec(tmp_path, '"heuristic"')
    result = CliRunner().invoke(app, ["tournament", str(spec), "--no-ray", "--no-tracking"])
    assert result.exit_code == 0, result.output
    assert "0 void" in result.stdout and "error:" not in result.stderr
    assert "games/s (in-process)" in result.stdout

    again = CliRunner().invoke(app, ["tournament", str(spec), "--no-tracking"])
    assert again.exit_code == 0, again.output
    (line,) = [line for line in again.stdout.splitlines() if "games stored" in line]
    assert line.endswith("(0 played now, 2 resumed, 0 failed, 0 void) nothing left to play")


def test_a_void_games_line_names_the_endpoints_error(
    tmp_path: Path, dead_endpoint: FakeOpenAI
) -> None:
    """The summary's line on void games gives the error the endpoint answered (here
    its HTTP 500), as the decision traces hold it: a fallback kind says what failed,
    the error says what to fix."""
    agent = agent_file(tmp_path, dead_endpoint.base_url)
    spec = tournament_spec(tmp_path, f'"{agent}"')
    result = CliRunner().invoke(app, ["tournament", str(spec), "--no-ray", "--no-tracking"])

    assert result.exit_code == 1, result.output
    (line,) = [line for line in result.stdout.splitlines() if "void games' fallbacks" in line]
    assert "; first error: " in line, line
    error = line.split("; first error: ", 1)[1]
    assert "500" in error and "circuit" not in error, line


@pytest.mark.parametrize("source", ["store", "spec"])
def test_a_board_of_void_games_leaves_them_out_and_says_how_many(
    tmp_path: Path, dead_endpoint: FakeOpenAI, source: str
) -> None:
    """`leaderboard` on a store of void games (or on its spec, which plays them again
    first, void again), as the tournament: they are rated and counted nowhere (the
    README's provenance counts the games rated, and the void ones apart), and the
    command says on stderr how many it left out, how many the board rates, and what to
    do; the board is written, so it exits 0."""
    agent = agent_file(tmp_path, dead_endpoint.base_url)
    spec = tournament_spec(tmp_path, f'"{agent}"')
    args = ["tournament", str(spec), "--no-ray", "--no-tracking"]
    assert CliRunner().invoke(app, args).exit_code == 1
    board = tmp_path / "board"
    given = [str(tmp_path / "results")] if source == "store" else [str(spec), *args[2:]]
    result = CliRunner().invoke(app, ["leaderboard", *given, "--out", str(board)])

    assert result.exit_code == 0, result.output
    (note,) = [line for line in result.stderr.splitlines() if line.startswith("note:")]
    assert note == (
        "note: 2 void game(s) decided by infrastructure failures left out of the board, "
        "which rates the other 0 (see its README); fix the endpoint and run the "
        "tournament's spec again (mafia-arena tournament SPEC, or leaderboard SPEC) to "
        "play them again"
    )
    readme = (board / "README.md").read_text(encoding="utf-8")
    assert "0 games (0 decisive, 0 drawn)" in readme and "2 void games" in readme
    assert "- **games**: `0`" in readme and "- **void_games**: `2`" in readme
