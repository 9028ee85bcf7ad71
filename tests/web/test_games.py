"""Whole web games over websockets: results, replay, timers, absence, reconnection."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from pathlib import Path

import httpx
import pytest
import websockets
from tests.cli.support import run_cli_output
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer, autopilot

from mafia_arena.leaderboard.records import filter_records, load_records, parse_game
from mafia_arena.runner.log import GameLog
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.view import SeatTracker
from mafia_arena.web.render import lines
from mafia_arena.web.settings import MAX_PLAYERS

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(180)


def test_mixed_game_is_stored_like_a_tournament_game(server: LiveServer, tmp_path: Path) -> None:
    created = server.create(
        variant="standard", players=7, seed=5, seats=[{"kind": "bot"}, {"kind": "human"}]
    )
    game_id = created["game_id"]
    joined = server.join(game_id, created["invites"][0]["invite"], "Alice")
    played = asyncio.run(autopilot(server.ws_url, game_id, joined["credential"], 1, 3))
    game = server.wait_over(game_id)
    assert played.messages[-1]["over"] and played.messages[-1]["reveal"]["seats"]

    records = load_records(tmp_path / "results")
    assert len(records) == 1
    record = records[0]
    assert record["seats"][1]["agent"] == "human:Alice"
    assert record["seats"][1]["agent_kind"] == "human"
    assert record["seats"][0]["agent_kind"] == "scripted"
    assert record["winner"] == game.state.winner
    assert parse_game(record).decisive or record["winner"] is None
    assert filter_records(records, "mixed") == records
    stored = GameLog.load(record["log"])
    assert [e.to_json() for e in stored.events] == [e.to_json() for e in game.events]

    replay = httpx.get(
        f"{server.url}/api/games/{game_id}/replay",
        headers={"Authorization": f"Bearer {joined['credential']}"},
        timeout=HTTP_TIMEOUT,
    ).json()
    names = DisplayNames.of(game.variant)
    for seat in replay["seats"]:
        assert seat["lines"] == lines(
            SeatTracker(seat["seat"]).update(game), names=names, variant=game.variant
        )
        assert seat["role"] == game.state.seats[seat["seat"]].card


def test_a_silent_human_gets_the_default_on_timeout(tmp_path: Path) -> None:
    live = LiveServer(settings_for(tmp_path, timer_scale=0.004, grace=600))
    live.manager.host_key = FIXED_HOST_KEY  # the same bots' course every run
    try:
        created = live.create(variant="simple", players=5, seed=2, seats=[{"kind": "human"}])
        game_id = created["game_id"]
        joined = live.join(game_id, created["invites"][0]["invite"])

        async def sit_silently() -> None:
            async with websockets.connect(
                f"{live.ws_url}/ws/{game_id}", open_timeout=HTTP_TIMEOUT
            ) as ws:
                await ws.send(json.dumps({"type": "auth", "credential": joined["credential"]}))
                async with asyncio.timeout(60):
                    async for raw in ws:
                        if json.loads(raw).get("over"):
                            return

        asyncio.run(sit_silently())
        game = live.wait_over(game_id)
        mine = [d for d in game.decisions if d["seat"] == 0]
        assert mine and all(d["fallback"] == "timeout" for d in mine)
        record = load_records(tmp_path / "results")[0]
        assert record["seats"][0]["fallbacks"] == len(mine)
    finally:
        live.close()


@pytest.mark.parametrize("policy", ["bot", "default"])
def test_a_player_gone_for_good_is_replaced(tmp_path: Path, policy: str) -> None:
    live = LiveServer(settings_for(tmp_path, grace=0.2))
    try:
        created = live.create(
            variant="simple",
            players=5,
            seed=3,
            absent=policy,
            seats=[{"kind": "human"}, {"kind": "human"}],
        )
        game_id = created["game_id"]
        _gone, stays = (live.join(game_id, i["invite"]) for i in created["invites"])
        played = asyncio.run(autopilot(live.ws_url, game_id, stays["credential"], 1, 4))
        game = live.wait_over(game_id)
        gone_decisions = [d for d in game.decisions if d["seat"] == 0]
        if policy == "default":
            assert gone_decisions and all(d["fallback"] == "absent" for d in gone_decisions)
        else:
            assert not any(d.get("fallback") for d in gone_decisions)
        flagged = [
            p
            for m in played.messages
            if m["type"] == "state"
            for p in m["players"]
            if p["seat"] == 0 and p["replaced"]
        ]
        assert flagged, "the stand-in was not shown to the others"
        record = load_records(tmp_path / "results")[0]
        assert record["seats"][0]["replaced"] is True
        assert record["seats"][0]["agent_kind"] == "human"
    finally:
        live.close()


def test_reconnect_gets_the_full_view_back(server: LiveServer) -> None:
    created = server.create(
        variant="standard", players=7, seed=8, seats=[{"kind": "human"}, {"kind": "human"}]
    )
    game_id = created["game_id"]
    first, other = (server.join(game_id, i["invite"]) for i in created["invites"])

    async def run() -> None:
        helper = asyncio.ensure_future(
            autopilot(server.ws_url, game_id, other["credential"], other["seat"], 9)
        )
        url = f"{server.ws_url}/ws/{game_id}"
        auth = json.dumps({"type": "auth", "credential": first["credential"]})
        async with websockets.connect(
            url, open_timeout=HTTP_TIMEOUT
        ) as ws:  # play a few turns, then drop
            await ws.send(auth)
            answered = 0
            async with asyncio.timeout(60):
                async for raw in ws:
                    msg = json.loads(raw)
                    request = msg.get("request")
                    if request:
                        await ws.send(
                            json.dumps({"type": "act", "turn": request["turn"], "choice": 0})
                        )
                        answered += 1
                    if answered >= 2 or msg.get("over"):
                        break
        async with websockets.connect(
            url, open_timeout=HTTP_TIMEOUT
        ) as ws:  # come back: everything, from the top
            await ws.send(auth)
            msg = json.loads(await ws.recv())
            assert msg["type"] == "state" and msg["reset"] is True
            game = server.game(game_id)
            truth = lines(
                SeatTracker(first["seat"]).update(game),
                names=DisplayNames.of(game.variant),
                variant=game.variant,
            )
            assert msg["lines"] == truth[: len(msg["lines"])]
            assert len(msg["lines"]) >= len(truth) - 5
            assert msg["you"]["seat"] == first["seat"]
        await autopilot(server.ws_url, game_id, first["credential"], first["seat"], 10)
        await helper

    asyncio.run(run())
    assert server.wait_over(game_id).over


def test_lobby_waits_for_humans_and_the_creator_can_start(server: LiveServer) -> None:
    created = server.create(variant="simple", players=4, seats=[{"kind": "human"}] * 3)
    game_id, admin = created["game_id"], created["admin"]
    lobby = httpx.get(f"{server.url}/api/games/{game_id}", timeout=HTTP_TIMEOUT).json()
    assert not lobby["started"] and [s["kind"] for s in lobby["seats"]] == [
        "human",
        "human",
        "human",
        "bot",
    ]
    server.join(game_id, created["invites"][0]["invite"], "Bo")
    lobby = httpx.get(f"{server.url}/api/games/{game_id}", timeout=HTTP_TIMEOUT).json()
    assert not lobby["started"]
    invites = httpx.get(
        f"{server.url}/api/games/{game_id}/invites",
        headers={"Authorization": f"Bearer {admin}"},
        timeout=HTTP_TIMEOUT,
    ).json()["invites"]
    assert [i["seat"] for i in invites] == [1, 2]
    started = httpx.post(
        f"{server.url}/api/games/{game_id}/start",
        headers={"Authorization": f"Bearer {admin}"},
        timeout=HTTP_TIMEOUT,
    ).json()
    assert started["started"]
    kinds = [s["kind"] for s in started["seats"]]
    assert kinds == ["human", "bot", "bot", "bot"]  # untaken human seats went to bots
    late = httpx.post(
        f"{server.url}/api/games/{game_id}/join",
        json={"invite": created["invites"][1]["invite"]},
        timeout=HTTP_TIMEOUT,
    )
    assert late.status_code == 403
    time.sleep(0.1)


def test_create_validates_the_request(server: LiveServer) -> None:
    bad = [
        {"variant": "nope"},
        {"variant": "standard", "players": 2},
        {"variant": "standard", "players": 7, "seats": [{"kind": "bot", "agent": "/etc/x"}]},
        {"variant": "standard", "players": 7, "overrides": {"mafia": 99}},
        {"variant": "standard", "players": 7, "seats": [{"kind": "alien"}]},
        {"variant": "standard", "players": 7, "surprise": 1},
    ]
    for spec in bad:
        response = httpx.post(f"{server.url}/api/games", json=spec, timeout=HTTP_TIMEOUT)
        assert response.status_code in (400, 422), spec


def test_the_variants_list_gives_the_rules_range_and_the_table_cap_apart(
    server: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each variant's player range is the rules' own, as ``mafia-arena variants`` lists
    it (classic: 7 and no upper bound, not the server's 40), and the most players this
    server seats at one table is a field of its own."""
    listed = httpx.get(f"{server.url}/api/variants", timeout=HTTP_TIMEOUT)
    assert listed.status_code == 200, listed.text
    by_name = {v["name"]: v for v in listed.json()}
    assert (by_name["classic"]["min_players"], by_name["classic"]["max_players"]) == (7, None)
    assert by_name["dictator"]["max_players"] == 24
    assert {v["table_cap"] for v in by_name.values()} == {MAX_PLAYERS}
    code, out, _ = run_cli_output(["variants"], capsys)
    assert code == 0
    shown = {line.split()[0]: line.split()[1] for line in out.splitlines() if line.strip()}
    ranges = {
        name: f"{v['min_players']}+"
        if v["max_players"] is None
        else f"{v['min_players']}-{v['max_players']}"
        for name, v in by_name.items()
    }
    assert ranges == shown


def test_a_broken_variant_file_leaves_the_others_on_the_create_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a variant file edited wrongly while the server runs: the create form listed no
    # variant at all (the list answered 500); now only that one is left off
    envs = tmp_path / "envs"
    shutil.copytree(REPO / "envs", envs)
    broken = envs / "palermo.toml"
    broken.write_text(broken.read_text().replace("[roles.known_a]", "[roles.known_a]\nshade = 1"))
    monkeypatch.setattr("mafia_arena.rules.loader.envs_dir", lambda: envs)
    server = LiveServer(settings_for(tmp_path / "server"))
    try:
        listed = httpx.get(f"{server.url}/api/variants", timeout=HTTP_TIMEOUT)
        refused = httpx.post(
            f"{server.url}/api/games",
            json={"variant": "palermo", "players": 12},
            timeout=HTTP_TIMEOUT,
        )
    finally:
        server.close()
    assert listed.status_code == 200, listed.text
    assert [v["name"] for v in listed.json()] == [
        "classic",
        "club",
        "dictator",
        "simple",
        "standard",
    ]
    assert refused.status_code in (400, 422), refused.text
    assert "roles.known_a.shade" in refused.text and "unknown key" in refused.text
