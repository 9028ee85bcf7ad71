"""Pages and clients that do what the page never would, against a live server.

- a second click on a turn is told at once that the turn is over, not at the seat's
  next turn (where the refusal read as if a click on the new question had failed);
- a replaced person who opens the finished game takes nothing back: no "is back"
  notice after the end, and the final table keeps the seat's stand-in badge;
- a person may not take the name a seat goes by until its person names it ("guest 3"):
  a rematch, which seats each person under their name, failed on it with a 500;
- a client that leaves in the middle of a request body leaves no traceback in the
  server's log;
- a spectator who writes in the lobby is told that the chat opens with the game;
- a seat's page, in the lobby, is told why it closes when the seat is opened on
  another page, with a close code after which it does not reconnect (and take the seat
  back from the newer page in turn);
- the create form's list of variants is read from the files again only when one
  changed (each read took the event loop about 10 ms: clients asking in a loop slowed
  every live table).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer, autopilot, open_seat, recv_until, two_humans

from mafia_arena.web import app as app_module
from mafia_arena.web.session import CLOSE_ELSEWHERE

pytestmark = pytest.mark.timeout(120)

REPO = Path(__file__).resolve().parents[2]


def test_a_second_click_is_told_at_once_not_at_the_next_turn(server: LiveServer) -> None:
    game_id, (mine, theirs) = two_humans(server)

    async def play() -> tuple[list[str], list[str]]:
        other = asyncio.ensure_future(
            autopilot(server.ws_url, game_id, theirs["credential"], theirs["seat"], 2)
        )
        ws = await open_seat(server, game_id, mine["credential"])
        state = await recv_until(ws, lambda m: m["type"] == "state" and m["request"])
        turn = state["request"]["turn"]
        for _ in range(2):  # a double click
            await ws.send(json.dumps({"type": "act", "turn": turn, "choice": 0}))
        before: list[str] = []  # until the seat's next turn (or the end)
        while True:
            msg = await recv_until(ws, lambda m: m["type"] in ("error", "state"), timeout=60)
            if msg["type"] == "error":
                before.append(msg["reason"])
            elif msg.get("over") or (msg["request"] and msg["request"]["turn"] > turn):
                break
        after: list[str] = []  # the next turn's first second: no stale refusal
        try:
            async with asyncio.timeout(1):
                while True:
                    msg = json.loads(await ws.recv())
                    if msg["type"] == "error":
                        after.append(msg["reason"])
        except TimeoutError:
            pass
        await ws.close()
        other.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await other
        return before, after

    before, after = asyncio.run(play())
    # answered before the next turn: queued behind the first click (the turn is over
    # when it is read), or read after the turn closed (nothing to decide), by timing
    assert len(before) == 1
    assert before[0] in ("that turn is already over", "you have nothing to decide now")
    assert after == []


@pytest.fixture
def quick_grace(tmp_path: Path) -> Iterator[LiveServer]:
    """A live server whose absent people are replaced half a second after they leave."""
    live = LiveServer(settings_for(tmp_path, grace=0.5))
    live.manager.host_key = FIXED_HOST_KEY
    try:
        yield live
    finally:
        live.close()


def test_a_replaced_person_who_opens_the_finished_game_takes_nothing_back(
    quick_grace: LiveServer,
) -> None:
    server = quick_grace
    game_id, (mine, theirs) = two_humans(server)
    seat = mine["seat"]

    async def play() -> list[dict[str, Any]]:
        ws = await open_seat(server, game_id, mine["credential"])
        await recv_until(ws, lambda m: m["type"] == "state")
        await ws.close()  # gone: a stand-in plays the seat after the grace period
        await autopilot(server.ws_url, game_id, theirs["credential"], theirs["seat"], 3)
        ws = await open_seat(server, game_id, mine["credential"])
        got = [await recv_until(ws, lambda m: m["type"] == "state")]
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            try:
                async with asyncio.timeout(deadline - time.monotonic()):
                    got.append(json.loads(await ws.recv()))
            except TimeoutError:
                break
        await ws.close()
        return got

    got = asyncio.run(play())
    session = server.manager.get(game_id)
    assert session is not None and session.slots[seat].was_replaced
    final = [m for m in got if m["type"] == "state"][-1]
    assert final["over"]
    assert not [m for m in got if m["type"] == "info"]
    assert not [n for n in final["notices"] if "is back" in n]
    assert final["players"][seat]["replaced"]
    assert session.slots[seat].replaced


def test_a_seat_placeholder_name_is_refused_so_a_rematch_seats_everyone(
    server: LiveServer,
) -> None:
    created = server.create(variant="simple", players=5, seed=4, seats=[{"kind": "human"}] * 3)
    game_id, invites = created["game_id"], [i["invite"] for i in created["invites"]]
    carl = server.join(game_id, invites[2], "Carl")
    url = f"{server.url}/api/games/{game_id}/join"
    for name in ("guest 3", "Guest 3", "guest2", "ｇｕｅｓｔ 3"):
        refused = httpx.post(url, json={"invite": invites[0], "name": name}, timeout=HTTP_TIMEOUT)
        assert refused.status_code == 422, (name, refused.text)
        assert "without a name" in refused.text
    joined = [server.join(game_id, invites[0], "Ada"), server.join(game_id, invites[1]), carl]

    async def play() -> None:
        await asyncio.gather(
            *(
                autopilot(server.ws_url, game_id, j["credential"], j["seat"], j["seat"])
                for j in joined
            )
        )

    asyncio.run(play())
    server.wait_over(game_id)
    for j in joined:
        again = httpx.post(
            f"{server.url}/api/games/{game_id}/rematch",
            headers={"authorization": f"Bearer {j['credential']}"},
            timeout=HTTP_TIMEOUT,
        )
        assert again.status_code == 200, again.text


class Errors(logging.Handler):
    """Records the server log's errors."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_a_client_that_leaves_mid_body_leaves_no_traceback(server: LiveServer) -> None:
    errors = Errors()
    logger = logging.getLogger("uvicorn.error")
    logger.addHandler(errors)
    try:
        for _ in range(3):
            with socket.create_connection(("127.0.0.1", server.port)) as cut:
                cut.sendall(
                    b"POST /api/games HTTP/1.1\r\nHost: x\r\n"
                    b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
                )
                time.sleep(0.2)
        time.sleep(0.5)
        assert httpx.get(f"{server.url}/api/variants", timeout=HTTP_TIMEOUT).status_code == 200
    finally:
        logger.removeHandler(errors)
    assert [r.getMessage() for r in errors.records] == []


def test_a_spectator_is_told_that_the_chat_opens_when_the_game_starts(
    server: LiveServer,
) -> None:
    created = server.create(variant="simple", players=5, seats=[{"kind": "human"}])
    game_id = created["game_id"]

    async def watch() -> dict[str, Any]:
        ws = await open_seat(server, game_id, created["watch"])
        await recv_until(ws, lambda m: m["type"] == "lobby")
        await ws.send(json.dumps({"type": "chat", "channel": "spectators", "text": "early"}))
        reply = await recv_until(ws, lambda m: m["type"] in ("error", "chat"))
        await ws.close()
        return reply

    reply = asyncio.run(watch())
    assert reply == {
        "type": "error",
        "about": "chat",
        "reason": "the chat opens when the game starts",
    }
    session = server.manager.get(game_id)
    assert session is not None and session.chat.lines == []


def test_a_lobby_page_of_a_seat_opened_elsewhere_is_told_and_stays_closed(
    server: LiveServer,
) -> None:
    created = server.create(variant="simple", players=5, seats=[{"kind": "human"}] * 2)
    game_id = created["game_id"]
    credential = server.join(game_id, created["invites"][0]["invite"], "Ada")["credential"]

    async def twice() -> tuple[list[dict[str, Any]], int | None]:
        older = await open_seat(server, game_id, credential)
        await recv_until(older, lambda m: m["type"] == "lobby")
        newer = await open_seat(server, game_id, credential)
        await recv_until(newer, lambda m: m["type"] == "lobby")
        told = []
        with contextlib.suppress(websockets.ConnectionClosed):
            async with asyncio.timeout(HTTP_TIMEOUT):
                async for raw in older:
                    told.append(json.loads(raw))
        await newer.close()
        return told, older.close_code

    told, code = asyncio.run(twice())
    assert code == CLOSE_ELSEWHERE == 4409  # the page's script does not reconnect after it
    assert [m["reason"] for m in told if m["type"] == "error"] == [
        "this seat was opened in another tab or device"
    ]


def test_the_variants_are_read_again_only_when_a_file_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    envs = tmp_path / "envs"
    shutil.copytree(REPO / "envs", envs)
    monkeypatch.setattr("mafia_arena.rules.loader.envs_dir", lambda: envs)
    loaded: list[str] = []
    real = app_module.load_variant

    def counting(name: str) -> Any:
        loaded.append(name)
        return real(name)

    monkeypatch.setattr(app_module, "load_variant", counting)
    server = LiveServer(settings_for(tmp_path / "server"))
    try:
        lists = [
            httpx.get(f"{server.url}/api/variants", timeout=HTTP_TIMEOUT).json() for _ in range(5)
        ]
        read = list(loaded)
        broken = envs / "palermo.toml"
        broken.write_text(broken.read_text().replace("[roles.known_a]", "[roles.known_a]\nx = 1"))
        later = time.time() + 5  # a later modification time than the copy's, surely
        os.utime(broken, (later, later))
        after = httpx.get(f"{server.url}/api/variants", timeout=HTTP_TIMEOUT).json()
    finally:
        server.close()
    assert sorted(read) == sorted(v["name"] for v in lists[0]) and "palermo" in read
    assert all(listed == lists[0] for listed in lists)
    assert [v["name"] for v in after] == [v["name"] for v in lists[0] if v["name"] != "palermo"]
