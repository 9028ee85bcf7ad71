"""HTTP connections kept open between requests, against a live server over raw sockets.

- an idle kept-alive connection is closed after `Settings.keep_alive` seconds (set by
  the app, not left to uvicorn's default of 5 s): told by the order of two timers on
  the server's one event loop, not by a clock;
- requests pipelined on one connection (sent back to back, before their answers) are
  answered in order, and a request head past `MAX_HEAD` among them gets its 431 after
  the answers to the complete requests before it, and then the connection closes.
  Before, the 431 was written at once: in place of the first request's answer, or,
  with an answer queued, the connection closed with no answer at all;
- a head past `MAX_HEAD` that arrives whole in one read gets its 431 too; before, the
  limit counted only heads still coming in, so such a request reached the app;
- a request left half-sent behind a pipelined request whose answer takes longer than
  the request deadline gets its 408 after that answer; before, the 408 was written at
  the deadline, in place of the answer.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.web.conftest import settings_for
from tests.web.support import NORMAL_REQUEST, LiveServer, http_responses, idle_and_silent

from mafia_arena.web.connections import HEAD_TOO_LARGE, MAX_HEAD, TIMED_OUT
from mafia_arena.web.replay_cache import ReplayCache

pytestmark = pytest.mark.timeout(120)

HANG_GUARD = 30.0
"""Seconds a socket waits for the server before the test fails (a hang, not a speed)."""
KEEP_ALIVE = 0.5
REQUEST_TIMEOUT = 3.0

BIG = b"X-Big: " + b"a" * (MAX_HEAD + 100)
OVERSIZE_HEAD = b"GET /api/finished HTTP/1.1\r\nHost: x\r\n" + BIG
"""A head past the limit whose last header has not ended."""
GAME = b'{"variant": "standard", "players": 7, "seats": [{"kind": "human"}]}'
OVERSIZE = (
    b"POST /api/games HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
    b"content-length: %d\r\n%s\r\n\r\n%s" % (len(GAME), BIG, GAME)
)
"""A whole request with a head past the limit: were it served, it would create a game."""


@pytest.fixture
def kept(tmp_path: Path) -> Iterator[LiveServer]:
    """A server that keeps an idle connection `KEEP_ALIVE` seconds, and gives a request
    `REQUEST_TIMEOUT` seconds to arrive."""
    live = LiveServer(
        settings_for(tmp_path, keep_alive=KEEP_ALIVE, request_timeout=REQUEST_TIMEOUT)
    )
    try:
        yield live
    finally:
        live.close()


def connect(server: LiveServer) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.settimeout(HANG_GUARD)
    return sock


def until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends on `sock` until it closes it."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def test_an_idle_kept_alive_connection_is_closed_after_the_set_time(kept: LiveServer) -> None:
    """A connection served twice (kept alive between) and then left idle is closed by
    the server, with nothing more sent, before a connection opened after it that never
    sends its request gets its 408: both timers run on the server's one event loop, so
    the order is theirs (0.5 s, then 3 s). With uvicorn's default (5 s) the 408 came
    first."""
    race = idle_and_silent(kept.port, HANG_GUARD)
    assert race.closed == ["idle", "silent"]
    assert race.after["idle"] == b""  # closed, not answered
    assert [status for status, _ in http_responses(race.after["silent"])] == [408]
    assert race.idle_seconds >= KEEP_ALIVE  # and not before its time


@pytest.mark.parametrize(
    ("sent", "statuses"),
    [
        (NORMAL_REQUEST + OVERSIZE_HEAD, [200, 431]),
        (NORMAL_REQUEST + NORMAL_REQUEST + OVERSIZE_HEAD, [200, 200, 431]),
        (NORMAL_REQUEST + OVERSIZE + NORMAL_REQUEST, [200, 431]),
        (OVERSIZE + NORMAL_REQUEST, [431]),
        (OVERSIZE, [431]),
    ],
    ids=[
        "normal-then-oversize",
        "two-normal-then-oversize",
        "normal-then-whole-oversize-then-normal",
        "whole-oversize-then-normal",
        "whole-oversize",
    ],
)
def test_pipelined_requests_are_answered_in_order_up_to_an_oversize_head(
    kept: LiveServer, sent: bytes, statuses: list[int]
) -> None:
    """Requests sent back to back on one connection: each complete request before the
    oversize head is answered whole, in order; then the 431, and the connection closes
    (nothing after the oversize head is read). (An oversize head alone, still coming
    in, is `test_hostile_clients.test_a_request_head_past_its_limit_is_refused_at_once`.)"""
    sock = connect(kept)
    sock.sendall(sent)
    got = http_responses(until_closed(sock))
    sock.close()
    assert [status for status, _ in got] == statuses
    assert HEAD_TOO_LARGE.encode() in got[-1][1]
    for _, body in got[:-1]:
        assert b'"standard"' in body  # the variants, as asked
    assert kept.manager.games == {}  # the oversize request never reached the app


def test_a_late_request_behind_a_slow_answer_gets_its_408_after_that_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replay's answer held back 1.5 s (a fault injected: the replay cache waits), and
    behind it on the same connection a request whose head never ends: its deadline
    (0.5 s) passes while the replay is being made, and its 408 follows the replay."""
    live = LiveServer(settings_for(tmp_path, request_timeout=0.5))
    try:
        created = live.create(
            variant="standard", players=7, seed=3, seats=[{"kind": "bot", "agent": "random"}]
        )
        game_id = created["game_id"]
        live.wait_over(game_id)
        made = ReplayCache.body

        async def held_back(self: ReplayCache, game_id: str, stored: object) -> bytes:
            await asyncio.sleep(1.5)
            return await made(self, game_id, stored)  # type: ignore[arg-type]

        monkeypatch.setattr(ReplayCache, "body", held_back)
        sock = connect(live)
        sock.sendall(
            b"GET /api/games/%s/replay HTTP/1.1\r\nHost: x\r\n\r\n" % game_id.encode()
            + b"GET /api/variants HTTP/1.1\r\nHost: x\r\n"  # the head never ends
        )
        got = http_responses(until_closed(sock))
        sock.close()
    finally:
        live.close()
    assert [status for status, _ in got] == [200, 408]
    assert b'"winner"' in got[0][1] and TIMED_OUT.encode() in got[1][1]
