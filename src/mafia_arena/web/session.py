"""`GameSession`: one web game — seats, connections, the lobby, pushes to each seat.

A session owns the `Game` (created when the lobby starts), one `Slot` per seat (who
plays it, its `SeatTracker`, its open page, its timer) and the driver task
(`web/driver.py`). Everything a connection receives is built here from that seat's
`View` (`web/render.py`), pushed through the connection's own outbox so that a slow
client never stalls the game.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mafia_arena.agents.base import Agent, AgentStats
from mafia_arena.agents.human import HumanAgent, speaker_names, watcher_names
from mafia_arena.agents.look_alikes import look_alike_key
from mafia_arena.agents.registry import make_agent
from mafia_arena.engine.catalogue import Fact
from mafia_arena.engine.game import Game
from mafia_arena.engine.night_clock import NightClock
from mafia_arena.rules import Variant
from mafia_arena.runner.log import GameLog
from mafia_arena.seat_seeds import seat_seed
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.endings import end_reason
from mafia_arena.views.knowledge import Knowledge
from mafia_arena.views.rules_text import rules_text
from mafia_arena.views.text import name as name_of
from mafia_arena.views.view import SeatTracker, View
from mafia_arena.views.words import FORUM_PHASES
from mafia_arena.web.catch_up import catch_up
from mafia_arena.web.chat import ChatBook, ChatRefused, seat_member
from mafia_arena.web.db import LiveStore
from mafia_arena.web.gallery import Gallery
from mafia_arena.web.night_pace import NightPace, slot_seconds
from mafia_arena.web.render import SeatInfo, Turn, lines, snapshot
from mafia_arena.web.rulings import ruling_kinds
from mafia_arena.web.settings import GameSpec, SeatSpec, Settings
from mafia_arena.web.stand_ins import Moves, StandInMoves, round_answers

CLOSE_ELSEWHERE = 4409
"""The websocket close code of a page whose seat a newer page took (`GameSession.attach`):
the page says so and does not reconnect. Why a code of its own: a page closed with a
plain 1000 reconnects by itself, so it would take the seat back from the newer page,
which would do the same in its turn: two open pages would take the seat from each other
forever."""
ELSEWHERE = "this seat was opened in another tab or device"
"""What a page whose seat a newer page took is told before it is closed, in an error
marked ``"about": "seat"``: the page goes straight to its note on the takeover rather than
show the words as a refused move until the close arrives."""


class NameTaken(ValueError):
    """A person asked for a name another seat of the table goes by."""


class Connection:
    """One open page of a seat: an outbox drained by the websocket writer.

    `cursor` counts the seat's knowledge events already sent, so each push carries only
    new transcript lines; a fresh connection starts at 0 and gets the whole view.
    """

    def __init__(self, seat: int | None, limit: int = 256) -> None:
        self.seat = seat
        """The seat this page plays; None for a spectator's page (`web/gallery.py`)."""
        self.author = ""
        """How chat lines from this page are signed (a spectator's number)."""
        self.cursor = 0
        self.chat_cursor = 0
        """Table-chat lines already considered for this page (`web/chat.py`)."""
        self.chat_open: tuple[str, ...] = ()
        """The chat channels this page read at its last delivery."""
        self.key: str | None = None
        self.outbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(maxsize=limit)
        self.closed = False
        self.close_code = 1000
        """The websocket close code the page gets when it is closed (`close`)."""

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

    def close(self, code: int = 1000) -> None:
        """Close after what is queued (or at once, dropping it, if the outbox is full),
        with the websocket close `code` (a page reconnects after a plain 1000)."""
        if not self.closed:
            self.closed = True
            self.close_code = code
            if self.outbox.full():
                while not self.outbox.empty():
                    self.outbox.get_nowait()
            self.outbox.put_nowait(None)


def disarm(slot: Slot) -> None:
    """Cancel the seat's grace timer, if one is armed (its person is back, or the
    session is closed)."""
    if slot.grace is not None:
        slot.grace.cancel()
        slot.grace = None


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
    """The seat's open page, if any: at most one, the newest (`GameSession.attach`)."""
    turn: int = 0
    active: bool = False
    deadline: float = 0.0
    away_since: float | None = None
    replaced: bool = False
    was_replaced: bool = False
    stand_in: Agent | None = None
    missed: int = 0
    """Day turns in a row the person let run out (see `Settings.idle_turns`)."""
    stood_in: int = 0
    """Decisions the stand-in made for the seat since it last took over."""
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    hurry: bool = False
    """Every other seat of the open prompt has answered: its deadline was shortened."""
    opened: View | None = None
    """The seat's view when its open prompt began: what a bot decides on (`catch_up`)."""
    hold: int = 0
    """While a night is open: how many log events this seat's pages may see (what
    stood when the night's first step began, or when this seat was last asked)."""
    grace: asyncio.TimerHandle | None = None
    """The grace timer of the person's latest absence (`GameSession._away`), if armed."""

    @property
    def human(self) -> bool:
        return self.spec.kind == "human"

    @property
    def stats(self) -> AgentStats:
        """The seat's counters: its agent's, plus its stand-in's where one played, so
        the log's re-asks and retries (`metrics.reliability`: over every decision the
        seat made) count the stand-in's too. A record's seat entry keeps the person's
        own (the stand-in's decisions are credited apart)."""
        if self.stand_in is None:
            return self.agent.stats
        return self.agent.stats.plus(self.stand_in.stats)

    def info(self) -> SeatInfo:
        """Public facts only: name, bot or human, presence — never the card."""
        kind = "human" if self.human else "bot"
        agent = "human" if self.human else self.agent.name
        away = self.human and self.taken and not self.connections
        stand_in = self.stand_in.name if self.replaced and self.stand_in is not None else None
        return SeatInfo(
            self.seat, self.name, kind, agent, self.taken, away, self.replaced, stand_in
        )


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
        store: LiveStore | None = None,
        *,
        deal: Sequence[str] | None = None,
        hands: Mapping[int, str] | None = None,
    ) -> None:
        self.id = game_id
        self.deal = None if deal is None else list(deal)
        """A forced deal (one card per seat) instead of the seed's: for tests that play
        two deals side by side. Not stored: a restarted server deals from the seed."""
        self.hands = None if hands is None else dict(hands)
        """A forced intrigue-card deal (Palermo), like `deal`: seat -> card."""
        self.store = store or LiveStore(None)
        self.persisted = 0
        """How many of `game.decisions` are in the store."""
        self.marks: list[str] = []
        """Who made each decision of `game.decisions`: ``player``, ``bot``, ``stand-in``
        (a bot playing for an absent person) or ``timeout`` (the request's default)."""
        self.stand_ins = StandInMoves()
        """The stand-in's speech and votes so far: their lines are tagged on every page."""
        self.spec = spec
        self.variant = variant
        self.names = DisplayNames.of(variant)
        """The variant's readable role and card names the seats' lines are written
        with (`views.display_names`: public rule data, as in the text view)."""
        self.seed = seed
        self.host_key = host_key
        self.settings = settings
        self.bot_delay = settings.bot_delay if spec.bot_delay is None else spec.bot_delay
        self.timer_scale = settings.timer_scale if spec.timer_scale is None else spec.timer_scale
        self.created = time.monotonic()
        self.creator = ""  # the creating client's address (per-client game limit)
        self.finished_at: float | None = None
        self.game: Game | None = None
        self.task: asyncio.Task[None] | None = None
        self.invites: dict[int, str] = {}
        self.rematch: str | None = None
        """The game the same group plays next (`GameManager.rematch`), once asked for."""
        self.rematch_invites: dict[int, str] = {}
        """That game's invites by seat, handed to this game's players (in memory only)."""
        self.watch: str | None = None
        """The watch link's token, for the creator's page (in memory only: after a
        restart the creator's page is given a new one)."""
        self.stored: dict[str, Any] | None = None
        self.log: GameLog | None = None
        self.failed = False
        self.resume_differences = 0
        """Bot decisions that came out differently when a restart caught the bots up."""
        self.night_open = False
        """Set by the driver from a night's start until its dawn is shown (see `hold`)."""
        self.prompt_changed = asyncio.Event()
        """Set by every ruling (`web/rulings.settle`): the waiting prompt may ask a seat
        more (Palermo's release in the CHANGE WINDOW), whose turn the driver then opens
        at once (`web.driver._answer`)."""
        self.clock = NightClock(variant, len(spec.seat_list()), enabled=settings.fixed_nights)
        """The night's public slots (`engine/night_clock.py`), run in time by `pace`."""
        self.pace: NightPace | None = None
        """The open night's slots on the server's clock (`web/night_pace.py`)."""
        self.notices: list[str] = []
        """Public table notices in order (who is played by a stand-in, who is back)."""
        self.slots = [self._slot(i, s) for i, s in enumerate(spec.seat_list())]
        self.rules = rules_text(variant, len(self.slots))
        """The rules of this table as every seat reads them: generated from the variant
        with the creator's switches applied, for this player count (the same text the
        LLM prompts and the terminal game show). Public: the same for every seat and
        every deal, so it can go to every page and spectator."""
        self.chat = ChatBook()
        self.gallery = Gallery(self)

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
        """Whether the game's end is public: the engine's game is over and no night is
        held on the clock. A night's kill can end the game at once while the night still
        runs to its public end (`web/night_pace.py`); until its dawn is shown nothing the
        table can see (the lobby's ``over``, a rematch, the replay, whether a seat that
        leaves is replaced) may tell that the game has ended."""
        return self.game is not None and self.game.over and self.clock.plan is None

    def check_name_free(self, seat: int, name: str) -> None:
        """Raise `NameTaken` if another seat of this table goes by `name` or a name that
        looks the same (any case, look-alike letters of other scripts:
        `agents.look_alikes.look_alike_key`): "Waiting for Ada (P2)" must say which Ada."""
        key = look_alike_key(name)
        for other, slot in enumerate(self.slots):
            if other != seat and look_alike_key(slot.name) == key:
                raise NameTaken(f"{name!r} is taken at this table (P{other + 1}); choose another")

    def claim(self, seat: int, name: str | None) -> None:
        slot = self.slots[seat]
        slot.taken = True
        if name:
            slot.name = name
            slot.agent.name = f"human:{name}"
        self.save()
        self.push_all()

    # ------------------------------------------------------------------ the store
    def save(self) -> None:
        """Write the seats (who plays each, names, taken, replaced) to the live store."""
        self.store.save_slots(
            self.id,
            [
                {
                    "kind": s.spec.kind,
                    "agent": s.spec.agent,
                    "name": s.name,
                    "taken": s.taken,
                    "replaced": s.replaced,
                    "was_replaced": s.was_replaced,
                }
                for s in self.slots
            ],
            started=self.started,
        )

    def restore_slots(self, saved: list[dict[str, Any]]) -> None:
        """Seats as `save` wrote them (a restarted server rebuilding this session)."""
        for slot, data in zip(self.slots, saved, strict=False):
            if data["kind"] == "bot" and slot.human:  # an empty human seat given to a bot
                slot.spec = SeatSpec(kind="bot", agent=data["agent"])
                slot.agent = make_agent(data["agent"])
            slot.name = data["name"]
            slot.taken = data["taken"]
            if slot.human and slot.taken:
                slot.agent.name = f"human:{slot.name}"
            slot.was_replaced = data.get("was_replaced", False)
            if data.get("replaced"):
                self.replace(slot.seat)

    def record(self, by: str) -> None:
        """Store the decisions made since the last call, each marked with who made it."""
        if self.game is None:
            return
        new = self.game.decisions[self.persisted :]
        if not new:
            return
        self.marks.extend([by] * len(new))
        self.store.add_decisions(self.id, self.persisted, [(rec, by) for rec in new])
        self.persisted = len(self.game.decisions)

    def ready(self) -> bool:
        return all(s.taken for s in self.slots if s.human)

    def start(self) -> None:
        """Deal and begin: untaken human seats go to bots, then the driver runs."""
        if self.started:
            return
        for slot in self.slots:
            if slot.human and not slot.taken:
                slot.spec = SeatSpec(kind="bot", agent=self.spec.replacement)
                slot.agent = make_agent(self.spec.replacement)
                slot.name = f"{slot.agent.name} bot"
        self.invites.clear()
        self._begin([])
        self.save()

    def resume(self, decisions: list[tuple[dict[str, Any], str]]) -> None:
        """Continue a game after a server restart: replay its stored decisions through
        the engine (`Game.resubmit`, as `runner.replay` does), then drive it on. Every
        seat then sees exactly what it saw before; the people reconnect with the
        credentials their pages hold, within the grace period."""
        self._begin(decisions)

    def _begin(self, decisions: list[tuple[dict[str, Any], str]]) -> None:
        from mafia_arena.web.driver import drive  # local: the driver imports this module

        self.game = Game(self.variant, len(self.slots), self.seed, deal=self.deal, hands=self.hands)
        table = tuple(slot.name for slot in self.slots)  # final: no seat is named after the start
        for slot in self.slots:
            self._seat_agent(slot.agent, slot.seat)
            if isinstance(slot.agent, HumanAgent):
                slot.agent.table = table  # a speech may not open with another seat's name
        for seat, view in catch_up(self, decisions).items():
            self.slots[seat].opened = view
        self.marks = [by for _, by in decisions]
        self.stand_ins = StandInMoves()
        self.persisted = len(self.game.decisions)
        for slot in self.slots:
            if slot.human and not slot.connections:
                self._away(slot)
        self.task = asyncio.get_running_loop().create_task(drive(self))

    def _seat_agent(self, agent: Agent, seat: int) -> None:
        """Prepare `agent` for `seat`: its own seat seed (never the game seed, which
        rebuilds the deal) and the exact variant."""
        agent.reset(seat, seat_seed(self.host_key, self.seed, seat))
        agent.set_variant(self.variant)

    def roster(self) -> list[SeatInfo]:
        return [slot.info() for slot in self.slots]

    def lobby(self) -> dict[str, Any]:
        """Public lobby facts (no tokens, no seed): the seats, who is a bot of which
        kind, the variant's switches, the rules they make and the timers the creator
        chose."""
        return {
            "id": self.id,
            "variant": self.variant.name,
            "title": self.variant.title,
            "players": len(self.slots),
            "rules": self.rules,
            "started": self.started,
            "over": self.over,
            "failed": self.failed,
            "seats": [i.to_json() for i in self.roster()],
            "table": self.table(),
            "settings": {
                "overrides": dict(self.spec.overrides),
                "timer_scale": self.timer_scale,
                "bot_delay": self.bot_delay,
                "absent": self.spec.absent,
                "replacement": self.spec.replacement,
            },
            "rematch": self.rematch,
        }

    def table(self) -> dict[str, Any]:
        """Who sits at the table: the number of people and of bots, by kind."""
        bots: dict[str, int] = {}
        for slot in self.slots:
            if not slot.human:
                bots[slot.agent.name] = bots.get(slot.agent.name, 0) + 1
        humans = sum(1 for s in self.slots if s.human)
        return {"humans": humans, "bots": sum(bots.values()), "bot_kinds": bots}

    # ------------------------------------------------------------------ presence
    def attach(self, conn: Connection) -> None:
        """A page opens: a spectator's joins the gallery, a seat's plays the seat.

        A seat is played from one page, the newest: a page of the seat that is still
        open (the resume link opened on a phone while the laptop's tab is open, the
        game's page in a second tab) is told (`ELSEWHERE`) and closed with
        `CLOSE_ELSEWHERE`, and nothing it sends from then on reaches the seat
        (`web/ws.py` reads no frame of a closed page). Why: two pages both played the
        seat, each sending its own actions for the same turn. The seat stays present
        throughout, so no other page is sent anything (no "away", no grace timer), and
        its open turn keeps its number and deadline: the new page gets them, with its
        whole view."""
        if conn.seat is None:
            self.gallery.attach(conn)
            return
        slot = self.slots[conn.seat]
        for older in slot.connections:
            older.send({"type": "error", "about": "seat", "reason": ELSEWHERE})
            older.close(CLOSE_ELSEWHERE)
        slot.connections[:] = [conn]
        slot.away_since = None
        disarm(slot)
        slot.changed.set()  # wake a waiting turn: presence changes its deadlines
        if slot.replaced:  # a replaced person who is back takes their seat again
            self.take_back(conn.seat)
        self.push_all()

    def detach(self, conn: Connection) -> None:
        """A page closed. A seat's page that no longer played the seat (a newer page
        took it: `attach`) changes nothing: the seat was not left, and were the newer
        page closed meanwhile, the seat's absence would start again (its grace period
        too) at this late detach."""
        if conn.seat is None:
            self.gallery.detach(conn)
            return
        slot = self.slots[conn.seat]
        conn.close()
        if conn not in slot.connections:
            return
        slot.connections.remove(conn)
        if not slot.connections and self.started:
            self._away(slot)
            slot.changed.set()
        self.push_all()

    def _away(self, slot: Slot) -> None:
        """The seat's person left: replace them when the grace period ends.

        Why a timer rather than waiting for the seat's next turn: a seat is asked at
        night only if it holds a night role, so a replacement (and its public badge)
        that came with a turn would show who acts at night.

        Once the game is over there is nothing to stand in for, so no timer is armed:
        each timer holds the session, and a page closed at the end of every game would
        keep its finished session in memory for the grace period after the manager
        forgot it (at a busy table's pace, hundreds of finished games at once).
        """
        since = slot.away_since = self.now()
        disarm(slot)
        if self.over:
            return
        slot.grace = asyncio.get_running_loop().call_later(
            self.settings.grace, self._grace_over, slot.seat, since
        )

    def _grace_over(self, seat: int, since: float) -> None:
        slot = self.slots[seat]
        if slot.away_since == since and not slot.replaced and self.started and not self.over:
            self.replace(seat)
            slot.changed.set()

    def replace(self, seat: int, why: str = "away") -> None:
        """The person is gone (`why`: ``away`` past the grace period, or ``idle``): a
        labelled stand-in bot or default actions take over until they take it back.
        Every page gets a public notice; the decisions are marked ``stand-in``."""
        slot = self.slots[seat]
        if slot.replaced:
            return
        slot.replaced = slot.was_replaced = True
        slot.stood_in = 0
        if self.spec.absent == "bot":
            self.stand_in_for(slot)
        who = f"{slot.name} ({name_of(seat)})"
        cause = "is away" if why == "away" else "has not answered for a while"
        by = (
            f"a stand-in bot ({self.spec.replacement}) plays the seat"
            if self.spec.absent == "bot"
            else "their turns get default actions"
        )
        self.notice(f"{who} {cause}: {by} until they take it back.")
        if self.started:
            self.save()
        self.push_all()

    def stand_in_for(self, slot: Slot) -> Agent:
        """The seat's stand-in bot, made (and seated with the seat's seed) on first use;
        the same one plays every later absence of the seat."""
        if slot.stand_in is None:
            slot.stand_in = make_agent(self.spec.replacement)
            self._seat_agent(slot.stand_in, slot.seat)
        return slot.stand_in

    def back_refusal(self, seat: int) -> str | None:
        """Why the person at `seat` cannot take their seat back now (`take_back`), as
        their page shows it; None when they can.

        Why asked before `take_back`: a page's ``back`` is answered either way, with the
        seat back or with this reason, never with silence (`web/ws.py`)."""
        if self.over:
            return "the game is over"
        if not self.slots[seat].replaced:
            return "no stand-in is playing for you"
        return None

    def take_back(self, seat: int) -> None:
        """The person plays their seat again; their pages are told what happened.

        Not once the game is over (`over`): there is no seat left to play, and a person
        who opened the final table took nothing back. Why: the table then got the
        notice "is back and plays their own seat again" after the end, and the final
        table lost the seat's stand-in badge."""
        slot = self.slots[seat]
        if not slot.replaced or self.over:
            return
        slot.replaced = False
        slot.missed = 0
        slot.changed.set()
        self.notice(f"{slot.name} ({name_of(seat)}) is back and plays their own seat again.")
        made = slot.stood_in
        for conn in slot.connections:
            conn.send(
                {
                    "type": "info",
                    "text": f"Welcome back. While you were gone a stand-in made {made} "
                    "decision(s) for you (marked in the log, credited to the stand-in). "
                    "The seat is yours again.",
                }
            )
        if self.started:
            self.save()
        self.push_all()

    def rules_absence(self, kind: str) -> bool:
        """Whether the variant's own inactivity rule handles a missed turn of `kind`: a
        forum window of a variant with ``rules.forum.inactivity_warnings`` (dictator
        8.5.6: warnings, then disqualification, counted by the engine from the posts).
        There the default is recorded and no stand-in plays: a stand-in posting for the
        person would void the rule."""
        return kind == "forum" and self.variant.rules.forum.inactivity_warnings is not None

    def at_night(self) -> bool:
        """Whether the night is on: from its first step until its dawn is shown, in
        every variant's clock — ``night`` (the step lists, the forum's night windows)
        and Palermo's night phases (``night_early``, ``night_late``, ``dead_time``:
        `views.words.FORUM_PHASES`).

        Why every night phase: a missed night turn must not count towards
        `Settings.idle_turns` (`missed_turn`), and the engine names Palermo's night by
        its clock phases, never ``night``. Counted as day turns, a Palermo night turn
        that only some seats get (a channel post, a night ability, a card) could bring
        a stand-in, and its public notice, in the night."""
        if self.night_open:
            return True
        if self.game is None:
            return False
        phase = self.game.state.phase
        return phase == "night" or FORUM_PHASES.get(phase) == "night"

    def missed_turn(self, seat: int, kind: str, *, at_night: bool = False) -> None:
        """A person's turn ran out. Day turns count towards `Settings.idle_turns`
        (then a stand-in takes over); night turns only warn, privately: a replacement
        that followed a night turn would show that the seat has a night role. A night
        turn is one asked `at_night` (`at_night()` when it was asked) or of a
        ``night…`` kind: not every night request says so in its kind (classic's
        mafiosi describe their victim's death, kind ``describe``), and a missed one
        that counted brought a stand-in, with its public notice, in the night — naming
        a mafioso to every page. Nor does a night turn answered break a row of missed
        day turns (the driver resets the count only on a day turn). A forum window
        under the variant's inactivity rule (`rules_absence`) only warns: the
        engine's warnings and disqualification apply."""
        slot = self.slots[seat]
        if self.rules_absence(kind):
            self.warn(
                seat,
                "Your time ran out; nothing was posted. The variant's inactivity rule "
                "applies: a day without posts earns a warning, and enough warnings "
                "disqualify.",
            )
            return
        if at_night or kind.startswith("night") or not slot.connections:
            self.warn(seat, "Your time ran out; the default was recorded.")
            return
        slot.missed += 1
        left = self.settings.idle_turns - slot.missed
        if left <= 0:
            self.replace(seat, "idle")
            return
        self.warn(
            seat,
            f"Your time ran out; the default was recorded. After {left} more missed "
            "turn(s) in a row a stand-in bot takes your seat (you can take it back).",
        )

    def warn(self, seat: int, text: str) -> None:
        for conn in self.slots[seat].connections:
            conn.send({"type": "warning", "text": text})

    def notice(self, text: str) -> None:
        """A public table notice (stand-ins coming and going): every page shows it."""
        self.notices.append(text)

    # ------------------------------------------------------------------ pushing
    def view(self, seat: int) -> View:
        """The seat's view; while a night is open, cut at the seat's `hold`, so its own
        night results reach it at dawn whatever the later steps do (issue: a result
        shown at once when a later step had a living actor, at dawn otherwise)."""
        assert self.game is not None
        slot = self.slots[seat]
        upto = slot.hold if self.night_open else None
        knowledge = slot.tracker.update(self.game, upto)
        return View(seat, self.variant, knowledge, self.game.request(seat))

    def now(self) -> float:
        """The server's clock: the event loop's (monotonic) time, which every deadline,
        slot and countdown of the game is measured on — so a test can run a game on a
        loop whose clock it controls."""
        try:
            return asyncio.get_running_loop().time()
        except RuntimeError:  # outside the loop (a synchronous caller): the same clock
            return time.monotonic()

    def follow_night(self) -> NightPace | None:
        """The open night's pace: begun when the clock opens a plan (the engine entered a
        night's first step), dropped with the plan. A new night's slots are measured
        from now, and their lengths fixed from public facts (`web/night_pace.py`). Once
        the night is over (no plan, and the engine is past the night), the dawn is open:
        every seat gets its night's lines."""
        plan = self.clock.plan
        if plan is None:
            self.pace = None
            if self.game is not None and self.game.state.phase != "night":
                self.night_open = False
            return None
        if self.pace is None or self.pace.plan is not plan:
            solo = self.settings.solo_nights and self.solo(plan.living)
            patient = self.patient(plan.living) and not solo
            self.pace = NightPace(
                plan,
                self.now(),
                lambda part: slot_seconds(
                    part,
                    patient=patient,
                    bot_delay=self.bot_delay,
                    timer_scale=self.timer_scale,
                ),
                solo=solo,
            )
            if not self.night_open:
                self.open_night(plan.number)
        return self.pace

    def patient(self, living: list[int]) -> bool:
        """Whether one of the `living` seats is played by someone who may take their
        time: a person, or a bot that decides asynchronously (an LLM bot). Public: who
        is a person, which bot plays which seat and who is alive are known to all."""
        return any(self._takes_time(seat) for seat in living)

    def solo(self, living: list[int]) -> bool:
        """Whether a night may run solo (`web/night_pace.py`): the table's one person
        plays a living seat themself, every other living seat is a scripted bot, and no
        spectator has ever opened the watch link. Public facts only."""
        people = [slot.seat for slot in self.slots if slot.human]
        if len(people) != 1 or self.gallery.joined:
            return False
        person = people[0]
        if person not in living or self.slots[person].replaced:
            return False
        return not any(self._takes_time(seat) for seat in living if seat != person)

    def _takes_time(self, seat: int) -> bool:
        """Whether the seat's player may take their time: a person, or a bot that
        decides asynchronously (an LLM bot); a stand-in's kind for a replaced person."""
        slot = self.slots[seat]
        if slot.human and slot.replaced:
            agent = slot.stand_in if self.spec.absent == "bot" else None
        else:
            agent = slot.agent
        return agent is not None and not agent.synchronous

    def open_night(self, number: int | None = None) -> None:
        """A night began: every seat sees the log as it stood at its first step."""
        assert self.game is not None
        number = self.game.state.day if number is None else number
        marks = [m[1] for m in self.game.step_marks if m[0] == number]
        start = marks[0] if marks else len(self.game.events)
        self.night_open = True
        self.gallery.hold = start
        for slot in self.slots:
            slot.hold = start

    def asked(self, seat: int) -> None:
        """A seat is asked at night: it sees everything up to now (what it decides on)."""
        if self.night_open and self.game is not None:
            self.slots[seat].hold = len(self.game.events)

    def turn_of(self, seat: int) -> Turn | None:
        slot = self.slots[seat]
        if not slot.active:
            return None
        return Turn(slot.turn, max(0.0, slot.deadline - self.now()), slot.hurry)

    def state(self, seat: int, view: View) -> dict[str, Any]:
        """The seat's snapshot plus the table's public notices and whether a stand-in
        plays the seat now (the page then offers to take it back), and the table's
        rules (`rules`, public). A team's later round of picks says what happened to the
        last one (`answered`)."""
        state = snapshot(
            view,
            self.variant,
            self.roster(),
            self.turn_of(seat),
            self.names,
            self.why_ended(view),
            self.answered,
        )
        state["rules"] = self.rules
        state["notices"] = list(self.notices)
        state["stand_in"] = self.slots[seat].replaced
        state["waiting"] = self.waiting() if state["request"] is None else None
        state["spectator"] = False
        state["table"] = self.table()
        state["rulings"] = list(ruling_kinds(self.variant))  # public: what the variant allows
        state["rematch"] = self.rematch
        state["chats"] = self.chat.open_to(seat_member(seat, view))
        return state

    def answered(self, picks: Fact) -> dict[int, str] | None:
        """How each member asked answered the round of team picks `picks`, from the
        decisions' marks (`web.stand_ins.round_answers`): the request for the team's
        next round says what happened (a timeout, an absence, a stand-in's pass), which
        the picks alone do not show (`views.people_text.team_round_prompt`)."""
        if self.game is None:
            return None
        return round_answers(self.game.events, self.marks, picks)

    def why_ended(self, view: View | Knowledge) -> str:
        """The reason the end screen shows once `view`'s seat has seen the end
        (`views.endings.end_reason`, from the finished game), else ""."""
        knowledge = view.knowledge if isinstance(view, View) else view
        if knowledge.ended is None or self.game is None:
            return ""
        return end_reason(self.game, knowledge.ended)

    # ------------------------------------------------------------------ table chat
    def post_chat(self, conn: Connection, channel: str, text: str) -> None:
        """A chat line from a page (`ChatRefused` if it may not write there, before
        the game starts, or if its words are another speaker's: `ChatBook.post`, with
        the names its writer reads the table by, the seats' names and the pseudonyms
        its own view or the public one holds), stored and delivered to every page that
        reads its channel (`push` ends with the chat).

        Why refused before the start for spectators too: a lobby page is sent no chat,
        so a spectator's line was kept without a word to its sender and came out of
        the blue at the start."""
        if self.game is None:
            raise ChatRefused("the chat opens when the game starts")
        table = tuple(slot.name for slot in self.slots)
        if conn.seat is None:
            member, author = self.gallery.member(), conn.author
            names = watcher_names(self.gallery.knowledge(), table)
        else:
            view = self.view(conn.seat)
            member = seat_member(conn.seat, view)
            author = f"{self.slots[conn.seat].name} ({name_of(conn.seat)})"
            names = speaker_names(view, table)
        line = self.chat.post(channel, member, author, text, names)
        self.store.add_chat(self.id, len(self.chat.lines) - 1, line.to_json())
        self.push_all()  # a page's state comes before chat it may read (its death first)

    def forum_part(self) -> str | None:
        """``"day"`` or ``"night"`` while a forum window is open (Palermo's clock
        phases, the dictator's days and nights), else None.

        Why: a forum window asks its seats until each says it is done, and what they do
        meanwhile (private messages, night forms) is hidden, so the pages of the others
        must not change with who is still at it: the waiting line names nobody, and no
        seat gets a last call (`web.driver`) that would push every page."""
        if self.game is None:
            return None
        phase = self.game.state.phase
        part = FORUM_PHASES.get(phase)
        if part is None and self.variant.rules.flow == "dictator" and phase in ("day", "night"):
            part = phase
        return part

    def waiting(self) -> dict[str, Any] | None:
        """Whom the table waits for, for pages with nothing to decide. By day the asked
        seats are public (whose speech, who still votes): their names and the longest
        countdown. By night only "the night is in progress", with the time to the dawn
        when the night runs on the clock (the same for every deal, `web/night_pace.py`)
        and none otherwise: who is asked at night, and for how long, would show who
        holds a night role. A forum game's windows (Palermo's phases, the dictator's days
        and nights) say only which part of the day it is."""
        if self.game is None:
            return None
        phase = self.game.state.phase
        part = self.forum_part()
        if part is not None and not self.game.over:
            # Palermo: the night or the day, the same text all along, asked or not. Not
            # the clock's finer phase: when one ends shows when its last mover was done,
            # and who may move in it can be a card's holder. Night and day change only
            # with their public announcements. A forum game's day window the same way:
            # its seats are asked until they say they are done, so naming them would
            # show who is still writing private messages or handing in forms.
            return {"text": f"The {part} is in progress.", "seconds_left": None}
        if self.night_open or (phase != "day" and not self.game.over):
            # the same text all night long, asked or not
            dawn = None if self.pace is None else self.pace.countdown
            if dawn is not None:
                dawn = round(max(0.0, dawn - self.now()))
            return {"text": "The night is in progress.", "seconds_left": dawn}
        if self.game.over:
            return None
        asked = sorted(s for s in self.game.pending() if self.slots[s].active)
        if not asked:
            return None
        names = ", ".join(f"{self.slots[s].name} ({name_of(s)})" for s in asked)
        left = max(self.slots[s].deadline for s in asked) - self.now()
        hurry = " Last call." if all(self.slots[s].hurry for s in asked) else ""
        return {"text": f"Waiting for {names}.{hurry}", "seconds_left": round(max(0.0, left))}

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
        state = self.state(seat, view)
        key = json.dumps(
            {
                **state,
                "request": state["request"]
                and {k: v for k, v in state["request"].items() if k != "seconds_left"},
                "waiting": state["waiting"] and state["waiting"]["text"],
            },
            sort_keys=True,
        )
        member = seat_member(seat, view)
        moves = self.moves()
        for conn in list(slot.connections):
            new = lines(view.knowledge, conn.cursor, moves, names=self.names, variant=self.variant)
            reset = conn.cursor == 0
            conn.cursor = len(view.knowledge.events)
            if new or reset:
                conn.key = None
            conn.send_changed({"type": "state", "reset": reset, "lines": new, **state}, key)
            self.chat.deliver(conn, member)

    def moves(self) -> Moves:
        """The stand-in's speech and vote facts up to now (`web/stand_ins.py`)."""
        if self.game is None:
            return {}
        return self.stand_ins.update(self.game.events, self.marks)

    def push_all(self) -> None:
        for slot in self.slots:
            self.push(slot.seat)
        self.gallery.push()

    def reject(self, seat: int, reason: str) -> None:
        """An action of this seat was refused: tell that seat's pages only."""
        for conn in self.slots[seat].connections:
            conn.send({"type": "error", "reason": reason})

    def close_all(self) -> None:
        """Close every page and disarm every grace timer: the session is being forgotten."""
        for slot in self.slots:
            disarm(slot)
            for conn in slot.connections:
                conn.close()
        self.gallery.close_all()
