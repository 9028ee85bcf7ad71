"""Abuse on 127.0.0.1, in bounded loops: each is refused with a clear status while a
normal player, created from another address, keeps playing.

The normal player's action latency (an ``act`` sent → the page's next state) is
measured during each flood and printed (``-s`` shows it); no test asserts a time.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer

from mafia_arena.web.session import CLOSE_ELSEWHERE
from mafia_arena.web.settings import GameSpec
from mafia_arena.web.ws import MAX_STRIKES

PAID = "agents/openai-gpt-4o-mini.toml"
OTHER = "127.0.0.2"  # a second loopback address: another client than the flooder


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[LiveServer]:
    """The server's own hardening defaults (no seeds from creators, no paid bots), with
    a fixed host key: the normal player's bots then take the same course every run, so
    the latency measurement always gets its turns."""
    live = LiveServer(
        settings_for(tmp_path, allowed_agents=None, chosen_seeds=False, timer_scale=10.0)
    )
    live.manager.host_key = FIXED_HOST_KEY
    try:
        yield live
    finally:
        live.close()


def normal_player(server: LiveServer) -> tuple[str, str]:
    """A game created from another address (the flooder's limit is not theirs), joined."""
    # seed 82 deals P1 the detective, so the player acts from the first night on
    spec = GameSpec(variant="standard", players=7, seed=82, seats=[{"kind": "human"}])
    settings = server.manager.settings
    settings.chosen_seeds = True  # the test's own game; refused to anonymous creators
    try:
        created = server.manager.create(spec, client="192.0.2.7")
    finally:
        settings.chosen_seeds = False
    joined = server.join(created["game_id"], created["invites"][0]["invite"], "Norma")
    return created["game_id"], joined["credential"]


async def action_latencies(
    server: LiveServer, game_id: str, credential: str, n: int, source: str | None = None
) -> list[float]:
    """Play `n` turns (first option each time); seconds from each act to the next state.
    `source`: the local address to connect from (another client than the flood's)."""
    out: list[float] = []
    local: dict[str, Any] = {"local_addr": (source, 0)} if source else {}
    async with websockets.connect(
        f"{server.ws_url}/ws/{game_id}", **local, open_timeout=HTTP_TIMEOUT
    ) as ws:
        await ws.send(json.dumps({"type": "auth", "credential": credential}))
        request: dict[str, Any] | None = None
        choice, sent = 0, None
        async with asyncio.timeout(120):
            while len(out) < n:
                if request is not None and sent is None:
                    sent = time.perf_counter()
                    turn = request["turn"]
                    await ws.send(json.dumps({"type": "act", "turn": turn, "choice": choice}))
                msg = json.loads(await ws.recv())
                if msg["type"] not in ("state", "error"):
                    continue
                if sent is not None:  # the server answered the action
                    out.append(time.perf_counter() - sent)
                    sent = None
                if msg["type"] == "error":  # refused: try the next option
                    choice += 1
                    continue
                if msg.get("over"):
                    break
                request, choice = msg.get("request"), 0
    return out


def during(flood: Callable[[], Any], server: LiveServer, label: str) -> Any:
    """Run `flood` in a thread while the normal player plays 5 turns; print latency."""
    game_id, credential = normal_player(server)
    result: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: result.update(value=flood()))
    thread.start()
    latencies = asyncio.run(action_latencies(server, game_id, credential, 5, OTHER))
    thread.join(120)
    assert len(latencies) >= 3, f"the normal player got {len(latencies)} answers during the flood"
    print(
        f"\n{label}: normal player's action latency over {len(latencies)} actions: "
        f"median {statistics.median(latencies) * 1000:.1f} ms, "
        f"max {max(latencies) * 1000:.1f} ms"
    )
    return result["value"]


def test_slot_flooding_is_refused_per_client(guarded: LiveServer) -> None:
    def flood() -> list[httpx.Response]:
        spec = {"variant": "simple", "players": 5, "seats": [{"kind": "human"}] * 5}
        with httpx.Client(base_url=guarded.url, timeout=HTTP_TIMEOUT) as client:
            return [client.post("/api/games", json=spec) for _ in range(60)]

    replies = during(flood, guarded, "slot flood (60 creations)")
    codes = [r.status_code for r in replies]
    limit = guarded.manager.settings.max_games_per_client
    assert codes[:limit] == [200] * limit and set(codes[limit:]) == {429}
    assert "at most 3" in replies[-1].json()["detail"]
    # another address still gets a game
    transport = httpx.HTTPTransport(local_address=OTHER)
    with httpx.Client(base_url=guarded.url, transport=transport, timeout=HTTP_TIMEOUT) as other:
        assert other.post("/api/games", json={"variant": "simple", "players": 5}).status_code == 200


def test_socket_flooding_is_refused_per_client(guarded: LiveServer) -> None:
    lobby, _ = normal_player(guarded)
    limit = guarded.manager.settings.max_sockets_per_client
    release = threading.Event()

    def flood() -> list[dict[str, Any]]:
        """The flooder, on its own thread and loop: hold sockets until released."""

        async def hold() -> list[dict[str, Any]]:
            held = [
                await websockets.connect(f"{guarded.ws_url}/ws/{lobby}", open_timeout=HTTP_TIMEOUT)
                for _ in range(limit + 20)
            ]
            refusals = []
            for ws in held[limit:]:
                message = json.loads(await ws.recv())
                await ws.wait_closed()
                refusals.append({**message, "code": ws.close_code})
            while not release.is_set():
                await asyncio.sleep(0.05)
            for ws in held:
                await ws.close()
            return refusals

        return asyncio.run(hold())

    result: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: result.update(refusals=flood()))
    thread.start()
    deadline = time.monotonic() + HTTP_TIMEOUT
    while guarded.manager.sockets.held.get("127.0.0.1", 0) < limit:
        assert time.monotonic() < deadline, "the flood never held its sockets"
        time.sleep(0.05)
    game_id, credential = normal_player(guarded)  # while the flood holds its sockets
    latencies = asyncio.run(action_latencies(guarded, game_id, credential, 5, OTHER))
    release.set()
    thread.join(60)
    refusals = result["refusals"]
    assert len(refusals) == 20
    assert all(r["code"] == 4429 for r in refusals)
    assert all("too many connections" in r["reason"] for r in refusals)
    assert len(latencies) >= 3, latencies
    print(
        f"\nsocket flood ({limit} held, 20 refused): normal player's action latency "
        f"median {statistics.median(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms"
    )


def test_oversized_and_deeply_nested_bodies_are_refused(guarded: LiveServer) -> None:
    big = b'{"variant": "' + b"a" * (30 * 1024 * 1024) + b'"}'

    def flood() -> list[httpx.Response]:
        with httpx.Client(base_url=guarded.url, timeout=HTTP_TIMEOUT) as client:
            replies = [
                client.post("/api/games", content=big, headers={"content-type": "application/json"})
                for _ in range(3)
            ]

            def chunks() -> Iterator[bytes]:  # no Content-Length: refused while streaming
                for _ in range(64):
                    yield b" " * 65536

            replies.append(client.post("/api/games", content=chunks()))
            nested = b"[" * 30_000 + b"]" * 30_000  # under the size limit, far too deep
            replies += [client.post("/api/games", content=nested) for _ in range(3)]
            replies.append(client.post("/api/games/x/join", content=b'{"a":' * 5000 + b"1"))
            return replies

    replies = during(flood, guarded, "oversized/nested bodies")
    assert [r.status_code for r in replies[:4]] == [413] * 4
    assert "too large" in replies[0].json()["detail"]
    assert [r.status_code for r in replies[4:]] == [400] * 4
    assert "nested too deeply" in replies[4].json()["detail"]


def test_deeply_nested_socket_frames_are_refused_before_parsing(guarded: LiveServer) -> None:
    game_id, credential = normal_player(guarded)

    async def probe() -> tuple[int | None, dict[str, Any]]:
        async with websockets.connect(
            f"{guarded.ws_url}/ws/{game_id}", open_timeout=HTTP_TIMEOUT
        ) as ws:
            await ws.send("[" * 5000 + "]" * 5000)  # as the first (auth) message
            await ws.wait_closed()
            unauthenticated = ws.close_code
        async with websockets.connect(
            f"{guarded.ws_url}/ws/{game_id}", open_timeout=HTTP_TIMEOUT
        ) as ws:
            await ws.send(json.dumps({"type": "auth", "credential": credential}))
            await ws.send('{"type": "ping", "x": ' + "[" * 5000 + "]" * 5000 + "}")
            async with asyncio.timeout(HTTP_TIMEOUT):
                while True:
                    msg = json.loads(await ws.recv())
                    if msg["type"] == "error":
                        return unauthenticated, msg

    code, error = asyncio.run(probe())
    assert code == 4401
    assert "nested too deeply" in error["reason"]


def test_every_frame_dropped_by_the_rate_limit_is_answered(guarded: LiveServer) -> None:
    """A burst past the bucket: each ping is either read (a pong) or answered as dropped,
    so a page is never left waiting on a frame the server did not read.

    The burst runs `MAX_STRIKES - 10` frames past the bucket: never enough strikes to
    close the socket, and enough that some are dropped even if the server reads them
    slowly (the bucket gains 5 frames a second: reading them all would take it ten
    seconds)."""
    game_id, credential = normal_player(guarded)
    sent = int(guarded.manager.settings.rate_burst) + MAX_STRIKES - 10

    async def burst() -> tuple[int, int]:
        async with websockets.connect(
            f"{guarded.ws_url}/ws/{game_id}", open_timeout=HTTP_TIMEOUT
        ) as ws:
            await ws.send(json.dumps({"type": "auth", "credential": credential}))
            for _ in range(sent):
                await ws.send(json.dumps({"type": "ping"}))
            pongs = dropped = 0
            async with asyncio.timeout(HTTP_TIMEOUT):
                while pongs + dropped < sent:
                    msg = json.loads(await ws.recv())
                    pongs += msg["type"] == "pong"
                    dropped += msg.get("reason") == "too many messages; slow down"
            return pongs, dropped

    pongs, dropped = asyncio.run(burst())
    assert pongs + dropped == sent
    assert dropped >= 2  # more than one frame was dropped, and each was answered


def test_anonymous_creators_cannot_seat_paid_bots_or_choose_seeds(guarded: LiveServer) -> None:
    offered = httpx.get(guarded.url + "/api/agents", timeout=HTTP_TIMEOUT).json()
    assert "heuristic" in offered and PAID not in offered
    assert "agents/local-smollm2.toml" in offered  # the bundled local model costs nothing
    paid = httpx.post(
        guarded.url + "/api/games",
        json={"variant": "simple", "players": 5, "seats": [{"kind": "bot", "agent": PAID}]},
        timeout=HTTP_TIMEOUT,
    )
    assert paid.status_code == 400 and "disallowed" in paid.json()["detail"]
    seeded = httpx.post(
        guarded.url + "/api/games",
        json={"variant": "simple", "players": 5, "seed": 1},
        timeout=HTTP_TIMEOUT,
    )
    assert seeded.status_code == 400 and "seed" in seeded.json()["detail"]
    lobby = httpx.get(
        f"{guarded.url}/api/games/{normal_player(guarded)[0]}", timeout=HTTP_TIMEOUT
    ).json()
    assert "seed" not in lobby


def test_a_seat_keeps_one_page_however_many_are_opened(guarded: LiveServer) -> None:
    game_id, credential = normal_player(guarded)

    async def pages() -> list[int | None]:
        opened = []
        for _ in range(7):
            ws = await websockets.connect(
                f"{guarded.ws_url}/ws/{game_id}", open_timeout=HTTP_TIMEOUT
            )
            await ws.send(json.dumps({"type": "auth", "credential": credential}))
            await ws.recv()
            opened.append(ws)
        for ws in opened[:-1]:
            async with asyncio.timeout(HTTP_TIMEOUT):
                await ws.wait_closed()
        codes = [ws.close_code for ws in opened[:-1]]
        await opened[-1].close()
        return codes

    assert asyncio.run(pages()) == [CLOSE_ELSEWHERE] * 6  # each closed by the next
    session = guarded.manager.get(game_id)
    assert session is not None and len(session.slots[0].connections) <= 1


def test_creating_games_of_bots_alone_is_refused_past_the_budget(guarded: LiveServer) -> None:
    """Games of bots alone finish at once, so the live-games cap never stops a visitor
    who keeps creating them; the creation budget does, for that address only."""
    burst = guarded.manager.settings.creation_burst

    def flood() -> list[httpx.Response]:
        spec = {"variant": "simple", "players": 5}  # bots only: each game ends at once
        with httpx.Client(base_url=guarded.url, timeout=HTTP_TIMEOUT) as client:
            return [client.post("/api/games", json=spec) for _ in range(burst + 10)]

    replies = during(flood, guarded, f"bot-game churn ({burst + 10} creations)")
    codes = [r.status_code for r in replies]
    assert codes[:burst] == [200] * burst and set(codes[burst:]) == {429}, codes
    assert "an hour" in replies[-1].json()["detail"]
    transport = httpx.HTTPTransport(local_address=OTHER)
    with httpx.Client(base_url=guarded.url, transport=transport, timeout=HTTP_TIMEOUT) as other:
        assert other.post("/api/games", json={"variant": "simple", "players": 5}).status_code == 200
