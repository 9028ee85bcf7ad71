"""A finished game whose stored log no longer replays (kept from before an upgrade that
changed what the engine logs, or damaged) is refused with the reason, over HTTP, with
409 and a message the page shows, not a server error; a log that replays is served.
`mafia-arena replay` gives the same reason when it exits with 1."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from tests.host_key import FIXED_HOST_KEY
from tests.web.support import HTTP_TIMEOUT, LiveServer
from typer.testing import CliRunner

from mafia_arena.agents.random_agent import RandomAgent
from mafia_arena.cli import app
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match_sync
from mafia_arena.runner.log import GameLog


def stored_game(server: LiveServer, game_id: str, log: GameLog) -> str:
    """Put a finished game's log in the server's store, as a finished web game is."""
    server.manager.store.add_game(game_id, {"variant": log.variant, "players": log.players}, 0)
    server.manager.store.finish(game_id, log.to_jsonl(), None)
    return f"{server.url}/api/games/{game_id}/replay"


def with_code(log: GameLog, digest: str) -> GameLog:
    """The log as other code would have written it: another source digest, and one
    event dated differently (what changing the engine's dating does to a stored log)."""
    lines = log.to_jsonl().splitlines()
    head = json.loads(lines[0])
    head["meta"]["code"] = {**head["meta"]["code"], "digest": digest}
    first = next(i for i, line in enumerate(lines) if '"phase": "night"' in line)
    lines[0] = json.dumps(head)
    lines[first] = lines[first].replace('"phase": "night"', '"phase": "day"', 1)
    return GameLog.loads("\n".join(lines) + "\n")


def test_a_stored_log_that_no_longer_replays_is_refused_with_its_reason(
    server: LiveServer,
) -> None:
    log = play_match_sync(
        load_variant("simple"), [RandomAgent(s) for s in range(5)], 3, host_key=FIXED_HOST_KEY
    ).log
    served = httpx.get(stored_game(server, "kept", log), timeout=HTTP_TIMEOUT)
    assert served.status_code == 200 and len(served.json()["seats"]) == 5

    other = with_code(log, "0123456789abcdef")
    refused = httpx.get(stored_game(server, "older", other), timeout=HTTP_TIMEOUT)
    assert refused.status_code == 409
    assert "played by other code" in refused.json()["detail"]
    assert "0123456789abcdef" in refused.json()["detail"]

    same = with_code(log, log.meta["code"]["digest"])  # this code, yet it differs: damaged
    damaged = httpx.get(stored_game(server, "damaged", same), timeout=HTTP_TIMEOUT)
    assert damaged.status_code == 409
    assert "damaged" in damaged.json()["detail"]


def test_a_stored_log_whose_decisions_the_game_refuses_is_refused_with_its_reason(
    server: LiveServer,
) -> None:
    """A hand-edited seed: the logged decisions no longer fit the game it deals, so the
    rebuild stops at the first one the engine refuses, a 409 naming it, not a 500."""
    log = play_match_sync(
        load_variant("simple"), [RandomAgent(s) for s in range(5)], 3, host_key=FIXED_HOST_KEY
    ).log
    lines = log.to_jsonl().splitlines()
    head = json.loads(lines[0])
    head["seed"] = head["seed"] + 1
    lines[0] = json.dumps(head)
    edited = GameLog.loads("\n".join(lines) + "\n")
    refused = httpx.get(stored_game(server, "edited", edited), timeout=HTTP_TIMEOUT)
    assert refused.status_code == 409, refused.text
    assert "cannot be submitted again" in refused.json()["detail"]
    assert "damaged" in refused.json()["detail"]


def test_the_replay_command_says_why_a_log_differs(tmp_path: Path) -> None:
    log = play_match_sync(
        load_variant("simple"), [RandomAgent(s) for s in range(5)], 4, host_key=FIXED_HOST_KEY
    ).log
    kept = log.save(tmp_path / "kept.jsonl")
    older = with_code(log, "fedcba9876543210").save(tmp_path / "older.jsonl")
    runner = CliRunner()
    fine = runner.invoke(app, ["replay", str(kept)])
    assert fine.exit_code == 0 and fine.output.splitlines()[-1] == "replay matches the stored log"
    differs = runner.invoke(app, ["replay", str(older)])
    assert differs.exit_code == 1
    last = differs.output.splitlines()[-1]
    assert last.startswith("replay DIFFERS FROM the stored log: this game was played by other")
    assert "fedcba9876543210" in last


def test_a_damaged_stored_log_or_trace_file_is_no_server_error(server: LiveServer) -> None:
    """A stored log that is not a readable log was a 500 (its reader's error escaped);
    now it is refused with 409 and the line and key at fault, no server path. A damaged
    trace file beside a good log leaves the traces out and serves the replay."""
    log = play_match_sync(
        load_variant("simple"), [RandomAgent(s) for s in range(5)], 3, host_key=FIXED_HOST_KEY
    ).log
    lines = log.to_jsonl().splitlines()
    head = json.loads(lines[0])
    head["seed"] = "three"
    text = "\n".join([json.dumps(head), *lines[1:]]) + "\n"
    server.manager.store.add_game("broken", {"variant": log.variant, "players": 5}, 0)
    server.manager.store.finish("broken", text, None)
    refused = httpx.get(f"{server.url}/api/games/broken/replay", timeout=HTTP_TIMEOUT)
    assert refused.status_code == 409, refused.text
    detail = refused.json()["detail"]
    assert "damaged" in detail and "seed" in detail
    assert str(server.manager.settings.logs_dir) not in detail

    url = stored_game(server, "traced", log)
    logs_dir = server.manager.settings.logs_dir
    logs_dir.mkdir(parents=True, exist_ok=True)
    (logs_dir / "traced.traces.jsonl").write_text("[1, 2]\n")
    served = httpx.get(url, timeout=HTTP_TIMEOUT)
    assert served.status_code == 200, served.text
    assert served.json()["traces"] == []
