"""A web game's stored log replays in another process, to the same page and transcript.

A finished web game is kept as its log alone; its replay page and ``mafia-arena
replay`` rebuild it later, in a server started afresh or on another machine. The
game is played here (a person by autopilot, writing free text and in the dead chat, with
heuristic bots); processes started with other hash seeds (`tests.hash_seeds`) then
replay the stored log: the command says it matches the stored log and prints the same
transcript in each, and the replay's body is the one this server served, byte for byte.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from tests.hash_seeds import finish, run_module
from tests.web.support import HTTP_TIMEOUT, LiveServer, autopilot

from mafia_arena.leaderboard.records import load_records

pytestmark = pytest.mark.timeout(180)


def test_a_web_games_log_replays_alike_in_processes_with_other_hash_seeds(
    heuristic_server: LiveServer,
) -> None:
    server = heuristic_server
    created = server.create(
        variant="club",
        players=8,
        seed=3,
        seats=[{"kind": "human"}, {"kind": "bot", "agent": "heuristic"}],
    )
    game_id = created["game_id"]
    joined = server.join(game_id, created["invites"][0]["invite"], "Zoë")
    said = "P{seat} thinks “P3” is <b>lying</b> #{n}"
    asyncio.run(autopilot(server.ws_url, game_id, joined["credential"], 0, 7, text=said, chat=True))
    server.wait_over(game_id)
    served = httpx.get(f"{server.url}/api/games/{game_id}/replay", timeout=HTTP_TIMEOUT)
    assert served.status_code == 200, served.text
    (record,) = load_records(server.manager.settings.results_dir)
    log = record["log"]

    children = [
        run_module("mafia_arena.cli", "replay", log, hash_seed="0"),
        run_module("mafia_arena.cli", "replay", log, hash_seed="1"),
        run_module("tests.web.encoded_replay", log, hash_seed="2"),
    ]
    first, second, body = (finish(child) for child in children)
    assert first.rstrip().endswith("replay matches the stored log"), first[-500:]
    assert second == first
    assert body == served.text
