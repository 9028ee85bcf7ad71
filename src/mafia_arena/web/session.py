"""`GameSession`: one web game — seats, connections, the lobby, pushes to each seat.

A session owns the `Game` (created when the lobby starts), one `Slot` per seat (who
plays it, its `SeatTracker`, its open connections, its timer) and the driver task
(`web/driver.py`). Everything a connection receives is built here from that seat's
`View` (`web/render.py`), pushed through the connection's own outbox so that a slow
client never stalls the game.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

from mafia_arena.agents.base import Agent
from mafia_arena.agents.human import HumanAgent
from mafia_arena.agents.registry import make_agent
from mafia_arena.engine.game import Game
from mafia_arena.rules import Variant
from mafia_arena.runner.log import GameLog
from mafia_arena.seat_seeds import seat_seed
from mafia_arena.views.view import SeatTracker, View
from mafia_arena.web.render import SeatInfo, Turn, lines, snapshot
from mafia_arena.web.settings import GameSpec, SeatSpec, Settings


class Connection:
    """One open page of a seat: an outbox drained by the websocket writer.

    `cursor` counts the seat's knowledge events already sent, so each push carries only
    new transcript lines; a fresh connection starts at 0 and gets the whole view.
    """

    def __init__(self, seat: int, limit: int = 256) -> None:
        self.seat = seat
        self.cursor = 0
        self.key: str | None = None
        self.outbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(maxsize=limit)
        self.closed = False

    def send_changed(self, message: dict[str, Any], key: str) -> None:
        """Send unless the last message sent with `send_changed` had the same `key`."""
        if key != self.key:
            self.key = key
            self.send(message)

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message; a client too slow to drain its outbox is disconnected."""
        if self.closed:
            return
        try:
            self.outbox.put_nowait(message)
        except asyncio.QueueFull:
            self.close()

    def close(self) -> None:
        """Close after what is queued (or at once, dropping it, if the outbox is full)."""
        if not self.closed:
            self.closed = True
            if self.outbox.full():
                while not self.outbox.empty():
                    self.outbox.get_nowait()
            self.outbox.put_nowait(None)


@dataclass
class Slot:
    """A seat: its player (human or bot), presence, open turn and tracker."""

    seat: int
    spec: SeatSpec
    agent: Agent
    name: str
    tracker: SeatTracker
    taken: bool = False
    connections: list[Connection] = field(default_factory=list)
    turn: int = 0
    active: bool = False
    deadline: float = 0.0
    away_since: float | None = None
    replaced: bool = False
    was_replaced: bool = False
    stand_in: Agent | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def human(self) -> bool:
        return self.spec.kind == "human"

    def info(self) -> SeatInfo:
        """Public facts only: name, bot or human, presence — never the card."""
        kind = "human" if self.human else "bot"
        agent = "human" if self.human else self.agent.name
        away = self.human and self.taken and not self.connections
        return SeatInfo(self.seat, self.name, kind, agent, self.taken, away, self.replaced)


class GameSession:
    """One game from lobby to stored result. All methods run on the server's loop."""

    def __init__(
        self,
        game_id: str,
        spec: GameSpec,
        variant: Variant,
        seed: int,
        settings: Settings,
        host_key: bytes,
    ) -> None:
        self.id = game_id
        self.spec = spec
        self.variant = variant
        self.seed = seed
        self.host_key = host_key
        self.settings = settings
        self.bot_delay = settings.bot_delay if spec.bot_delay is None else spec.bot_delay
        self.timer_scale = settings.timer_scale if spec.timer_scale is None else spec.timer_scale
        self.created = time.monotonic()
        self.finished_at: float | None = None
        self.game: Game | None = None
        self.task: asyncio.Task[None] | None = None
        self.invites: dict[int, str] = {}
        self.stored: dict[str, Any] | None = None
        self.log: GameLog | None = None
        self.failed = False
        self.slots = [self._slot(i, s) for i, s in enumerate(spec.seat_list())]

    def _slot(self, seat: int, spec: SeatSpec) -> Slot:
        if spec.kind == "human":
            agent: Agent = HumanAgent(f"human:guest-{seat + 1}")
            agent.on_reject = lambda reason, s=seat: self.reject(s, reason)  # type: ignore[attr-defined]
            name = f"guest {seat + 1}"
        else:
            agent = make_agent(spec.agent)
            name = f"{agent.name} bot"
        return Slot(seat, spec, agent, name, SeatTracker(seat))

    # ------------------------------------------------------------------ lobby
    @property
    def started(self) -> bool:
        return self.game is not None

    @property
    def over(self) -> bool:
        return self.game is not None and self.game.over

    def claim(self, seat: int, name: str | None) -> None:
        slot = self.slots[seat]
        slot.taken = True
        if name:
            slot.name = name
            slot.agent.name = f"human:{name}"
        self.push_all()

    def ready(self) -> bool:
        return all(s.taken for s in self.slots if s.human)

    def start(self) -> None:
        """Deal and begin: untaken human seats go to bots, then the driver runs."""
        if self.started:
            return
        from mafia_arena.web.driver import drive  # local: the driver imports this module

        for slot in self.slots:
            if slot.human and not slot.taken:
                slot.spec = SeatSpec(kind="bot", agent=self.spec.replacement)
                slot.agent = make_agent(self.spec.replacement)
                slot.name = f"{slot.agent.name} bot"
            if slot.human and not slot.connections:
                slot.away_since = time.monotonic()
        self.invites.clear()
        self.game = Game(self.variant, len(self.slots), self.seed)
        for slot in self.slots:
            self._seat_agent(slot.agent, slot.seat)
        self.task = asyncio.get_running_loop().create_task(drive(self))

    def _seat_agent(self, agent: Agent, seat: int) -> None:
        """Prepare `agent` for `seat`: its own seat seed (never the game seed, which
        rebuilds the deal) and the exact variant."""
        agent.reset(seat, seat_seed(self.host_key, self.seed, seat))
        agent.set_variant(self.variant)

    def roster(self) -> list[SeatInfo]:
        return [slot.info() for slot in self.slots]

    def lobby(self) -> dict[str, Any]:
        """Public lobby facts (no tokens, no seed)."""
        return {
            "id": self.id,
            "variant": self.variant.name,
            "title": self.variant.title,
            "players": len(self.slots),
            "started": self.started,
            "over": self.over,
            "failed": self.failed,
            "seats": [i.to_json() for i in self.roster()],
        }

    # ------------------------------------------------------------------ presence
    def attach(self, conn: Connection) -> None:
        slot = self.slots[conn.seat]
        slot.connections.append(conn)
        slot.away_since = None
        slot.replaced = False  # a replaced person who is back takes their seat again
        slot.changed.set()  # wake a waiting turn: presence changes its deadlines
        self.push_all()

    def detach(self, conn: Connection) -> None:
        slot = self.slots[conn.seat]
        if conn in slot.connections:
            slot.connections.remove(conn)
        conn.close()
        if not slot.connections and self.started:
            slot.away_since = time.monotonic()
            slot.changed.set()
        self.push_all()

    def replace(self, seat: int) -> None:
        """The person is gone for good: a flagged bot or default actions take over."""
        slot = self.slots[seat]
        slot.replaced = slot.was_replaced = True
        if self.spec.absent == "bot" and slot.stand_in is None:
            slot.stand_in = make_agent(self.spec.replacement)
            self._seat_agent(slot.stand_in, seat)
        self.push_all()

    # ------------------------------------------------------------------ pushing
    def view(self, seat: int) -> View:
        assert self.game is not None
        return self.slots[seat].tracker.view(self.game)

    def turn_of(self, seat: int) -> Turn | None:
        slot = self.slots[seat]
        if not slot.active:
            return None
        return Turn(slot.turn, max(0.0, slot.deadline - time.monotonic()))

    def push(self, seat: int) -> None:
        """Send the seat's new transcript lines and current snapshot to its pages.

        A page gets a message only when its content changed (new lines, or a different
        snapshot apart from the countdown). Why: pushes that carry nothing new would
        still be observable — a villager's page ticking once per night step would count
        the night's hidden steps, e.g. reveal whether the doctor is still alive.
        """
        slot = self.slots[seat]
        if not slot.connections:
            return
        if self.game is None:
            lobby = {"type": "lobby", "seat": seat, **self.lobby()}
            for conn in slot.connections:
                conn.send_changed(lobby, json.dumps(lobby, sort_keys=True))
            return
        view = self.view(seat)
        state = snapshot(view, self.variant, self.roster(), self.turn_of(seat))
        key = json.dumps(
            {
                **state,
                "request": state["request"]
                and {k: v for k, v in state["request"].items() if k != "seconds_left"},
            },
            sort_keys=True,
        )
        for conn in list(slot.connections):
            new = lines(view.knowledge, conn.cursor)
            reset = conn.cursor == 0
            conn.cursor = len(view.knowledge.events)
            if new or reset:
                conn.key = None
            conn.send_changed({"type": "state", "reset": reset, "lines": new, **state}, key)

    def push_all(self) -> None:
        for slot in self.slots:
            self.push(slot.seat)

    def reject(self, seat: int, reason: str) -> None:
        """An action of this seat was refused: tell that seat's pages only."""
        for conn in self.slots[seat].connections:
            conn.send({"type": "error", "reason": reason})

    def close_all(self) -> None:
        for slot in self.slots:
            for conn in slot.connections:
                conn.close()
