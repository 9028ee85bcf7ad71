"""The spectators of one game: their pages and the public view they share.

A spectator holds the game's watch link (`web/auth.py`, kind ``watch``) and sees what
every seat sees in common: the public events, read through the fold of a seat that no
private event admits (seat -1), so no card, night action or channel reaches them —
nothing that `render.public_snapshot` could show but the publicly revealed cards.
While a night is open they see the log as it stood when the night began, like every
seat, and a page gets a message only when its content changed (`GameSession.push`).
Spectators talk in their own chat channel (`web/chat.py`), which no seat reads.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mafia_arena.views.knowledge import Knowledge
from mafia_arena.views.view import SeatTracker
from mafia_arena.web.chat import Member
from mafia_arena.web.render import lines, public_snapshot

if TYPE_CHECKING:
    from mafia_arena.web.session import Connection, GameSession

PUBLIC_SEAT = -1  # a seat number no private event ever admits


class Gallery:
    """The watching pages of one session."""

    def __init__(self, session: GameSession) -> None:
        self.session = session
        self.pages: list[Connection] = []
        self.tracker = SeatTracker(PUBLIC_SEAT)
        self.hold = 0
        """While a night is open: the log position the night began at."""
        self.joined = 0

    def attach(self, conn: Connection) -> None:
        self.joined += 1
        conn.author = f"spectator {self.joined}"
        self.pages.append(conn)
        self.push()

    def detach(self, conn: Connection) -> None:
        if conn in self.pages:
            self.pages.remove(conn)
        conn.close()

    def knowledge(self) -> Knowledge:
        game = self.session.game
        assert game is not None
        return self.tracker.update(game, self.hold if self.session.night_open else None)

    def member(self) -> Member:
        """Spectators as chat readers (their own channel; every channel after the end)."""
        if self.session.game is None:
            return Member(None)
        return Member(None, over=self.knowledge().over)

    def state(self) -> dict[str, Any]:
        session = self.session
        knowledge = self.knowledge()
        why = session.why_ended(knowledge)
        state = public_snapshot(knowledge, session.variant, session.roster(), session.names, why)
        state["rules"] = session.rules
        state["notices"] = list(session.notices)
        state["stand_in"] = False
        state["waiting"] = session.waiting()
        state["chats"] = session.chat.open_to(self.member())
        state["table"] = session.table()
        state["rematch"] = None
        return state

    def push(self) -> None:
        session = self.session
        if not self.pages:
            return
        if session.game is None:
            lobby = {"type": "lobby", "seat": None, "spectator": True, **session.lobby()}
            for conn in self.pages:
                conn.send_changed(lobby, json.dumps(lobby, sort_keys=True))
            return
        knowledge = self.knowledge()
        state = self.state()
        key = json.dumps({**state, "waiting": state["waiting"] and state["waiting"]["text"]})
        for conn in list(self.pages):
            new = lines(
                knowledge,
                conn.cursor,
                session.moves(),
                names=session.names,
                variant=session.variant,
            )
            reset = conn.cursor == 0
            conn.cursor = len(knowledge.events)
            if new or reset:
                conn.key = None
            conn.send_changed({"type": "state", "reset": reset, "lines": new, **state}, key)
            session.chat.deliver(conn, self.member())

    def close_all(self) -> None:
        for conn in self.pages:
            conn.close()
