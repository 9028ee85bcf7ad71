"""A hostile or careless client against a live server: each refusal is clear, bounded,
and leaves the server serving everyone else.

- non-finite numbers (``NaN``, ``Infinity``: Python's JSON parser takes them) in a body
  get a 422 with the reason, not a 500;
- a body in UTF-16 or UTF-32 (Python's JSON parser reads them too) is refused (415)
  before anything parses it: its bytes could hide nesting from the depth guard;
- games of bots alone, which finish at once, cannot fill the server for other creators;
- exchanging an invite or a resume link again and again keeps a bounded number of keys;
- socket frames nest at most 8 levels, as documented, and a number too long for
  Python to read is refused with that reason;
- a ping flood (answered below the app) closes the socket with 1008;
- a request head past `MAX_HEAD` gets 431 at once, not at the deadline;
- a fullwidth look-alike of a taken name or of a seat label is refused like the name,
  and so is one drawn with look-alike letters of another script (Cyrillic, Greek);
- switches cannot raise a count of rounds without bound (a game that never ends);
- spectators who fill their chat leave the dead players' chat open;
- a person who misses a night turn whose kind does not say "night" (classic's
  ``describe``), or one in a night phase of Palermo's clock, is not replaced for it,
  and a night answer does not break a row of missed day turns: either would show who
  acts at night.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer, open_seat, recv_until

from mafia_arena.web import driver
from mafia_arena.web.auth import KEYS_PER_SEAT
from mafia_arena.web.connections import HEAD_TOO_LARGE, MAX_HEAD

OTHER = "127.0.0.2"  # another client address than the test's own


def post_raw(server: LiveServer, path: str, body: bytes) -> httpx.Response:
    return httpx.post(
        server.url + path,
        content=body,
        headers={"content-type": "application/json"},
        timeout=HTTP_TIMEOUT,
    )


def test_bodies_not_in_utf8_are_refused_before_the_depth_guard_could_be_fooled(
    server: LiveServer,
) -> None:
    """In UTF-16 (little-endian) U+2200 is the bytes 00 22: a quote mark to a scan of
    bytes, none to the parser, so the guard took the brackets after it for a string's
    and let nesting past its limit (40 levels here, 32 allowed) reach the app."""
    limit = server.manager.settings.max_json_depth
    nested = "[" * (limit + 8) + "]" * (limit + 8)
    hidden = '{"variant": "standard", "players": 7, "note": "\u2200", "x": ' + nested + "}"
    assert json.loads(hidden.encode("utf-16-le"))["note"] == "\u2200"  # the parser reads it
    plain = json.dumps({"variant": "standard", "players": 7, "seats": [{"kind": "human"}]})
    bodies = [
        hidden.encode("utf-16-le"),
        plain.encode("utf-16"),  # with its byte order mark
        plain.encode("utf-16-be"),
        plain.encode("utf-32"),
        plain.encode("utf-8")[:-1] + b"\xff}",  # no UTF-8 at all
    ]
    for body in bodies:
        reply = post_raw(server, "/api/games", body)
        assert reply.status_code == 415, (body[:40], reply.text)
        assert reply.json()["detail"] == "request body must be JSON text in UTF-8"
    assert post_raw(server, "/api/games", hidden.encode()).status_code == 400  # too deep
    assert post_raw(server, "/api/games", plain.encode("utf-8-sig")).status_code == 200
    assert post_raw(server, "/api/games", plain.encode()).status_code == 200


PALERMO_SHARE = (
    b'{"variant": "palermo", "players": 12, "overrides": {"palermo.vendetta_above_share": %s}}'
)


def test_non_finite_numbers_in_a_body_get_a_clear_refusal(server: LiveServer) -> None:
    for body in (
        b'{"players": NaN}',
        b'{"timer_scale": Infinity}',
        b'{"bot_delay": -Infinity}',
        b'{"seed": NaN}',
        b'{"seats": [{"kind": "bot", "agent": NaN}]}',
        PALERMO_SHARE % b"NaN",  # a float of the rules: the rules text could not say it
        PALERMO_SHARE % b"Infinity",
    ):
        reply = post_raw(server, "/api/games", body)
        assert reply.status_code == 422, (body, reply.status_code, reply.text)
        problems = reply.json()["detail"]
        assert problems and all(p["msg"] and p["loc"] for p in problems), problems
    huge = post_raw(server, "/api/games", PALERMO_SHARE % b"1e308")  # finite, yet no share
    assert huge.status_code == 400 and "cannot be stated" in huge.json()["detail"]
    assert server.manager.games == {}
    created = server.create(variant="standard", players=7, seats=[{"kind": "human"}])
    joined = post_raw(
        server, f"/api/games/{created['game_id']}/join", b'{"invite": NaN, "name": "Ada"}'
    )
    assert joined.status_code == 422 and "string" in joined.json()["detail"][0]["msg"]
    # the values refused are not echoed back, and the server goes on serving
    assert "input" not in joined.json()["detail"][0]
    lobby = httpx.get(f"{server.url}/api/games/{created['game_id']}", timeout=HTTP_TIMEOUT)
    assert lobby.status_code == 200


@pytest.fixture
def small_server(tmp_path: Path) -> Iterator[LiveServer]:
    """Room for 4 games on the server, 3 live ones per client."""
    live = LiveServer(settings_for(tmp_path, max_games=4, max_games_per_client=3))
    try:
        yield live
    finally:
        live.close()


def test_games_of_bots_alone_cannot_fill_the_server(small_server: LiveServer) -> None:
    server = small_server
    bots = {"variant": "standard", "players": 7, "seats": [{"kind": "bot", "agent": "random"}]}
    finished = []
    with httpx.Client(base_url=server.url, timeout=HTTP_TIMEOUT) as flooder:
        for _ in range(10):  # each finishes at once: three live ones at most
            reply = flooder.post("/api/games", json=bots)
            assert reply.status_code == 200, reply.text
            finished.append(reply.json()["game_id"])
            server.wait_over(finished[-1])
            session = server.manager.get(finished[-1])
            deadline = time.monotonic() + HTTP_TIMEOUT
            while session is not None and session.finished_at is None:
                assert time.monotonic() < deadline
                time.sleep(0.02)
    transport = httpx.HTTPTransport(local_address=OTHER)
    with httpx.Client(base_url=server.url, timeout=HTTP_TIMEOUT, transport=transport) as other:
        reply = other.post("/api/games", json={"variant": "standard", "players": 7})
        assert reply.status_code == 200, reply.text
        # the finished games made room; the oldest is still browsable from the store
        assert server.manager.get(finished[0]) is None
        replay = other.get(f"/api/games/{finished[0]}/replay")
        assert replay.status_code == 200 and replay.json()["winner"]
    assert len(server.manager.games) <= 4


def test_live_games_still_fill_the_server(small_server: LiveServer) -> None:
    """Only unfinished games count, and they still do: lobbies are never forgotten."""
    server = small_server
    lobby = {"variant": "standard", "players": 7, "seats": [{"kind": "human"}]}
    for address in ("127.0.0.3", "127.0.0.4"):
        transport = httpx.HTTPTransport(local_address=address)
        with httpx.Client(base_url=server.url, timeout=HTTP_TIMEOUT, transport=transport) as client:
            codes = [client.post("/api/games", json=lobby).status_code for _ in range(3)]
            assert codes == ([200] * 3 if address.endswith("3") else [200, 429, 429])


def grant_ok(server: LiveServer, game_id: str, credential: str) -> int:
    return httpx.get(
        f"{server.url}/api/games/{game_id}/view",
        headers={"authorization": f"Bearer {credential}"},
        timeout=HTTP_TIMEOUT,
    ).status_code


def test_repeated_exchanges_keep_a_bounded_number_of_keys(server: LiveServer) -> None:
    created = server.create(
        variant="standard", players=7, seats=[{"kind": "human"}, {"kind": "human"}]
    )
    game_id, invite = created["game_id"], created["invites"][0]["invite"]
    with httpx.Client(base_url=server.url, timeout=HTTP_TIMEOUT) as device:  # keeps its cookie
        keys = []
        for _ in range(3 * KEYS_PER_SEAT):
            reply = device.post(f"/api/games/{game_id}/join", json={"invite": invite})
            assert reply.status_code == 200, reply.text
            keys.append(reply.json())
        for _ in range(2 * KEYS_PER_SEAT):
            reply = device.post(f"/api/games/{game_id}/resume", json={"resume": keys[-1]["resume"]})
            assert reply.status_code == 200, reply.text
            keys.append(reply.json())

    def held(kind: str) -> int:
        tokens = server.manager.credentials._tokens.values()
        return sum(1 for t in tokens if t.game_id == game_id and t.kind == kind and t.seat == 0)

    assert held("seat") == KEYS_PER_SEAT and held("resume") == KEYS_PER_SEAT
    stored = server.manager.store.tokens()
    assert sum(1 for t in stored if t.game_id == game_id and t.kind == "seat") == KEYS_PER_SEAT
    assert grant_ok(server, game_id, keys[0]["credential"]) == 403  # the oldest went
    assert grant_ok(server, game_id, keys[-1]["credential"]) == 200
    assert grant_ok(server, game_id, keys[-KEYS_PER_SEAT]["credential"]) == 200
    stale = httpx.post(
        f"{server.url}/api/games/{game_id}/resume",
        json={"resume": keys[0]["resume"]},
        timeout=HTTP_TIMEOUT,
    )
    assert stale.status_code == 403


def _errors_of_frames(
    server: LiveServer, frames: list[str], done: Callable[[list[dict[str, Any]]], bool]
) -> list[str]:
    """The error reasons a seated page is sent after `frames` (its first, a person's
    seat in a new game, authenticated), its replies read until `done` holds of them."""
    created = server.create(variant="standard", players=7, seats=[{"kind": "human"}] * 2)
    game_id = created["game_id"]
    joined = server.join(game_id, created["invites"][0]["invite"], "Ada")

    async def probe() -> list[dict[str, Any]]:
        async with websockets.connect(
            f"{server.ws_url}/ws/{game_id}", open_timeout=HTTP_TIMEOUT
        ) as ws:
            await ws.send(json.dumps({"type": "auth", "credential": joined["credential"]}))
            for frame in frames:
                await ws.send(frame)
            replies: list[dict[str, Any]] = []
            async with asyncio.timeout(HTTP_TIMEOUT):
                while not done(replies):
                    replies.append(json.loads(await ws.recv()))
            return replies

    return [r["reason"] for r in asyncio.run(probe()) if r["type"] == "error"]


def test_socket_frames_nest_at_most_eight_levels(server: LiveServer) -> None:
    frames = [
        '{"type": "ping", "x": ' + "[" * 8 + "]" * 8 + "}",  # 9 levels
        '{"type": "ping", "x": ' + "[" * 7 + "]" * 7 + "}",  # 8 levels
    ]
    errors = _errors_of_frames(
        server, frames, lambda replies: sum(r["type"] == "error" for r in replies) >= 2
    )
    assert "nested too deeply (at most 8 levels)" in errors[0]
    assert "nested" not in errors[1] and "extra" in errors[1].lower()


def test_a_frame_with_a_number_too_long_to_read_is_told_so(server: LiveServer) -> None:
    """A number of more digits than Python reads (4300) is valid JSON: the frame is
    refused with that reason, not as "not JSON", and the page's next frame is read."""
    frames = ['{"type": "act", "turn": 0, "choice": ' + "9" * 5000 + "}", '{"type": "ping"}']
    errors = _errors_of_frames(
        server, frames, lambda replies: bool(replies) and replies[-1]["type"] == "pong"
    )
    assert errors == ["a number in the message is too long"]


def test_a_ping_flood_closes_the_socket_with_1008(server: LiveServer) -> None:
    """Ping frames never reach the app, and uvicorn answered each one, written out
    whether the client read or not: a client sending pings as fast as it could held the
    event loop and grew the server's buffers without end. Pings now share a page's rate
    (`Settings.rate_per_s`, `rate_burst`); a flood past it closes the socket with 1008,
    the seat's page is let go, and the seat's next page plays on."""
    created = server.create(variant="standard", players=7, seats=[{"kind": "human"}] * 2)
    game_id = created["game_id"]
    joined = server.join(game_id, created["invites"][0]["invite"], "Ada")

    async def flood() -> tuple[int | None, str | None, str]:
        ws = await open_seat(server, game_id, joined["credential"])
        await recv_until(ws, lambda m: m["type"] == "lobby")
        for n in range(500):  # not waiting for the pongs
            with contextlib.suppress(websockets.ConnectionClosed):
                await ws.ping(b"%d" % n)
        with contextlib.suppress(websockets.ConnectionClosed):
            await recv_until(ws, lambda m: False, timeout=HTTP_TIMEOUT)  # until closed
        again = await open_seat(server, game_id, joined["credential"])
        kind = (await recv_until(again, lambda m: m["type"] == "lobby"))["type"]
        pong = await again.ping()
        await asyncio.wait_for(pong, HTTP_TIMEOUT)  # a page's own pings are answered
        await again.close()
        return ws.close_code, ws.close_reason, kind

    code, reason, kind = asyncio.run(flood())
    assert (code, reason, kind) == (1008, "too many pings", "lobby")
    deadline = time.monotonic() + HTTP_TIMEOUT
    while server.manager.sockets.held and time.monotonic() < deadline:
        time.sleep(0.05)  # the server has let both sockets go (each gave its place back)
    assert not server.manager.sockets.held


def table_with_ada(server: LiveServer) -> tuple[str, Callable[[str], httpx.Response]]:
    """A new table whose first seat is taken by "Ada": its id, and a join through the
    second seat's invite under a name."""
    created = server.create(variant="standard", players=7, seats=[{"kind": "human"}] * 3)
    game_id = created["game_id"]
    invites = [i["invite"] for i in created["invites"]]
    server.join(game_id, invites[0], "Ada")

    def join(name: str) -> httpx.Response:
        return httpx.post(
            f"{server.url}/api/games/{game_id}/join",
            json={"invite": invites[1], "name": name},
            timeout=HTTP_TIMEOUT,
        )

    return game_id, join


def test_fullwidth_look_alikes_of_names_are_folded(server: LiveServer) -> None:
    game_id, join = table_with_ada(server)
    taken = join("\uff21da")  # fullwidth A: "Ａda"
    assert taken.status_code == 409 and "taken" in taken.json()["detail"]
    label = join("\uff30\uff13")  # "Ｐ３"
    assert label.status_code == 422 and "seat's label" in label.json()["detail"][0]["msg"]
    kept = join("\uff22\uff45\uff41")  # "Ｂｅａ" is stored as "Bea"
    assert kept.status_code == 200
    seats = httpx.get(f"{server.url}/api/games/{game_id}", timeout=HTTP_TIMEOUT).json()["seats"]
    assert seats[1]["name"] == "Bea"


def test_look_alikes_from_other_scripts_are_refused_like_the_name(server: LiveServer) -> None:
    """A Cyrillic or Greek letter drawn like a Latin one: "Аda" (Cyrillic А) would read
    as the Ada at the table, "Р2" (Cyrillic Р) and "Ρ2" (Greek Rho) as the seat label
    P2, "heuristic bоt" (Cyrillic о) as a bot. A name in another script that looks like
    no taken name stays allowed."""
    game_id, join = table_with_ada(server)
    for twin in ("\u0410da", "\u0391DA", "\u0430d\u0430"):  # Аda, ΑDA, аdа
        taken = join(twin)
        assert taken.status_code == 409 and "taken" in taken.json()["detail"], twin
    for label in ("\u04202", "\u03a12", "\u0440 7"):  # Р2, Ρ2, р 7
        refused = join(label)
        assert refused.status_code == 422, label
        assert "seat's label" in refused.json()["detail"][0]["msg"], label
    bot = join("heuristic b\u043et")
    assert bot.status_code == 422 and "'bot'" in bot.json()["detail"][0]["msg"]
    kept = join("\u0416\u043e\u0440\u0430")  # "Жора": Cyrillic, like no name here
    assert kept.status_code == 200
    seats = httpx.get(f"{server.url}/api/games/{game_id}", timeout=HTTP_TIMEOUT).json()["seats"]
    assert seats[1]["name"] == "\u0416\u043e\u0440\u0430"


Answer = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any] | None]
"""What a scripted person sends for a state message and its request (None: nothing)."""


def play_until_warned(
    live: LiveServer, game_id: str, credential: str, answer: Answer
) -> list[dict[str, Any]]:
    """A person over a real socket who answers each new request with `answer`, until
    the first warning or public notice: every message received, the last one that."""

    async def play() -> list[dict[str, Any]]:
        got: list[dict[str, Any]] = []
        answered: set[int] = set()
        async with websockets.connect(
            f"{live.ws_url}/ws/{game_id}", open_timeout=HTTP_TIMEOUT
        ) as ws:
            await ws.send(json.dumps({"type": "auth", "credential": credential}))
            async with asyncio.timeout(180):  # generous: a loaded CI machine is slow
                async for raw in ws:
                    msg = json.loads(raw)
                    got.append(msg)
                    if msg["type"] == "warning" or msg.get("notices"):
                        return got
                    request = msg.get("request") if msg["type"] == "state" else None
                    if not request or request["turn"] in answered:
                        continue
                    answered.add(request["turn"])
                    sent = answer(msg, request)
                    if sent is not None:
                        await ws.send(json.dumps(sent))
        return got

    return asyncio.run(play())


def play_mafioso(
    live: LiveServer, game_id: str, credential: str, *, describe: bool, first_day: bool
) -> list[dict[str, Any]]:
    """One of classic's mafiosi over a real socket: talk, pick P2 at night, write the
    death's description if `describe`, answer day turns if `first_day`; until the first
    warning or public notice (its messages, the last one that)."""

    def answer(msg: dict[str, Any], request: dict[str, Any]) -> dict[str, Any] | None:
        turn, kind = request["turn"], request["kind"]
        if kind == "describe":
            return {"type": "say", "turn": turn, "text": "quietly"} if describe else None
        if msg["phase"] != "night" and not first_day:
            return None
        pick = next((i for i, o in enumerate(request["options"]) if "P2" in o), 0)
        return {"type": "act", "turn": turn, "choice": pick}

    return play_until_warned(live, game_id, credential, answer)


def classic_mafia_of_people(live: LiveServer) -> tuple[str, str, str]:
    """Classic, 7 players, seed 1: its two mafiosi (P1, P6) are people. The game's id
    and the two seats' credentials."""
    seats = [{"kind": "human"}] + [{"kind": "bot"}] * 4 + [{"kind": "human"}]
    created = live.create(variant="classic", players=7, seed=1, seats=seats)
    game_id = created["game_id"]
    one, six = (i["invite"] for i in created["invites"])
    first = live.join(game_id, one, "Ada")["credential"]
    return game_id, first, live.join(game_id, six, "Bea")["credential"]


DESCRIBE_S = 4.5
"""Seconds the mafiosi have to describe a death in
`test_a_missed_night_description_never_brings_a_stand_in` (a tenth of the real
timer's): the one turn there that runs out."""


def only_descriptions_run_out(kind: str, scale: float = 1.0) -> float:
    """`web.driver.timer_for` for a test where only the description is let run out:
    `DESCRIBE_S` for it, and `HTTP_TIMEOUT` (a hang guard's length) for every other
    turn, which the test's pages answer at once. Why: with every timer short, a page
    held back a few seconds by a loaded machine missed a day turn, and with
    `idle_turns=1` a stand-in came for it (the very notice the test looks for)."""
    return DESCRIBE_S if kind == "describe" else HTTP_TIMEOUT


def test_a_missed_night_description_never_brings_a_stand_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Classic's mafiosi describe their victim's death at night (request kind
    ``describe``, asked of the living mafiosi only). A mafioso who lets it run out is
    warned like for any night turn, and it does not count towards `idle_turns`: a
    stand-in that came for it (and its public notice) would show who is mafia."""
    monkeypatch.setattr(driver, "timer_for", only_descriptions_run_out)
    live = LiveServer(settings_for(tmp_path, idle_turns=1))
    try:
        game_id, first, second = classic_mafia_of_people(live)

        async def both() -> list[list[dict[str, Any]]]:
            return list(
                await asyncio.gather(
                    *(
                        asyncio.to_thread(
                            play_mafioso, live, game_id, c, describe=False, first_day=True
                        )
                        for c in (first, second)
                    )
                )
            )

        pages = asyncio.run(both())
        session = live.manager.get(game_id)
        assert session is not None
        for page in pages:
            kinds = [m["request"]["kind"] for m in page if m["type"] == "state" and m["request"]]
            assert "describe" in kinds, kinds
            assert not page[-1].get("notices"), page[-1]["notices"]
            assert page[-1] == {
                "type": "warning",
                "text": "Your time ran out; the default was recorded.",
            }
        assert not any(slot.replaced for slot in session.slots)
        assert not any("has not answered" in notice for notice in session.notices)
    finally:
        live.close()


def test_a_night_turn_answered_does_not_break_a_row_of_missed_day_turns(
    tmp_path: Path,
) -> None:
    """Only day turns make a row of missed turns (`idle_turns`) or break it: a mafioso
    who answers at night between two missed day turns is replaced like a villager who
    had nothing to answer. (Before, the night answer reset the count, so who was
    replaced after two missed days showed who acts at night.)"""
    live = LiveServer(settings_for(tmp_path, idle_turns=2, timer_scale=0.1))
    try:
        game_id, first, second = classic_mafia_of_people(live)
        session = live.manager.get(game_id)
        assert session is not None
        session.slots[0].missed = 1  # P1 missed the last day turn before this night

        async def both() -> list[list[dict[str, Any]]]:
            return list(
                await asyncio.gather(
                    asyncio.to_thread(
                        play_mafioso, live, game_id, first, describe=True, first_day=False
                    ),
                    asyncio.to_thread(
                        play_mafioso, live, game_id, second, describe=True, first_day=True
                    ),
                )
            )

        pages = asyncio.run(both())
        night = [m for m in pages[0] if m["type"] == "state" and m["request"]]
        assert {"night_chat", "describe"} <= {m["request"]["kind"] for m in night}
        assert session.slots[0].replaced  # the first missed day turn made the row of two
        assert [n for n in session.notices if "has not answered" in n] == [
            "Ada (P1) has not answered for a while: a stand-in bot (heuristic) plays the "
            "seat until they take it back."
        ]
    finally:
        live.close()


def test_switches_cannot_make_a_game_without_end(server: LiveServer) -> None:
    """A switch that counts rounds is refused past 10 (or the variant's own value): a
    night of a billion talk rounds never ended, and its driver filled the live store.
    Past `rules.spec.MAX_ROUNDS` the variant itself refuses the count, naming the
    switch that set it."""
    for overrides, where in (
        ({"mafia_chat_rounds": 10**9}, "mafia_chat_rounds"),
        ({"mafia_chat_rounds": "1000"}, "mafia_chat_rounds"),  # coerced: the same count
        ({"discussion_rounds": 100_000}, "discussion_rounds"),
        ({"night.0.chat_rounds": 500}, "chat_rounds"),  # a path, not a switch
        ({"rules.max_rounds": "n*100000000"}, "max_rounds"),  # a formula, by its value
    ):
        reply = httpx.post(
            f"{server.url}/api/games",
            json={"variant": "classic", "players": 7, "overrides": overrides},
            timeout=HTTP_TIMEOUT,
        )
        assert reply.status_code == 400, (overrides, reply.text)
        detail = reply.json()["detail"]
        assert where in detail and ("at most 10" in detail or "or equal to 1000" in detail)
    assert server.manager.games == {}
    assert server.manager.store.games(over=False) == []
    for fine in (
        {"mafia_chat_rounds": 10},
        {"mafia_rounds": 3, "discussion_rounds": 2},
        {"rules.max_rounds": "n + 3"},
    ):
        server.create(variant="classic", players=7, seats=[{"kind": "human"}], overrides=fine)


def test_a_switch_key_with_a_lone_surrogate_is_refused_not_a_server_error(
    server: LiveServer,
) -> None:
    """The refusal names the key the client sent; a lone surrogate in it (valid in a
    JSON string, no character in UTF-8) made the reply unencodable, a 500."""
    reply = httpx.post(
        f"{server.url}/api/games",
        content=b'{"variant": "classic", "players": 7, "overrides": {"\\ud800x": 1}}',
        headers={"content-type": "application/json"},
        timeout=HTTP_TIMEOUT,
    )
    assert reply.status_code == 400, reply.text
    assert "\\ud800x" in reply.json()["detail"]
    assert server.manager.games == {}


def test_spectators_who_fill_their_chat_leave_the_dead_chat_open(
    server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A watch link can be passed around; its holders filling the spectators' chat must
    not close the dead players' chat (each channel has its own bound)."""
    monkeypatch.setattr("mafia_arena.web.chat.MAX_LINES", 3)
    # seed 23: P1 (the person) is killed on the first night
    created = server.create(variant="standard", players=7, seed=23, seats=[{"kind": "human"}])
    game_id = created["game_id"]
    credential = server.join(game_id, created["invites"][0]["invite"], "Ada")["credential"]

    async def chat(ws: Any, channel: str, text: str) -> dict[str, Any]:
        await ws.send(json.dumps({"type": "chat", "channel": channel, "text": text}))
        async with asyncio.timeout(HTTP_TIMEOUT):
            while True:
                msg = json.loads(await ws.recv())
                if msg["type"] == "chat" and any(line["text"] == text for line in msg["lines"]):
                    return msg
                if msg["type"] == "error" and msg.get("about") == "chat":
                    return msg

    async def scene() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        async with (
            websockets.connect(
                f"{server.ws_url}/ws/{game_id}", open_timeout=HTTP_TIMEOUT
            ) as watcher,
            websockets.connect(
                f"{server.ws_url}/ws/{game_id}", open_timeout=HTTP_TIMEOUT
            ) as player,
        ):
            await watcher.send(json.dumps({"type": "auth", "credential": created["watch"]}))
            spectators = [await chat(watcher, "spectators", f"spam {n}") for n in range(4)]
            await player.send(json.dumps({"type": "auth", "credential": credential}))
            answered: set[int] = set()
            async with asyncio.timeout(180):  # generous: a loaded CI machine is slow
                while True:  # play on until the person is dead
                    msg = json.loads(await player.recv())
                    if msg["type"] != "state":
                        continue
                    if not msg["you"]["alive"]:
                        break
                    request = msg["request"]
                    if request and request["turn"] not in answered:
                        answered.add(request["turn"])
                        act = {"type": "act", "turn": request["turn"], "choice": 0}
                        await player.send(json.dumps(act))
            return spectators, await chat(player, "dead", "it was P4")

    spectators, dead = asyncio.run(scene())
    assert [m["type"] for m in spectators] == ["chat", "chat", "chat", "error"]
    assert spectators[-1]["reason"] == "this chat is full"
    assert dead["type"] == "chat", dead
    assert [line["text"] for line in dead["lines"]][-1] == "it was P4"


PALERMO_NIGHT = frozenset({"night_early", "night_late", "dead_time"})
"""Palermo's night phases (`views.words.FORUM_PHASES`): a turn's ``phase`` tells them."""


def play_palermo_until_a_night_turn_runs_out(
    live: LiveServer, game_id: str, credential: str
) -> list[dict[str, Any]]:
    """A Palermo seat over a real socket: every day turn answered at once ("done for
    this phase", or the first choice), the first night turn left to run out; its
    messages up to the first warning or public notice (the last one that)."""

    def answer(_msg: dict[str, Any], request: dict[str, Any]) -> dict[str, Any] | None:
        if request["phase"] in PALERMO_NIGHT:
            return None  # the night turn: let its time run out
        return {"type": "act", "turn": request["turn"], "choice": 0}

    return play_until_warned(live, game_id, credential, answer)


def test_a_missed_palermo_night_turn_never_brings_a_stand_in(tmp_path: Path) -> None:
    """Palermo's night is its clock's ``night_early``, ``night_late`` and ``dead_time``
    (the engine's phase is never ``night``). A night turn missed there only warns, like
    any night turn, and does not count towards `idle_turns`: a stand-in that came for
    it (and its public notice) could follow a turn only some seats get (a channel post,
    a night ability, a card). Before, it counted as a day turn: with ``idle_turns=1``
    the first missed night turn put a stand-in in the seat, announced to every page."""
    live = LiveServer(settings_for(tmp_path, idle_turns=1, timer_scale=0.05))
    live.manager.host_key = FIXED_HOST_KEY  # the same bot moves in every run
    try:
        created = live.create(
            variant="palermo",
            players=12,
            seed=1,
            seats=[{"kind": "human"}],
            overrides={"moves": 1},
        )
        game_id = created["game_id"]
        credential = live.join(game_id, created["invites"][0]["invite"], "Ada")["credential"]
        page = play_palermo_until_a_night_turn_runs_out(live, game_id, credential)
        session = live.manager.get(game_id)
        assert session is not None
        asked = [m["request"] for m in page if m["type"] == "state" and m["request"]]
        assert asked[-1]["kind"] == "turn" and asked[-1]["phase"] in PALERMO_NIGHT, asked[-1]
        assert page[-1] == {
            "type": "warning",
            "text": "Your time ran out; the default was recorded.",
        }
        assert not session.slots[0].replaced and session.slots[0].missed == 0
        assert not any("has not answered" in notice for notice in session.notices)
    finally:
        live.close()


@pytest.fixture
def far_deadline_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A request must be wholly sent within twice `HTTP_TIMEOUT`: later than any
    answer a test waits for, so an answer that comes is never the deadline's."""
    live = LiveServer(settings_for(tmp_path, request_timeout=2 * HTTP_TIMEOUT))
    try:
        yield live
    finally:
        live.close()


@pytest.fixture
def strict_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A request must be wholly sent within 1 s; 4 open HTTP connections per address."""
    live = LiveServer(
        settings_for(tmp_path, request_timeout=1.0, max_connections_per_client=4, auth_timeout=0.5)
    )
    try:
        yield live
    finally:
        live.close()


def _connect(server: LiveServer, source: str = OTHER) -> socket.socket:
    """A raw TCP connection to the server from the address `source`; each read or
    write on it waits at most `HTTP_TIMEOUT` (a hang guard: a server that never
    answers fails the test with `TimeoutError`)."""
    sock = socket.create_connection(
        ("127.0.0.1", server.port), timeout=HTTP_TIMEOUT, source_address=(source, 0)
    )
    return sock


def _until_closed(sock: socket.socket) -> bytes:
    """What the server sends on `sock` until it closes it (a reset ends it too)."""
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except ConnectionResetError:
        pass
    return received


def _one_response(sock: socket.socket) -> bytes:
    """One whole response read from `sock` (head and its ``content-length`` of body);
    `ConnectionError` if the server closes the connection before it is whole."""

    def more() -> bytes:
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError("closed before a whole response")
        return chunk

    received = b""
    while b"\r\n\r\n" not in received:
        received += more()
    head, _, body = received.partition(b"\r\n\r\n")
    length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    while len(body) < length:
        body += more()
    return head + b"\r\n\r\n" + body


def test_half_sent_requests_are_answered_408_while_others_are_served(
    strict_server: LiveServer,
) -> None:
    """Slowloris: connections that send part of a request line or of the headers and
    then nothing were held for good (uvicorn has no deadline for a request); each is
    now answered 408 and closed at `request_timeout`, and a normal client is served
    all along."""
    server = strict_server
    partial = [b"GET /api/fin", b"GET / HTTP/1.1\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nX-a: "]
    began = time.monotonic()
    held = [_connect(server) for _ in range(3)]
    idle = _connect(server)  # connects and sends nothing at all
    for sock, start in zip(held, partial, strict=True):
        sock.sendall(start)
    assert httpx.get(f"{server.url}/api/finished", timeout=HTTP_TIMEOUT).status_code == 200
    for sock in [*held, idle]:
        answer = _until_closed(sock)  # a connection held for good fails its hang guard
        assert answer.startswith(b"HTTP/1.1 408 "), answer
        assert b"request not received in time" in answer  # the deadline's own answer
        sock.close()
    # not cut before the deadline either (it counts from each connection's opening)
    assert time.monotonic() - began >= server.manager.settings.request_timeout
    assert httpx.get(f"{server.url}/api/finished", timeout=HTTP_TIMEOUT).status_code == 200


def test_a_body_sent_a_byte_at_a_time_is_cut_off_at_the_deadline(
    strict_server: LiveServer,
) -> None:
    """A request whose headers came at once and whose body trickles in (a byte every
    0.2 s of a declared 100) held its connection and the app's reader as long as the
    client kept sending; it gets 408 at the deadline, and the app's task ends.

    The body would be whole after 99 more bytes (about 20 s of trickling): a 408
    before then, with fewer bytes sent, shows that the deadline cut it off, however
    slowly the machine runs."""
    server = strict_server
    sock = _connect(server)
    sock.sendall(
        b"POST /api/games HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
        b"content-length: 100\r\n\r\n{"
    )
    sock.settimeout(0.2)
    began = time.monotonic()
    answer = b""
    trickled = 0
    while time.monotonic() - began < HTTP_TIMEOUT:  # a hang guard
        try:
            sock.sendall(b" ")
            trickled += 1
            answer = sock.recv(4096)
        except TimeoutError:
            continue
        except (BrokenPipeError, ConnectionResetError):
            break
        if answer:
            break
    sock.close()
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert trickled < 99  # cut off before the body was whole
    assert httpx.get(f"{server.url}/api/finished", timeout=HTTP_TIMEOUT).status_code == 200


def test_a_body_refused_by_its_length_and_then_trickled_is_closed_without_a_second_answer(
    strict_server: LiveServer,
) -> None:
    """A body declared too large gets its 413 at once; a client that goes on sending
    it a byte at a time is closed at the deadline, with nothing more written after the
    413 (a 408 there would read as the answer to a request never sent)."""
    server = strict_server
    sock = _connect(server)
    sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: x\r\ncontent-length: 100000\r\n\r\n{")
    assert _one_response(sock).startswith(b"HTTP/1.1 413 ")
    began = time.monotonic()
    rest = b""
    closed = False
    sock.settimeout(0.2)
    while time.monotonic() - began < HTTP_TIMEOUT:  # a hang guard: never closed fails
        try:
            sock.sendall(b" ")
            rest = sock.recv(4096)
        except TimeoutError:
            continue
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        closed = rest == b""
        break  # closed (b"") or, wrongly, answered again
    sock.close()
    assert rest == b"", rest
    assert closed, "the trickling connection was never closed"


def test_a_kept_alive_connection_is_not_cut_for_its_age(strict_server: LiveServer) -> None:
    """The deadline counts from a request's first byte: a connection kept alive past it
    between two quick requests serves both, and a later slow request still times out."""
    server = strict_server
    sock = _connect(server)
    request = b"GET /api/finished HTTP/1.1\r\nHost: x\r\n\r\n"
    sock.sendall(request)
    assert _one_response(sock).startswith(b"HTTP/1.1 200 ")
    time.sleep(1.3)  # past the request deadline, within uvicorn's keep-alive (5 s)
    sock.sendall(request)
    assert _one_response(sock).startswith(b"HTTP/1.1 200 ")
    sock.sendall(b"GET /api/finished HTTP/1.1\r\n")  # and then nothing
    assert _until_closed(sock).startswith(b"HTTP/1.1 408 ")
    sock.close()


def test_a_request_head_past_its_limit_is_refused_at_once(
    far_deadline_server: LiveServer,
) -> None:
    """A request line and headers that run on (one header's value growing without end)
    get 431 as soon as they pass `MAX_HEAD`, not at the deadline: httptools's work on a
    growing header is quadratic, and a 40 MB one held the event loop for seconds. A
    large but ordinary request (an 8 KiB header, a body near `max_body`) is served.

    The deadline lies past the socket's hang guard (`far_deadline_server`): a 431
    read at all came before it, on a machine of any speed."""
    server = far_deadline_server
    sock = _connect(server)
    sock.sendall(b"GET /api/finished HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (MAX_HEAD + 100))
    answer = _until_closed(sock)
    sock.close()
    assert answer.startswith(b"HTTP/1.1 431 "), answer
    assert HEAD_TOO_LARGE.encode() in answer
    body = json.dumps({"invite": "x" * 20, "name": "Ada"}).encode() + b" " * 60_000
    big = httpx.post(
        f"{server.url}/api/games/nosuchgame/join",
        content=body,
        headers={"content-type": "application/json", "x-long": "a" * 8192},
        timeout=HTTP_TIMEOUT,
    )
    assert big.status_code == 404  # read whole and answered by the app
    assert httpx.get(f"{server.url}/api/finished", timeout=HTTP_TIMEOUT).status_code == 200


def test_one_address_holds_a_bounded_number_of_http_connections(
    strict_server: LiveServer,
) -> None:
    """One address could open as many connections as the server had file descriptors
    (and then nobody could connect): past `max_connections_per_client` a connection is
    answered 429 and closed, other addresses are served, and a closed connection gives
    its place back."""
    server = strict_server
    held = [_connect(server) for _ in range(4)]
    time.sleep(0.1)  # the server has taken them
    refused = _connect(server)
    assert _until_closed(refused).startswith(b"HTTP/1.1 429 ")
    refused.close()
    assert httpx.get(f"{server.url}/api/finished", timeout=HTTP_TIMEOUT).status_code == 200
    held.pop().close()
    again = _served_once_given_back(server)
    for sock in [again, *held]:
        sock.close()


def _served_once_given_back(server: LiveServer, within: float = 10.0) -> socket.socket:
    """A connection from `OTHER` that the server serves (200), opened again while the
    server still refuses (429) until the place of a connection just closed is given
    back; failing if it is not given back `within` seconds.

    Why not a fixed wait: the server learns of the close when its event loop gets to
    it, later on a loaded machine; a refused attempt takes no place, so trying again
    is harmless."""
    deadline = time.monotonic() + within
    while True:
        sock = _connect(server)
        try:
            sock.sendall(b"GET /api/finished HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = _one_response(sock)
        except ConnectionError:  # refused, and closed before its answer was read
            answer = b""
        if answer.startswith(b"HTTP/1.1 200 "):
            return sock
        sock.close()
        assert not answer or answer.startswith(b"HTTP/1.1 429 "), answer
        assert time.monotonic() < deadline, "the closed connection's place was not given back"
        time.sleep(0.02)


def test_a_socket_that_never_authenticates_is_closed_at_auth_timeout(
    strict_server: LiveServer,
) -> None:
    """A websocket that never sends its credential is closed (4401) at `auth_timeout`
    and gives back its place among the address's sockets; its upgrade leaves the HTTP
    connections' count, so an address may hold more sockets (opened one after another)
    than HTTP connections."""
    server = strict_server
    created = server.create(variant="standard", players=7, seats=[{"kind": "human"}])
    url = f"{server.ws_url}/ws/{created['game_id']}"

    async def silent_sockets() -> list[int | None]:
        # six sockets, opened one after another, where 4 HTTP connections are allowed
        opened = [await websockets.connect(url, open_timeout=HTTP_TIMEOUT) for _ in range(6)]

        async def closed(ws: websockets.ClientConnection) -> int | None:
            with pytest.raises(websockets.ConnectionClosed):
                while True:
                    await ws.recv()
            return ws.close_code

        async with asyncio.timeout(HTTP_TIMEOUT):  # a hang guard: never closed fails
            return await asyncio.gather(*(closed(ws) for ws in opened))

    # 4401 with no credential sent: the auth deadline closed each (nothing else closes
    # a silent socket with it; a failed keepalive would be 1011)
    assert asyncio.run(silent_sockets()) == [4401] * 6
    assert not server.manager.sockets.held
