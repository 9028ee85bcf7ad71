"""A web game's record carries its bots' cards, copied from its log's header, as a
tournament record does, so a board published from a web store shows its model cards.

A real web game (the live server of tests/web/support.py) seats the shipped trained
policy (`agents/rl-town-votes.toml`, no model server needed) beside heuristic bots and
a person played by the autopilot; its stored record's ``cards`` equal its log's
``meta.cards``, and the leaderboard read from the web store lists the policy's card.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import LiveServer, autopilot

from mafia_arena.leaderboard.records import load_records
from mafia_arena.leaderboard.table import model_cards
from mafia_arena.results_file import read_records
from mafia_arena.runner.log import GameLog

pytestmark = pytest.mark.timeout(180)

REPO = Path(__file__).resolve().parents[2]
AGENT = REPO / "agents" / "rl-town-votes.toml"
POLICY = REPO / "agents" / "policies" / "rl-town-votes.npz"


def test_a_web_record_carries_the_cards_of_its_log(tmp_path: Path) -> None:
    live = LiveServer(settings_for(tmp_path, allowed_agents=(str(AGENT), "heuristic")))
    live.manager.host_key = FIXED_HOST_KEY
    try:
        seats = [{"kind": "human"}, {"kind": "bot", "agent": str(AGENT)}] + [
            {"kind": "bot", "agent": "heuristic"} for _ in range(5)
        ]
        created = live.create(variant="standard", players=7, seed=5, seats=seats)
        game_id = created["game_id"]
        joined = live.join(game_id, created["invites"][0]["invite"], "Alice")
        asyncio.run(autopilot(live.ws_url, game_id, joined["credential"], 0, 3))
        live.wait_over(game_id)
    finally:
        live.close()

    store = tmp_path / "results" / "games.jsonl"
    (record,) = read_records(store)
    log = GameLog.load(record["log"])
    card = log.meta["cards"]["rl-town-votes"]
    assert card["policy_sha256"] == hashlib.sha256(POLICY.read_bytes()).hexdigest()
    assert record["cards"] == log.meta["cards"]  # the log's, as a tournament record's

    # a board published from the web store shows the policy's card
    cards = model_cards(load_records(store))
    assert list(cards["agent"]) == ["rl-town-votes"]
    assert json.loads(cards.iloc[0]["build"]) == card
