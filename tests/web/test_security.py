"""Security of the web app over real HTTP and websockets (a live server, instant bots).

Every hostile input below must be refused or neutralised, answered to the sender only,
and leave the game intact (it still finishes normally afterwards).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer, autopilot, open_seat, recv_until

pytestmark = pytest.mark.timeout(120)


DAY_FIRST = {"rules.first_phase": "day"}  # so P1 surely gets a speech turn and a vote


def two_humans(server: LiveServer, **extra: Any) -> tuple[str, dict[str, Any], list[dict]]:
    """A standard day-first game with humans at P1 and P2, both joined (so it started)."""
    spec: dict[str, Any] = {
        "variant": "standard",
        "players": 7,
        "seed": 11,
        "overrides": DAY_FIRST,
        **extra,
    }
    created = server.create(seats=[{"kind": "human"}, {"kind": "human"}], **spec)
    game_id = created["game_id"]
    joined = [server.join(game_id, inv["invite"], f"h{inv['seat']}") for inv in created["invites"]]
    return game_id, created, joined


def test_invite_is_bound_to_its_device_and_exchanged_only_by_post(server: LiveServer) -> None:
    created = server.create(variant="simple", players=5, seats=[{"kind": "human"}] * 2)
    game_id, invite = created["game_id"], created["invites"][0]["invite"]
    assert (
        httpx.get(f"{server.url}/api/games/{game_id}/join", timeout=HTTP_TIMEOUT).status_code == 405
    )
    join_url = f"{server.url}/api/games/{game_id}/join"
    with httpx.Client(timeout=HTTP_TIMEOUT) as device:
        first = device.post(join_url, json={"invite": invite})
        assert first.status_code == 200
        cookie = first.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie
        back = device.post(join_url, json={"invite": invite})  # same device: same seat
        assert back.status_code == 200 and back.json()["seat"] == first.json()["seat"]
        assert "set-cookie" not in back.headers  # the device keeps its cookie
    again = httpx.post(join_url, json={"invite": invite}, timeout=HTTP_TIMEOUT)  # another device
    assert again.status_code == 403 and "another device" in again.json()["detail"]
    moved = httpx.post(
        f"{server.url}/api/games/{game_id}/resume",
        json={"resume": first.json()["resume"]},
        timeout=HTTP_TIMEOUT,
    )
    assert moved.status_code == 200 and moved.json()["seat"] == first.json()["seat"]
    wrong = httpx.post(
        f"{server.url}/api/games/{game_id}/resume", json={"resume": "y" * 43}, timeout=HTTP_TIMEOUT
    )
    assert wrong.status_code == 403
    forged = httpx.post(
        f"{server.url}/api/games/{game_id}/join", json={"invite": "x" * 43}, timeout=HTTP_TIMEOUT
    )
    assert forged.status_code == 403
    lobby = httpx.get(f"{server.url}/api/games/{game_id}", timeout=HTTP_TIMEOUT).text
    for secret in [created["admin"], *(i["invite"] for i in created["invites"])]:
        assert secret not in lobby


def test_page_keeps_credentials_out_of_urls_and_sets_security_headers(server: LiveServer) -> None:
    page = httpx.get(f"{server.url}/g/whatever", timeout=HTTP_TIMEOUT)
    assert page.status_code == 200
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert page.headers["referrer-policy"] == "no-referrer"
    script = "".join(
        httpx.get(f"{server.url}/static/{name}", timeout=HTTP_TIMEOUT).text
        for name in ("app.js", "game.js")
    )
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in script
    assert "localStorage" in script and "?credential" not in script


def test_wrong_or_foreign_credentials_are_refused(server: LiveServer) -> None:
    game_a, created_a, joined_a = two_humans(server)
    game_b, _, _ = two_humans(server)
    cred_a = joined_a[0]["credential"]
    with httpx.Client(base_url=server.url, timeout=HTTP_TIMEOUT) as http:
        for game_id, token in [(game_a, "y" * 43), (game_b, cred_a), (game_a, created_a["admin"])]:
            response = http.get(
                f"/api/games/{game_id}/view", headers={"Authorization": f"Bearer {token}"}
            )
            assert response.status_code == 403
        assert http.get(f"/api/games/{game_a}/view").status_code == 403
        seat_token = {"Authorization": f"Bearer {cred_a}"}
        assert http.post(f"/api/games/{game_a}/start", headers=seat_token).status_code == 403
        assert http.get(f"/api/games/{game_a}/invites", headers=seat_token).status_code == 403
        assert http.get(f"/api/games/{game_a}/replay", headers=seat_token).status_code == 409

    async def sockets() -> None:
        for game_id, token in [(game_a, "z" * 43), (game_b, cred_a), (game_a, created_a["admin"])]:
            ws = await open_seat(server, game_id, token)
            msg = json.loads(await ws.recv())
            assert msg == {"type": "error", "reason": "not authorised"}
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
        ws = await websockets.connect(f"{server.ws_url}/ws/{game_a}", open_timeout=HTTP_TIMEOUT)
        await ws.send(json.dumps({"type": "act", "turn": 1, "choice": 0}))  # no auth first
        assert json.loads(await ws.recv())["reason"] == "not authorised"
        await ws.close()

    asyncio.run(sockets())


def test_each_credential_sees_only_its_own_seat(server: LiveServer) -> None:
    game_id, _, joined = two_humans(server)
    for entry in joined:
        view = httpx.get(
            f"{server.url}/api/games/{game_id}/view",
            headers={"Authorization": f"Bearer {entry['credential']}"},
            timeout=HTTP_TIMEOUT,
        ).json()
        assert view["you"]["seat"] == entry["seat"]
        own = [p for p in view["players"] if p["you"]]
        assert [p["seat"] for p in own] == [entry["seat"]]
        text = json.dumps(view)
        for other in joined:
            assert other["credential"] not in text


def test_hostile_messages_are_refused_and_the_game_survives(server: LiveServer) -> None:
    """Forged seat, illegal choice, text where a choice is due, oversized and malformed
    frames, another seat's credential: each refused to the sender, nothing recorded."""
    game_id, _, joined = two_humans(server)
    mine, theirs = joined
    seat = mine["seat"]

    async def attack() -> list[str]:
        other = asyncio.ensure_future(
            autopilot(server.ws_url, game_id, theirs["credential"], theirs["seat"], 2)
        )
        ws = await open_seat(server, game_id, mine["credential"])
        while True:  # pass speaking turns until a pick (night action or vote) is open
            state = await recv_until(
                ws, lambda m: m["type"] == "state" and m["request"], timeout=60
            )
            turn = state["request"]["turn"]
            if not state["request"]["free_text"]:
                break
            await ws.send(json.dumps({"type": "act", "turn": turn, "choice": 0}))
        game = server.game(game_id)
        mine_before = [d for d in game.decisions if d["seat"] == seat]
        probes: list[Any] = [
            {"type": "act", "turn": turn, "choice": 0, "seat": theirs["seat"]},
            {"type": "act", "turn": turn, "choice": len(state["request"]["options"])},
            {"type": "say", "turn": turn, "text": "I pick whoever I like"},
            {"type": "act", "turn": turn - 1, "choice": 0},
            {"type": "act", "turn": turn + 1, "choice": 0},
            {"type": "act", "turn": str(turn), "choice": 0},
            {"type": "say", "turn": turn, "text": "x" * 5000},
            {"type": "auth", "credential": theirs["credential"]},
            {"type": "nonsense"},
            "{" + "x" * 20_000,
        ]
        errors: list[str] = []
        for probe in probes:
            await ws.send(probe if isinstance(probe, str) else json.dumps(probe))
            errors.append((await recv_until(ws, lambda m: m["type"] == "error"))["reason"])
        assert [d for d in game.decisions if d["seat"] == seat] == mine_before
        assert game.request(seat) is not None, "a hostile message answered the request"
        await ws.send("{" + "x" * 70_000)  # beyond the server's websocket size limit
        with pytest.raises(websockets.ConnectionClosed):
            await recv_until(ws, lambda m: False, timeout=HTTP_TIMEOUT)  # until closed
        assert [d for d in game.decisions if d["seat"] == seat] == mine_before
        # the game is intact: the seat plays on to the end from a fresh connection
        await autopilot(server.ws_url, game_id, mine["credential"], seat, 1)
        await other
        return errors

    errors = asyncio.run(attack())
    assert "permitted" in errors[0]  # no message may name a seat
    assert "not one of the options" in errors[1]
    assert "listed choices" in errors[2]
    assert "earlier turn" in errors[3]
    assert "not been asked yet" in errors[4]
    assert "invalid" in errors[5]
    assert "invalid" in errors[6]
    assert errors[7] == "already authenticated"
    assert "invalid" in errors[8]
    assert "too large" in errors[9]
    assert server.wait_over(game_id).over


def test_script_speech_is_stored_and_delivered_as_plain_text(server: LiveServer) -> None:
    game_id, _, (a, b) = two_humans(server)
    payload = "<script>alert(1)</script>"

    async def play() -> Any:
        return await asyncio.gather(
            autopilot(
                server.ws_url, game_id, a["credential"], a["seat"], 1, speak_ratio=1.0, text=payload
            ),
            autopilot(server.ws_url, game_id, b["credential"], b["seat"], 2),
        )

    _, seen_by_b = asyncio.run(play())
    game = server.wait_over(game_id)
    assert any(e.kind == "speech" and e.fact.to_payload()["text"] == payload for e in game.events)
    lines = [line["text"] for m in seen_by_b.messages for line in m.get("lines", [])]
    assert any(f'"{payload}"' in line for line in lines)  # data, rendered with textContent


def test_flood_is_rate_limited_without_harm(server: LiveServer) -> None:
    game_id, _, joined = two_humans(server)

    async def flood() -> tuple[int, int | None]:
        ws = await open_seat(server, game_id, joined[0]["credential"])
        await recv_until(ws, lambda m: m["type"] == "state")
        for _ in range(200):
            await ws.send(json.dumps({"type": "ping"}))
        slow = 0
        with contextlib.suppress(websockets.ConnectionClosed):
            async with asyncio.timeout(HTTP_TIMEOUT):  # a hang guard: read until closed
                while True:
                    msg = json.loads(await ws.recv())
                    slow += msg.get("reason", "").startswith("too many")
        return slow, ws.close_code

    slow, code = asyncio.run(flood())
    # closed as a policy violation (1008), not as a normal close (1000) after which a
    # page reconnects as from a dropped connection
    assert slow >= 1 and code == 1008
    assert not server.manager.get(game_id).failed  # type: ignore[union-attr]


def test_the_watch_token_only_watches(server: LiveServer) -> None:
    """A spectator's token opens no seat route, and its socket cannot act or talk to
    the seats; its refused messages change nothing and go to it alone."""
    game_id, created, _joined = two_humans(server)
    watch = {"Authorization": f"Bearer {created['watch']}"}
    for method, path in (
        ("GET", "view"),
        ("GET", "invites"),
        ("POST", "start"),
        ("POST", "rematch"),
    ):
        response = httpx.request(
            method, f"{server.url}/api/games/{game_id}/{path}", headers=watch, timeout=HTTP_TIMEOUT
        )
        assert response.status_code == 403, path
    other = server.create(variant="simple", players=5, seats=[{"kind": "human"}])

    async def run() -> list[dict[str, Any]]:
        async with websockets.connect(
            f"{server.ws_url}/ws/{other['game_id']}", open_timeout=HTTP_TIMEOUT
        ) as ws:
            await ws.send(json.dumps({"type": "auth", "credential": created["watch"]}))
            foreign = json.loads(await ws.recv())  # another game's watch token
        ws = await open_seat(server, game_id, created["watch"])
        got = [foreign, await recv_until(ws, lambda m: m.get("type") == "state")]
        for message in (
            {"type": "act", "turn": 1, "choice": 0},
            {"type": "say", "turn": 1, "text": "hello"},
            {"type": "back"},
            {"type": "chat", "channel": "dead", "text": "let me in"},
        ):
            await ws.send(json.dumps(message))
            got.append(await recv_until(ws, lambda m: m.get("type") == "error"))
        await ws.close()
        return got

    foreign, state, *errors = asyncio.run(run())
    assert foreign == {"type": "error", "reason": "not authorised"}
    assert state["spectator"] and state["you"] is None and state["request"] is None
    assert [e["reason"] for e in errors] == [
        "spectators only watch and chat",
        "spectators only watch and chat",
        "spectators only watch and chat",
        "you cannot write in that chat",
    ]
    session = server.manager.get(game_id)
    assert session is not None
    made = zip(server.game(game_id).decisions, session.marks, strict=False)
    assert not [d for d, by in made if by == "player"]  # nobody acted for the people


def test_spectators_per_game_are_bounded(tmp_path: Path) -> None:
    live = LiveServer(settings_for(tmp_path, max_spectators=2))
    try:
        created = live.create(variant="simple", players=5, seats=[{"kind": "human"}])
        game_id, watch = created["game_id"], created["watch"]

        async def run() -> tuple[list[str], Any]:
            pages = [await open_seat(live, game_id, watch) for _ in range(2)]
            got = [json.loads(await page.recv())["type"] for page in pages]  # the lobby
            third = await open_seat(live, game_id, watch)
            refused = json.loads(await third.recv())
            with contextlib.suppress(websockets.ConnectionClosed):
                await third.recv()
            code = third.close_code
            for page in pages:
                await page.close()
            return [*got, refused["reason"]], code

        seen, code = asyncio.run(run())
    finally:
        live.close()
    assert seen == ["lobby", "lobby", "too many spectators"]
    assert code == 4429
