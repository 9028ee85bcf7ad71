"""The websocket of one page: authenticate, then stream the seat's view and take actions.

Protocol: the page's first message must be ``{"type": "auth", "credential": …}``
within `Settings.auth_timeout`; a credential that is not a seat credential of this game
closes the socket (4401). From then on the connection is bound to that seat — until a
newer page opens the seat, which takes it: this one is told and closed with 4409
(`GameSession.attach`), and a frame it sent meanwhile is not read. It receives
``state`` messages (the seat's new transcript lines plus its snapshot), ``lobby``
before the start, and ``error`` replies meant for it alone, and it may send ``act``,
``say``, ``form`` (a forum form the turn does not list), ``back`` (take the seat back
from its stand-in), ``chat`` and ``ping``. The game's watch token opens a spectator's
page instead (`web/gallery.py`): public ``state`` messages, and only ``chat`` and
``ping`` from it. Every frame is size-checked, schema-validated and rate-limited before
it reaches the seat's `HumanAgent` (a frame dropped by the rate limit is answered,
never dropped unsaid); none can name another seat. Every frame read is answered: by
its effect (a ``state`` push, a ``pong``) or by an ``error`` saying why it did nothing
(a ``back`` with no stand-in playing the seat, an action with nothing to decide).

Close codes: 4401 (no valid credential), 4404 (no such game), 4409 (the seat was
opened in another page), 4429 (too many sockets from the address, or spectators of the
game), 1008 (a page that went on sending past the rate limit: `MAX_STRIKES` dropped
frames), 1009 (a frame over the server's 64 KiB websocket limit), 1000 (the game's
server closed the page otherwise: it was too slow to read what it was sent, or the
server stops; the page reconnects and gets its whole view again).
"""

from __future__ import annotations

import asyncio
import contextlib
import json

from starlette.websockets import WebSocket, WebSocketDisconnect

from mafia_arena.agents.human import Action, Form, HumanAgent, turn_mismatch
from mafia_arena.web.auth import Grant
from mafia_arena.web.chat import ChatRefused
from mafia_arena.web.manager import GameManager
from mafia_arena.web.protocol import (
    Act,
    Auth,
    Back,
    BadMessage,
    Chat,
    Message,
    Ping,
    RateLimiter,
    Write,
    parse,
)
from mafia_arena.web.session import Connection, GameSession

CLOSE_AUTH = 4401
CLOSE_UNKNOWN = 4404
CLOSE_POLICY = 1008
CLOSE_BUSY = 4429
MAX_STRIKES = 60  # frames dropped by the rate limiter before the socket is closed
DROPPED = "too many messages; slow down"
CHAT_RATE, CHAT_BURST = 1.0, 5.0  # chat lines per second per page, and a burst


async def _receive(ws: WebSocket) -> str | bytes | None:
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        return None
    return message.get("text") if message.get("text") is not None else message.get("bytes", b"")


async def _authenticate(ws: WebSocket, manager: GameManager, session: GameSession) -> Grant | None:
    """The grant of the socket's first message: a seat credential or the watch token."""
    try:
        raw = await asyncio.wait_for(_receive(ws), manager.settings.auth_timeout)
        message = parse(raw or "", manager.settings.max_frame)
    except (TimeoutError, BadMessage):
        return None
    if not isinstance(message, Auth):
        return None
    grant = manager.grant(session.id, message.credential)
    if grant is None or grant.scope == "admin" or (grant.scope == "seat" and grant.seat is None):
        return None
    return grant


async def _writer(ws: WebSocket, conn: Connection) -> None:
    """Drain the connection's outbox onto the socket; None closes it."""
    try:
        while True:
            message = await conn.outbox.get()
            if message is None:
                await ws.close(conn.close_code)
                return
            await ws.send_text(json.dumps(message))
    except (WebSocketDisconnect, RuntimeError):
        conn.closed = True


def _handle(session: GameSession, conn: Connection, message: Message, chat: RateLimiter) -> None:
    if isinstance(message, Ping):
        conn.send({"type": "pong"})
        return
    if isinstance(message, Chat):
        if not chat.allow():
            reason = "too many chat lines; slow down"
            conn.send({"type": "error", "about": "chat", "reason": reason})
            return
        try:
            session.post_chat(conn, message.channel, message.text)
        except ChatRefused as exc:
            conn.send({"type": "error", "about": "chat", "reason": str(exc)})
        return
    if conn.seat is None:
        conn.send({"type": "error", "reason": "spectators only watch and chat"})
        return
    if isinstance(message, Back):
        refusal = session.back_refusal(conn.seat)
        if refusal is not None:
            conn.send({"type": "error", "reason": refusal})
            return
        session.take_back(conn.seat)
        return
    if isinstance(message, Auth):
        conn.send({"type": "error", "reason": "already authenticated"})
        return
    slot = session.slots[conn.seat]
    agent = slot.agent
    if not (
        session.started and slot.active and isinstance(agent, HumanAgent) and not slot.replaced
    ):
        conn.send({"type": "error", "reason": "you have nothing to decide now"})
        return
    wrong_turn = turn_mismatch(message.turn, slot.turn)
    if wrong_turn:
        conn.send({"type": "error", "reason": wrong_turn})
        return
    action = (
        Action(message.turn, choice=message.choice)
        if isinstance(message, Act)
        else Action(message.turn, text=message.text or None, form=written(message))
        if isinstance(message, Write)
        else Action(message.turn, choice=message.choice, text=message.text)
    )
    if not agent.offer(action):
        conn.send({"type": "error", "reason": "too many actions; slow down"})


def written(message: Write) -> Form:
    """The form a ``form`` message fills in; `decision_for` builds the engine's act from
    it (`agents.human.written_act`) and the engine checks it on submit, as any answer."""
    return Form(message.verb, tuple(message.seats), message.pseudonym)


async def serve_socket(ws: WebSocket, manager: GameManager, game_id: str) -> None:
    """Run one page's websocket until it closes; at most `max_sockets_per_client` open
    sockets per client address (authenticated or not)."""
    client = ws.client.host if ws.client else ""
    if not manager.sockets.take(client):
        await ws.accept()
        with contextlib.suppress(RuntimeError, WebSocketDisconnect):
            await ws.send_text(
                json.dumps({"type": "error", "reason": "too many connections from your address"})
            )
            await ws.close(CLOSE_BUSY)
        return
    try:
        await _serve(ws, manager, game_id)
    finally:
        manager.sockets.give_back(client)


async def _serve(ws: WebSocket, manager: GameManager, game_id: str) -> None:
    await ws.accept()
    session = manager.get(game_id)
    if session is None:
        await ws.close(CLOSE_UNKNOWN)
        return
    grant = await _authenticate(ws, manager, session)
    if grant is None:
        with contextlib.suppress(RuntimeError, WebSocketDisconnect):
            await ws.send_text(json.dumps({"type": "error", "reason": "not authorised"}))
            await ws.close(CLOSE_AUTH)
        return
    if grant.seat is None and len(session.gallery.pages) >= manager.settings.max_spectators:
        with contextlib.suppress(RuntimeError, WebSocketDisconnect):
            await ws.send_text(json.dumps({"type": "error", "reason": "too many spectators"}))
            await ws.close(CLOSE_BUSY)
        return
    conn = Connection(grant.seat)
    writer = asyncio.ensure_future(_writer(ws, conn))
    session.attach(conn)  # the seat's older page, if one is open, is closed
    limiter = RateLimiter(manager.settings.rate_per_s, manager.settings.rate_burst)
    chat = RateLimiter(CHAT_RATE, CHAT_BURST)
    try:
        while not conn.closed:
            raw = await _receive(ws)
            if raw is None or conn.closed:
                # closed by the server meanwhile (a newer page took the seat, or its
                # outbox overflowed): what it sent after that must not act for the seat
                break
            if not limiter.allow():
                if limiter.strikes > MAX_STRIKES:
                    # a policy close, not a normal one: the page did not stop when told
                    conn.close(CLOSE_POLICY)
                    break
                # every dropped frame is answered, so a page never waits on an answer
                # that was not read; at most MAX_STRIKES replies before the socket closes
                conn.send({"type": "error", "reason": DROPPED})
                continue
            try:
                message = parse(raw, manager.settings.max_frame)
            except BadMessage as exc:
                conn.send({"type": "error", "reason": exc.reason})
                continue
            _handle(session, conn, message, chat)
    except WebSocketDisconnect:
        pass
    finally:
        session.detach(conn)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 2)
        writer.cancel()
