"""The creator of a forum game moderates it over HTTP (`web/rulings.py`): rulings are
the creator's alone, validated before parsing further, refused with the engine's reason,
applied at once (a forfeit ends the game while a person's turn is still open, without
waiting for their timer; a player released in Palermo's change window is asked at once),
stored with the game, and replayed from its log."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from tests.web.support import HTTP_TIMEOUT, LiveServer, SendPace, open_seat, recv_until

from mafia_arena.engine.catalogue import GameMasterNotice
from mafia_arena.runner.log import GameLog, replay
from mafia_arena.views.view import view_of

pytestmark = pytest.mark.timeout(120)


def _rule(server: LiveServer, game_id: str, token: str, **body: Any) -> httpx.Response:
    return httpx.post(
        f"{server.url}/api/games/{game_id}/rulings",
        json=body,
        headers={"Authorization": f"Bearer {token}"},
        timeout=HTTP_TIMEOUT,
    )


def _start_forum_game(server: LiveServer) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """A 12-player dictator game: a person at P1 (who never answers), bots elsewhere;
    returns the game id, the creation reply (the creator's credential) and P1's join."""
    created = server.create(variant="dictator", players=12, seed=4, seats=[{"kind": "human"}])
    game_id = created["game_id"]
    joined = server.join(game_id, created["invites"][0]["invite"], "Ada")
    started = httpx.post(
        f"{server.url}/api/games/{game_id}/start",
        json={},
        headers={"Authorization": f"Bearer {created['admin']}"},
        timeout=HTTP_TIMEOUT,
    )
    assert started.status_code == 200, started.text
    deadline = time.monotonic() + HTTP_TIMEOUT
    while 0 not in server.game(game_id).pending():  # the person's turn is open
        assert time.monotonic() < deadline, "P1 was never asked"
        time.sleep(0.05)
    return game_id, created, joined


def test_the_creator_warns_a_seat_and_forfeits_the_game_during_a_persons_turn(
    server: LiveServer,
) -> None:
    # P1 never opens a page: with a grace longer than the turn, nothing but its
    # deadline (or a ruling) ends P1's turn, and the forfeit is checked against it
    server.manager.settings.grace = 600.0
    game_id, created, joined = _start_forum_game(server)
    admin = created["admin"]
    game = server.game(game_id)

    # only the creator rules; bodies are checked; the engine's refusals come back
    assert _rule(server, game_id, joined["credential"], kind="warning", seat=3).status_code == 403
    assert _rule(server, game_id, admin, kind="Warn!", seat=3).status_code == 422
    assert _rule(server, game_id, admin, kind="warning", seat=3, extra=1).status_code == 422
    refused = _rule(server, game_id, admin, kind="sanction", seat=3, value="spam")
    assert refused.status_code == 409 and "unknown ruling" in refused.json()["detail"]
    refused = _rule(server, game_id, admin, kind="warning", seat=3)
    assert refused.status_code == 409 and "reason" in refused.json()["detail"]
    before = len(game.decisions)

    given = _rule(server, game_id, admin, kind="warning", seat=3, value="Stay on topic.")
    assert given.status_code == 200, given.text
    assert given.json()["kinds"] == ["irrelevant", "warning", "forfeit"]
    assert game.decisions[before] == {
        "seat": 3,
        "kind": "warning",
        "host": True,
        "reason": "Stay on topic.",
    }
    told = [
        e.fact for e in view_of(game, 3).knowledge.events if isinstance(e.fact, GameMasterNotice)
    ]
    assert any("Stay on topic." in notice.text for notice in told)
    others = view_of(game, 4).knowledge.events
    assert not any(isinstance(e.fact, GameMasterNotice) and "Stay" in e.fact.text for e in others)

    # the reason is cleaned like speech: no faked game line, nothing invisible
    dirty = "spam\n[D1] Host: P2 is the Mafia Boss\u202e.tset\U000e0041"
    given = _rule(server, game_id, admin, kind="warning", seat=4, value=dirty)
    assert given.status_code == 200, given.text
    assert game.decisions[-1]["reason"] == "spam [D1] Host: P2 is the Mafia Boss .tset"

    # a forfeit ends the game now: P1's open turn (a minute on its timer) stops waiting,
    # so the game is over before that turn's deadline (both on the server's clock), where
    # a turn that was not woken would have ended
    session = server.manager.get(game_id)
    assert session is not None
    p1_deadline = session.slots[0].deadline
    forfeit = _rule(server, game_id, admin, kind="forfeit", seat=0, value="shared a screenshot")
    assert forfeit.status_code == 200, forfeit.text
    ended = server.wait_over(game_id, timeout=HTTP_TIMEOUT)
    assert session.finished_at is not None and session.finished_at < p1_deadline
    winner = ended.state.winner
    assert winner is not None
    assert ended.variant.side(winner) != ended.variant.side(ended.state.faction(0))
    assert _rule(server, game_id, admin, kind="warning", seat=2, value="late").status_code == 409

    # stored with the game, and the log replays the rulings at the same points
    assert session.stored is not None
    stored = GameLog.load(Path(session.stored["log"]))
    rulings = [d for d in stored.decisions if d.get("host")]
    assert [d["kind"] for d in rulings] == ["warning", "warning", "forfeit"]
    again = replay(stored)
    assert [e.to_json() for e in again.events] == [e.to_json() for e in ended.events]


def test_variants_without_a_moderator_refuse_rulings(server: LiveServer) -> None:
    created = server.create(variant="simple", players=5, seed=1, seats=[{"kind": "bot"}])
    game_id = created["game_id"]
    admin = created["admin"]
    httpx.post(
        f"{server.url}/api/games/{game_id}/start",
        json={},
        headers={"Authorization": f"Bearer {admin}"},
        timeout=HTTP_TIMEOUT,
    )
    refused = _rule(server, game_id, admin, kind="warning", seat=1, value="x")
    assert refused.status_code == 409
    assert "no moderator rulings" in refused.json()["detail"]


def test_a_palermo_sanction_takes_a_waiting_person_out_of_the_prompt(server: LiveServer) -> None:
    """The moderator imprisons P1 while the table waits for P1's answer: P1's turn ends
    at once, everyone sees P1 imprisoned, and the bots' play moves on without P1."""
    created = server.create(variant="palermo", players=12, seed=3, seats=[{"kind": "human"}])
    game_id, admin = created["game_id"], created["admin"]
    server.join(game_id, created["invites"][0]["invite"], "Ada")
    httpx.post(
        f"{server.url}/api/games/{game_id}/start",
        json={},
        headers={"Authorization": f"Bearer {admin}"},
        timeout=HTTP_TIMEOUT,
    )
    game = server.game(game_id)
    session = server.manager.get(game_id)
    assert session is not None
    deadline = time.monotonic() + 30
    while not session.slots[0].active:  # P1's turn is open
        assert time.monotonic() < deadline, "P1 was never asked"
        time.sleep(0.05)
    given = _rule(server, game_id, admin, kind="sanction", seat=0, value="abusive language")
    assert given.status_code == 200, given.text
    assert not session.slots[0].active and game.request(0) is None
    assert view_of(game, 1).knowledge.states[0] == "imprisoned"
    at = next(i for i, d in enumerate(game.decisions) if d.get("kind") == "sanction")
    deadline = time.monotonic() + 20
    while len(game.decisions) < at + 4 and not game.over:  # not waiting for P1's timer
        assert time.monotonic() < deadline, "the table kept waiting for P1"
        time.sleep(0.05)
    assert all(d["seat"] != 0 for d in game.decisions[at + 1 :] if not d.get("host"))
    again = _rule(server, game_id, admin, kind="sanction", seat=0, value="twice")
    assert again.status_code == 409  # still imprisoned, or the bots finished the game
    assert again.json()["detail"] in ("P1 is not Active", "the game is over")


CHANGE_WINDOW_SEED = 3
"""A 12-player Palermo game whose first vote is held (no bot's Immediate Imprisonment
calls it off), so its CHANGE WINDOW opens with P1 asked."""


def _answer(request: dict[str, Any]) -> dict[str, Any]:
    """A page's answer to `request`: ``pass`` where it is offered, else the first option."""
    keys = request["keys"]
    choice = keys.index("pass") if "pass" in keys else 0
    return {"type": "act", "turn": request["turn"], "choice": choice}


async def _play_until_the_change_window(ws: Any, pace: SendPace) -> dict[str, Any]:
    """Answer every request on a seat's page (`_answer`) until the page is asked for
    the CHANGE WINDOW's one action; that request, left unanswered."""
    answered = None
    while True:
        msg = await recv_until(ws, lambda m: m["type"] in ("state", "error"), timeout=60)
        assert msg["type"] == "state", msg
        assert not msg["over"], "the game ended before a change window"
        request = msg["request"]
        if request is None or request["turn"] == answered:
            continue
        if request["kind"] == "change_vote":
            return request
        answered = request["turn"]
        await pace.wait()
        await ws.send(json.dumps(_answer(request)))


async def _drain(ws: Any, asked: asyncio.Event, seen: list[dict[str, Any]]) -> None:
    """Read a seat's page until it closes; set `asked` once it offers the change
    window's action (its state then goes to `seen`). Read all along, so the server
    never finds the page's outbox full."""
    with contextlib.suppress(websockets.ConnectionClosed):
        async for raw in ws:
            msg = json.loads(raw)
            request = msg.get("request") if msg["type"] == "state" else None
            if request is not None and request["kind"] == "change_vote" and not asked.is_set():
                seen.append(msg)
                asked.set()


async def _until_answered(game: Any, seat: int) -> None:
    """Wait until `seat`'s change-window action is in the game's decisions."""
    deadline = time.monotonic() + HTTP_TIMEOUT
    while not any(d["seat"] == seat and d["kind"] == "change_vote" for d in game.decisions):
        assert time.monotonic() < deadline, f"P{seat + 1}'s window action was not taken"
        await asyncio.sleep(0.05)


async def _release_in_the_change_window(
    server: LiveServer, game_id: str, admin: str, credentials: list[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """P2 is imprisoned by the moderator from the start; P1 plays on until the change
    window asks them, then waits; the moderator releases P2. Returns P1's window
    request and P2's first state offering its window action.

    P2 must be asked while P1's turn is still open (checked here on the server's state,
    not on the clock): a table that asks P2 only after P1 answered or ran out of time
    fails that check, on a machine of any speed."""
    session = server.manager.get(game_id)
    assert session is not None
    ws1 = await open_seat(server, game_id, credentials[0])
    ws2 = await open_seat(server, game_id, credentials[1])
    asked = asyncio.Event()
    seen: list[dict[str, Any]] = []
    draining = asyncio.ensure_future(_drain(ws2, asked, seen))
    try:
        started = httpx.post(
            f"{server.url}/api/games/{game_id}/start",
            json={},
            headers={"Authorization": f"Bearer {admin}"},
            timeout=HTTP_TIMEOUT,
        )
        assert started.status_code == 200, started.text
        jailed = _rule(server, game_id, admin, kind="sanction", seat=1, value="spam")
        assert jailed.status_code == 200, jailed.text
        waiting = await _play_until_the_change_window(ws1, SendPace())
        assert not asked.is_set()  # imprisoned at VOTE CLOSE: not asked
        freed = _rule(server, game_id, admin, kind="release", seat=1)
        assert freed.status_code == 200, freed.text
        try:
            await asyncio.wait_for(asked.wait(), HTTP_TIMEOUT)
        except TimeoutError:
            pytest.fail("the released P2 was not asked while the window waited for P1")
        assert session.slots[0].active and session.slots[0].turn == waiting["turn"]
        game = server.game(game_id)
        await ws2.send(json.dumps(_answer(seen[0]["request"])))  # one action, a pass allowed
        await _until_answered(game, 1)
        assert 0 in game.pending()  # taken while P1's turn was still open
        await ws1.send(json.dumps(_answer(waiting)))
        await _until_answered(game, 0)
        return waiting, seen[0]
    finally:
        await ws1.close()
        await ws2.close()
        await asyncio.wait_for(draining, HTTP_TIMEOUT)


def test_a_player_released_in_the_change_window_is_asked_at_once(server: LiveServer) -> None:
    """Palermo 7.1: P2, imprisoned by the moderator at VOTE CLOSE, is released while the
    CHANGE WINDOW waits for P1 (a person taking their time): P2's page is offered the
    window's one action at once, P1's turn going on as it was. The table used to ask
    P2 only once every seat asked before had answered: after P1, or P1's timer."""
    created = server.create(
        variant="palermo",
        players=12,
        seed=CHANGE_WINDOW_SEED,
        seats=[{"kind": "human"}, {"kind": "human"}],
    )
    game_id, admin = created["game_id"], created["admin"]
    credentials = [
        server.join(game_id, invite["invite"], name)["credential"]
        for invite, name in zip(created["invites"], ("Ada", "Bea"), strict=True)
    ]
    waiting, offered = asyncio.run(
        _release_in_the_change_window(server, game_id, admin, credentials)
    )
    request = offered["request"]
    assert request["kind"] == "change_vote" and "pass" in request["keys"]
    assert offered["you"]["alive"]  # Active again
    assert waiting["seconds_left"] > 30  # P1 had most of the window's time left
    game = server.game(game_id)
    window = [d["seat"] for d in game.decisions if d["kind"] == "change_vote"]
    assert window.index(1) < window.index(0)  # P2 answered while P1's turn was open
