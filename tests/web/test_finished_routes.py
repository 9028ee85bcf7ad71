"""The routes of a finished game the server holds only in its store (after a restart):
a player's rematch works as before the restart, and joining, seating and the creator's
routes say the game is over, never "no such game".

Real servers (`LiveServer`) started one after the other on the same live store.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer, autopilot

from mafia_arena.web.auth import DEVICE_COOKIE
from mafia_arena.web.db import LiveStore

pytestmark = pytest.mark.timeout(180)

TWO_PEOPLE = [{"kind": "human"}, {"kind": "human"}, *[{"kind": "bot", "agent": "random"}] * 5]


def played_to_the_end(
    tmp_path: Path, rematch_first: bool = False
) -> tuple[str, dict[str, Any], list[httpx.Client]]:
    """A 7-seat game of two people (Ada, Bo) and bots played to its end on a server that
    is then stopped: its id, what its creation answered (with each person's ``keys``,
    and with `rematch_first` the ``rematch`` Ada asked for before the stop), and each
    person's device (a client that keeps the device cookie their join set)."""
    live = LiveServer(settings_for(tmp_path))
    live.manager.host_key = FIXED_HOST_KEY
    try:
        created = live.create(variant="standard", players=7, seed=3, seats=TWO_PEOPLE)
        game_id = created["game_id"]
        devices = [httpx.Client(base_url=live.url, timeout=HTTP_TIMEOUT) for _ in range(2)]
        keys = []
        for device, invite, name in zip(devices, created["invites"], ("Ada", "Bo"), strict=True):
            reply = device.post(
                f"/api/games/{game_id}/join", json={"invite": invite["invite"], "name": name}
            )
            assert reply.status_code == 200, reply.text
            keys.append(reply.json())

        async def play() -> None:
            await asyncio.gather(
                *(autopilot(live.ws_url, game_id, k["credential"], k["seat"], 3) for k in keys)
            )

        player = threading.Thread(
            target=asyncio.run, args=(play(),)
        )  # a browser's loop may run here
        player.start()
        player.join(150)
        live.wait_over(game_id)
        if rematch_first:
            reply = ask_rematch(devices[0], live.url, game_id, keys[0]["credential"])
            assert reply.status_code == 200, reply.text
            created["rematch"] = reply.json()
    finally:
        live.close()
    created["keys"] = keys
    return game_id, created, devices


def ask_rematch(device: httpx.Client, url: str, game_id: str, credential: str) -> httpx.Response:
    """A player's device asks for the rematch of `game_id` from the server at `url`."""
    device.base_url = httpx.URL(url)
    return device.post(
        f"/api/games/{game_id}/rematch", headers={"Authorization": f"Bearer {credential}"}
    )


@pytest.mark.parametrize("rematch_first", [True, False], ids=["made-before", "made-after"])
def test_a_rematch_after_a_restart_works_as_before_it(tmp_path: Path, rematch_first: bool) -> None:
    """Each player asks from their device, before or after restarts: one rematch, each
    in their own seat under their name, and it starts once both are back."""
    game_id, created, (ada, bo) = played_to_the_end(tmp_path, rematch_first)
    ada_keys, bo_keys = created["keys"]
    again = LiveServer(settings_for(tmp_path))
    try:
        assert again.manager.get(game_id) is None  # only in the store now
        first = ask_rematch(ada, again.url, game_id, ada_keys["credential"])
        assert first.status_code == 200, first.text
        rematch = first.json()
        assert rematch["seat"] == 0 and rematch["game_id"] != game_id
        if rematch_first:
            assert rematch["game_id"] == created["rematch"]["game_id"]
        twice = ask_rematch(ada, again.url, game_id, ada_keys["credential"])
        assert twice.status_code == 200, twice.text
        assert (twice.json()["game_id"], twice.json()["seat"]) == (rematch["game_id"], 0)
        stranger = ask_rematch(
            httpx.Client(timeout=HTTP_TIMEOUT), again.url, game_id, "not-a-credential"
        )
        assert stranger.status_code == 403, stranger.text
        admin = ask_rematch(
            httpx.Client(timeout=HTTP_TIMEOUT), again.url, game_id, created["admin"]
        )
        assert admin.status_code == 403
        assert admin.json()["detail"] == "only the game's players can ask for a rematch"
    finally:
        again.close()
    third = LiveServer(settings_for(tmp_path))
    try:
        joined = ask_rematch(bo, third.url, game_id, bo_keys["credential"])
        assert joined.status_code == 200, joined.text
        assert (joined.json()["game_id"], joined.json()["seat"]) == (rematch["game_id"], 1)
        back = ask_rematch(ada, third.url, game_id, ada_keys["credential"])
        assert back.status_code == 200, back.text
        assert (back.json()["game_id"], back.json()["seat"]) == (rematch["game_id"], 0)
        elsewhere = ask_rematch(
            httpx.Client(timeout=HTTP_TIMEOUT), third.url, game_id, ada_keys["credential"]
        )
        assert elsewhere.status_code == 403  # Ada's seat there is played from her device
        lobby = httpx.get(
            f"{third.url}/api/games/{rematch['game_id']}", timeout=HTTP_TIMEOUT
        ).json()
        assert [s["name"] for s in lobby["seats"][:2]] == ["Ada", "Bo"]
        assert lobby["started"] is True  # every person is back
        assert len(third.manager.games) == 1  # one rematch, not one per restart
    finally:
        third.close()


def test_a_forgotten_games_rematch_says_why_it_cannot_be_made(tmp_path: Path) -> None:
    """A finished game forgotten to make room lost its seats' credentials: the rematch
    is refused with the reason (410), not "no such game"."""
    game_id, created, (ada, _) = played_to_the_end(tmp_path)
    store = LiveStore(tmp_path / "live.sqlite")
    store.db.execute("DELETE FROM tokens WHERE game_id = ?", (game_id,))  # as `_forget`
    store.db.commit()
    store.close()
    again = LiveServer(settings_for(tmp_path))
    try:
        reply = ask_rematch(ada, again.url, game_id, created["keys"][0]["credential"])
        assert reply.status_code == 410, reply.text
        assert "no longer kept" in reply.json()["detail"]
    finally:
        again.close()


def test_joining_seating_and_the_creators_routes_say_the_game_is_over_after_a_restart(
    tmp_path: Path,
) -> None:
    game_id, created, (ada, _) = played_to_the_end(tmp_path)
    admin = {"Authorization": f"Bearer {created['admin']}"}
    seat = {"Authorization": f"Bearer {created['keys'][0]['credential']}"}
    invite = {"invite": created["invites"][0]["invite"], "name": "Ada"}
    again = LiveServer(settings_for(tmp_path))
    try:
        for where in (game_id, "NoSuchGame1"):
            asks = [
                ("POST", f"/api/games/{where}/join", invite, {}),
                ("POST", f"/api/games/{where}/seat", {"invite": invite["invite"]}, {}),
                ("POST", f"/api/games/{where}/resume", {"resume": "x" * 43}, {}),
                ("POST", f"/api/games/{where}/start", None, admin),
                ("POST", f"/api/games/{where}/rulings", {"kind": "pause", "seat": 0}, admin),
                ("GET", f"/api/games/{where}/invites", None, admin),
                ("GET", f"/api/games/{where}/view", None, seat),
            ]
            for method, path, body, headers in asks:
                ada.base_url = httpx.URL(again.url)
                reply = ada.request(method, path, json=body, headers=headers)
                if where == game_id:
                    assert reply.status_code == 409, (path, reply.text)
                    detail = reply.json()["detail"]
                    assert detail == f"the game is over; its replay: /replay/{game_id}"
                else:
                    assert reply.status_code == 404, (path, reply.text)
                    assert reply.json()["detail"] == "no such game"
        assert DEVICE_COOKIE in ada.cookies  # the device kept from the game
    finally:
        again.close()


@pytest.mark.browser
def test_the_replay_page_offers_a_player_the_rematch_after_a_restart(
    browser: Any, tmp_path: Path
) -> None:
    """After a restart a player's page of the finished game opens its replay, which
    offers them the rematch; the button takes their seat there and opens its page."""
    game_id, created, _ = played_to_the_end(tmp_path)
    again = LiveServer(settings_for(tmp_path))
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(again.url + "/")
        seat = json.dumps({"credential": created["keys"][0]["credential"], "seat": 0})
        page.evaluate(f"localStorage.setItem('mafia:seat:{game_id}', {json.dumps(seat)})")
        page.goto(f"{again.url}/g/{game_id}")
        button = page.locator("#past-rematch")
        expect(button).to_be_visible()
        assert page.url == f"{again.url}/replay/{game_id}"
        expect(button).to_have_text("Rematch with the same group")
        button.click()
        page.wait_for_url(lambda url: "/g/" in url and game_id not in url)
        new_id = page.url.rsplit("/", 1)[-1]
        lobby = httpx.get(f"{again.url}/api/games/{new_id}", timeout=HTTP_TIMEOUT).json()
        assert (lobby["seats"][0]["name"], lobby["seats"][0]["taken"]) == ("Ada", True)
        kept = page.evaluate(f"localStorage.getItem('mafia:seat:{new_id}')")
        assert json.loads(kept)["seat"] == 0

        viewer = browser.new_context().new_page()  # anyone else's replay offers nothing
        viewer.goto(f"{again.url}/replay/{game_id}")
        viewer.wait_for_selector("#past-lines li")
        viewer.wait_for_timeout(300)
        assert viewer.locator("#past-rematch-box").is_hidden()
        viewer.context.close()
    finally:
        context.close()
        again.close()
