"""The web app draws every game's seed, hands bots only keyed seat seeds, and shows the
seed after the game alone (the real server of tests/web/support.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.deal_reader import NAME, DealReader, reproduces
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer, autopilot

from mafia_arena.agents import registry
from mafia_arena.seat_seeds import seat_seed

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def drawn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveServer]:
    """A server that draws seeds itself, with the deal reader among its bots."""
    monkeypatch.setitem(registry._SCRIPTED, NAME, DealReader)
    live = LiveServer(settings_for(tmp_path, chosen_seeds=False, allowed_agents=("random", NAME)))
    yield live
    live.close()


def test_a_web_game_gives_no_bot_the_deal(drawn: LiveServer) -> None:
    DealReader.reports.clear()
    created = drawn.create(
        variant="standard",
        players=7,
        seats=[{"kind": "human"}, {"kind": "bot", "agent": NAME}],
        replacement=NAME,
    )
    game_id = created["game_id"]
    joined = drawn.join(game_id, created["invites"][0]["invite"], "Ann")
    headers = {"Authorization": f"Bearer {joined['credential']}"}
    replay_url = f"{drawn.url}/api/games/{game_id}/replay"
    early = httpx.get(replay_url, headers=headers, timeout=HTTP_TIMEOUT)
    assert early.status_code == 409  # no seed while the game runs
    played = asyncio.run(autopilot(drawn.ws_url, game_id, joined["credential"], 0, 4))
    drawn.wait_over(game_id)
    assert played.messages[-1]["over"]

    session = drawn.manager.get(game_id)
    assert session is not None
    assert DealReader.reports, "no bot attacked"
    for report in DealReader.reports:
        assert report["seen"] and not reproduces(report, session.seed)
        assert report["given"] == [seat_seed(drawn.manager.host_key, session.seed, report["seat"])]
    replay = httpx.get(replay_url, headers=headers, timeout=HTTP_TIMEOUT).json()
    assert replay["seed"] == session.seed  # shown after the game


def test_a_creator_cannot_choose_the_seed(drawn: LiveServer) -> None:
    response = httpx.post(
        f"{drawn.url}/api/games",
        json={"variant": "simple", "players": 5, "seed": 3},
        timeout=HTTP_TIMEOUT,
    )
    assert response.status_code >= 400 and "seed" in response.text
