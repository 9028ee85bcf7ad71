"""Web-level differential leak test: a seat's page is the same in worlds it cannot tell apart.

`tests/properties/differential.py` plays two worlds that differ only in cards the
observer cannot know (other seats' roles permuted, Palermo's intrigue cards too) through
the engine and both environments. Here the same random cases, every variant and switch
setting of `SETTINGS`, are played through the web app's own session and driver: the
real `GameSession` and `drive` on an event loop whose clock jumps
(`tests/web/virtual_clock.py`), so every countdown and every message time is the
server's own.

How a case runs:
1. The decisions are paired first, on two engine games in lockstep (`plan`): each
   seat's decisions in world A, and in world B the same decisions for the same seat by
   day and for the same card by night (`pair`), as the env test does.
2. Each world is then played on the web: the observer is a person whose page is
   recorded and who answers after a fixed thinking time; in odd cases another seat,
   whose card the observer does not know, is a person too who takes 20 s over each
   night decision (a slow hidden actor), and in every fourth case that person closes
   their page mid-game and a stand-in takes the seat after the grace period; every
   other seat is a scripted bot that replays its planned decisions.
3. Every message the observer's page receives — its content, the server time it was
   sent and its order — must be the same in both worlds up to the observer's first
   stream entry that may differ (`legit`: a death's card, the deal at the end), or up
   to where the planned decisions parted. Any earlier difference is a leak: a night
   that lasts longer when a power role lives, a result pushed at once in one world and
   at dawn in the other, a waiting line or a countdown that names who acts at night.
4. Where the worlds part on a card shown to the observer (a death's card, a check's
   result), the case is played again with world B dealt around the cards shown
   (`run_refined`), so the pages are compared through the rest of the game too.
5. Palermo's card cases (`card_case`) also move every intrigue card but the
   observer's to other holders in world B; they are played and refined the same way,
   the other person (odd cases) being a seat whose intrigue card differs.

The default run plays `CASES_PER_SETTING` cases per setting; ``MAFIA_SLOW=1`` plays
`SLOW_CASES` more (thousands of web games).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.properties.differential import (
    SETTINGS,
    Leak,
    Parted,
    Worlds,
    card_case,
    cards_shown,
    describe,
    fallback,
    first_difference,
    legit,
    pair,
    random_case,
    run_refined,
    stream,
)
from tests.web.conftest import settings_for
from tests.web.virtual_clock import run_on_virtual_clock

from mafia_arena.agents.base import SyncAgent
from mafia_arena.agents.human import Action, HumanAgent
from mafia_arena.engine import PASS, Choice, Game, Request
from mafia_arena.engine.events import SeatEvent
from mafia_arena.rules import load_variant
from mafia_arena.views.view import View
from mafia_arena.web.gallery import PUBLIC_SEAT
from mafia_arena.web.session import Connection, GameSession
from mafia_arena.web.settings import GameSpec, SeatSpec

pytestmark = pytest.mark.timeout(1800)

CASES_PER_SETTING = int(os.environ.get("MAFIA_WEB_LEAK_GAMES", "10"))
SLOW_CASES = 1500
RUN_SLOW = os.environ.get("MAFIA_SLOW") == "1"
OBSERVER_S = (1.0, 3.0)
"""The observer's thinking time by day and by night (seconds)."""
PERSON_S = (1.0, 20.0)
"""The other person's: slow by night, a hidden actor who uses their time."""
LEAVE_S = (150.0, 40.0, 90.0, 250.0, 400.0, 700.0, 1100.0)
"""In every fourth case (`index % 4 == 3`) the other person closes their page at one of
these server times (`leave_time`) and a stand-in takes the seat: in the first night, the
first day's talk or vote, or days later, so a departure meets every phase of the game."""
GRACE_S = 2.0
"""The grace before a stand-in takes a left seat: shorter than any turn's timer, so
the stand-in, not a timeout's default, answers the person's open turn."""
NIGHT_OUTCOMES = frozenset({"death", "no_death"})
"""What a lone hidden step's decision may change in the observer's stream: the dawn."""


# --------------------------------------------------------------------------- the plan
@dataclass
class Plan:
    """Each world's decisions by seat, in the order each seat is asked, and where the
    worlds may start to differ for a reason the decisions give: `cut`, the observer's
    stream length when the paired decisions parted (a seat asked in one world only, or
    no decision legal in both), and `lone`, its length when a hidden night step ran in
    one world only (a night role alive there and dead in the other) with a decision that
    could change something; None where it did not happen."""

    decisions: tuple[dict[int, list[Choice]], dict[int, list[Choice]]]
    cut: tuple[int, int] | None = None
    """(the observer's, the public stream's length) where the decisions parted."""
    lone: int | None = None


def _lengths(game: Game, observer: int) -> tuple[int, int]:
    """The observer's and the spectators' (the public) stream lengths now."""
    return len(stream(game, observer)), len(stream(game, PUBLIC_SEAT))


def _games(worlds: Worlds) -> tuple[Game, Game]:
    rules = load_variant(worlds.variant, worlds.overrides)
    a = Game(rules, worlds.players, worlds.seed, **worlds.options_a)
    b = Game(rules, worlds.players, worlds.seed, **worlds.options_b)
    return a, b


def plan(worlds: Worlds, policy_seed: int) -> Plan:
    """Pair the two worlds' decisions on engine games (`pair`), one prompt at a time.

    By night the worlds run the same steps (`Game.step_marks` records each as it starts,
    its role alive or not), but a step whose role is dead asks nobody: where one world
    has started fewer of the night's steps, its prompt is a step the other world skipped,
    and it is answered there alone (a pass, or the first choice) while the other waits.
    The plan ends where the paired decisions part (`Plan.cut`); the web replay then
    leaves the plan at that point too."""
    games = _games(worlds)
    rng = random.Random(policy_seed)
    worlds.diverged = ""
    out = Plan(({}, {}))
    observer = worlds.observer
    while not any(g.over for g in games):
        marks = [len(g.step_marks) for g in games]
        if marks[0] != marks[1]:
            behind = marks.index(min(marks))
            game, queues = games[behind], out.decisions[behind]
            for seat, request in sorted(game.pending().items()):
                assert seat != observer, "the observer's own step cannot be skipped"
                if request.choices != (PASS,) and out.lone is None:
                    out.lone = len(stream(game, observer))
                queues.setdefault(seat, []).append(fallback(request))
                game.submit(seat, fallback(request))
            continue
        pending = [g.pending() for g in games]
        try:
            chosen = pair(worlds, pending[0], pending[1], rng)
        except Parted:
            out.cut = _lengths(games[0], observer)
            break
        if worlds.diverged:  # the worlds are no longer played alike: compare no further
            out.cut = _lengths(games[0], observer)
            break
        for game, picks, queues in zip(games, chosen, out.decisions, strict=True):
            for seat, choice in sorted(picks.items()):
                queues.setdefault(seat, []).append(choice)
                game.submit(seat, choice)
    return out


# --------------------------------------------------------------------------- the table
@dataclass
class World:
    """One world's web game: the observer's page and a spectator's as they were sent,
    and where a replayed decision first left the plan (`_lengths` then)."""

    session: GameSession
    page: list[tuple[float, int, dict[str, Any]]] = field(default_factory=list)
    """(server time, entries of the observer's stream the page had been sent, message)."""
    gallery: list[tuple[float, int, dict[str, Any]]] = field(default_factory=list)
    """The same for a spectator's page (entries of the public stream), where one watched."""
    off_plan: tuple[int, int] | None = None

    def left_plan(self, observer: int) -> None:
        if self.off_plan is None:
            assert self.session.game is not None
            self.off_plan = _lengths(self.session.game, observer)


def _next(queue: list[Choice], request: Request, world: World, observer: int) -> Choice:
    """The seat's next planned decision, or (off the plan) a pass or the first choice."""
    if queue and queue[0] in request.choices:
        return queue.pop(0)
    world.left_plan(observer)
    return fallback(request)


class ReplayBot(SyncAgent):
    """A scripted bot that plays its seat's planned decisions in order."""

    name = "replay"

    def __init__(self, queue: list[Choice], world: World, observer: int) -> None:
        super().__init__()
        self.queue, self.world, self.observer = queue, world, observer

    def decide(self, view: View) -> Choice:
        assert view.request is not None
        return _next(self.queue, view.request, self.world, self.observer)


class RecordedPage(Connection):
    """A page that keeps every message with the server time and the page's cursor."""

    def __init__(self, seat: int | None, into: list[tuple[float, int, dict[str, Any]]]) -> None:
        super().__init__(seat, limit=1_000_000)
        self.into = into

    def send(self, message: dict[str, Any]) -> None:
        self.into.append((asyncio.get_running_loop().time(), self.cursor, message))
        super().send(message)


async def _person(
    world: World,
    seat: int,
    page: Connection,
    queue: list[Choice],
    thinking: tuple[float, float],
    observer: int,
) -> None:
    """A person at `seat` answering each of their requests from the plan, after their
    thinking time (by day, by night); their page is `page`."""
    session = world.session
    agent = session.slots[seat].agent
    assert isinstance(agent, HumanAgent)
    answered: set[int] = set()
    while (message := await page.outbox.get()) is not None:
        request = message.get("request") if message.get("type") == "state" else None
        if request is None or request["turn"] in answered:
            continue
        answered.add(request["turn"])
        night = request["kind"].startswith("night") or message.get("phase") == "night"
        await asyncio.sleep(thinking[1] if night else thinking[0])
        if page.closed:  # they left while thinking: the stand-in plays their queue on
            return
        pending = session.view(seat).request
        if pending is None:  # the turn ended meanwhile (a timeout)
            continue
        choice = _next(queue, pending, world, observer)
        agent.offer(Action(request["turn"], choice=pending.choices.index(choice)))


async def _play(
    worlds: Worlds,
    world_b: bool,
    decisions: dict[int, list[Choice]],
    person: int | None,
    root: Path,
    fixed_nights: bool = True,
    watched: bool = False,
    leave_at: float | None = None,
) -> World:
    """One world through the web app; returns the observer's page (and with `watched`
    a spectator's, who opened the watch link before the start) as they were sent.
    `leave_at`: the other person closes their page at that server time, and after the
    grace period a stand-in takes the seat and plays on from the plan (`ReplayBot`:
    the stand-in's own choices would follow the card, and the worlds would part)."""
    variant = load_variant(worlds.variant, worlds.overrides)
    people = {worlds.observer} | ({person} if person is not None else set())
    seats = [SeatSpec(kind="human" if s in people else "bot") for s in range(worlds.players)]
    spec = GameSpec(
        variant=worlds.variant, players=worlds.players, seats=seats, overrides=worlds.overrides
    )
    settings = settings_for(
        root / ("b" if world_b else "a"), fixed_nights=fixed_nights, grace=GRACE_S
    )
    session = GameSession(
        "g",
        spec,
        variant,
        worlds.seed,
        settings,
        FIXED_HOST_KEY,
        **(worlds.options_b if world_b else worlds.options_a),
    )
    world = World(session)
    loop = asyncio.get_running_loop()
    for slot in session.slots:
        if not slot.human:
            slot.agent = ReplayBot(decisions.get(slot.seat, []), world, worlds.observer)
    tasks = []
    for seat in sorted(people):
        session.claim(seat, f"person {seat + 1}")
        page: Connection = (
            RecordedPage(seat, world.page) if seat == worlds.observer else Connection(seat, 10**6)
        )
        session.attach(page)
        thinking = OBSERVER_S if seat == worlds.observer else PERSON_S
        queue = decisions.setdefault(seat, [])
        tasks.append(loop.create_task(_person(world, seat, page, queue, thinking, worlds.observer)))
        if seat != worlds.observer and leave_at is not None:
            session.slots[seat].stand_in = ReplayBot(queue, world, worlds.observer)
            loop.call_later(leave_at, _leave, session, page)
    if watched:
        session.attach(RecordedPage(None, world.gallery))
    session.start()
    assert session.task is not None
    await session.task
    for task in tasks:
        task.cancel()
    assert session.game is not None and session.game.over and not session.failed
    return world


def _leave(session: GameSession, page: Connection) -> None:
    """The person closes their page (if the game still runs)."""
    if not session.over:
        session.detach(page)


# --------------------------------------------------------------------------- comparing
def compare_pages(worlds: Worlds, a: World, b: World, paired: Plan) -> int:
    """Raise `Leak` where the observer's pages differ before a legit reason; return how
    many messages were compared.

    `at`, the first position of the observer's stream at which the web games differ,
    must be a difference `legit` allows, or a night's outcome (a death, or none) after
    a lone hidden step's decision (`Plan.lone`: a doctor alive in one world only saved
    the victim there). Then the pages are compared up to it (`compare_messages`)."""
    assert a.session.game is not None and b.session.game is not None
    worlds.games = (a.session.game, b.session.game)
    sa, sb = stream(a.session.game, worlds.observer), stream(b.session.game, worlds.observer)
    at = first_difference(sa, sb)
    parted = _parted(paired, a, b, 0)
    lone = (
        paired.lone is not None
        and at is not None
        and at >= paired.lone
        and {e.kind for e in (sa[at : at + 1] + sb[at : at + 1])} <= NIGHT_OUTCOMES
    )
    if at is not None and (parted is None or at < parted) and not lone:
        why = legit(worlds, sa, sb, at)
        if why is None:
            raise Leak(f"stream differs at {at}: {sa[at : at + 1]} vs {sb[at : at + 1]}")
    worlds.keep = cards_shown(worlds, sa, sb, len(sa) if at is None else at)
    return compare_messages(a.page, b.page, at, parted, _inserted(sa, sb, at))


def compare_spectators(a: World, b: World, paired: Plan) -> int:
    """The spectator's pages, compared up to the first public event that differs (no
    rule to check: every public event is in the observer's stream too, where
    `compare_pages` checked the first difference)."""
    assert a.session.game is not None and b.session.game is not None
    sa, sb = stream(a.session.game, PUBLIC_SEAT), stream(b.session.game, PUBLIC_SEAT)
    at = first_difference(sa, sb)
    return compare_messages(
        a.gallery, b.gallery, at, _parted(paired, a, b, 1), _inserted(sa, sb, at)
    )


def _inserted(sa: Sequence[SeatEvent], sb: Sequence[SeatEvent], at: int | None) -> bool:
    """The streams part at `at` by an entry one world has and the other lacks (a night's
    second death where the other world's seat held the immortal's card): the rest lines
    up one place later, or the shorter stream ends there."""
    if at is None:
        return False
    if at >= len(sa) or at >= len(sb):
        return True
    a_extra = at + 1 < len(sa) and sa[at + 1] == sb[at]
    b_extra = at + 1 < len(sb) and sb[at + 1] == sa[at]
    return a_extra or b_extra


def _parted(paired: Plan, a: World, b: World, which: int) -> int | None:
    """Where the decisions parted, in the observer's (0) or the public (1) stream."""
    marks = [m[which] for m in (paired.cut, a.off_plan, b.off_plan) if m is not None]
    return min(marks, default=None)


def compare_messages(
    pa: list[tuple[float, int, dict[str, Any]]],
    pb: list[tuple[float, int, dict[str, Any]]],
    at: int | None,
    parted: int | None,
    inserted: bool = False,
) -> int:
    """Messages sent before a page had entry `at` must be equal, one for one, with
    their times, and the first message that carries it must come at the same index and
    time in both worlds; where the entry is one world's extra (`inserted`), the other
    world's message at that index and time carries the entries before it. Where the
    decisions parted (`parted`: the plan's cut, or a replay that left the plan), only
    messages sent before the page had reached that point are compared. Returns how many
    messages were compared."""
    compared = 0
    for (time_a, seen_a, msg_a), (time_b, seen_b, msg_b) in zip(pa, pb, strict=False):
        if parted is not None and (seen_a >= parted or seen_b >= parted):
            return compared
        if at is not None and (seen_a > at or seen_b > at):
            short = min(seen_a, seen_b) < at if inserted else min(seen_a, seen_b) <= at
            if short or time_a != time_b:
                raise Leak(
                    f"message {compared}: entry {at} reaches the page at "
                    f"{time_a:g} s (message with {seen_a} entries) vs "
                    f"{time_b:g} s ({seen_b} entries)"
                )
            return compared
        if (time_a, seen_a, msg_a) != (time_b, seen_b, msg_b):
            keys = sorted(k for k in msg_a.keys() | msg_b.keys() if msg_a.get(k) != msg_b.get(k))
            raise Leak(
                f"message {compared} differs at {time_a:g} s vs {time_b:g} s "
                f"({seen_a} vs {seen_b} entries seen): {keys}"
            )
        compared += 1
    if len(pa) != len(pb) and at is None and parted is None:
        raise Leak(f"{len(pa)} messages vs {len(pb)}, with the same stream")
    return compared


def play_case(index: int, root: Path, fixed_nights: bool = True) -> int:
    """Case `index` of the seeded sequence through the web app in both worlds, played
    again where the worlds part on a card shown to the observer (`run_refined`: a
    death's card, then the rest of the game with world B dealt around the cards shown);
    returns the messages compared in every attempt. `fixed_nights=False` plays the
    nights off their public slots (a test server's setting), to show that the
    comparison catches the leak."""
    worlds, policy_seed = random_case(index)
    return play_refined(worlds, policy_seed, index, root, f"case {index}", fixed_nights)


def play_refined(
    worlds: Worlds,
    policy_seed: int,
    index: int,
    root: Path,
    label: str,
    fixed_nights: bool = True,
) -> int:
    """A case through the web app, refined as `play_case` says; `index` chooses the
    people and spectators (`play_worlds`), `label` names the case in a failure."""
    attempts = iter(range(1000))

    def run(case: Worlds, seed: int, _seen: Any = None) -> int:
        folder = root / f"{index}-{next(attempts)}"
        return play_worlds(case, seed, index, folder, fixed_nights)[0]

    try:
        return run_refined(run, worlds, policy_seed)
    except Leak as leak:
        raise AssertionError(f"{label} ({describe(worlds)}): {leak}") from None


def leave_time(index: int) -> float | None:
    """When the other person of case `index` closes their page (every fourth case), else
    None: the leaving cases take `LEAVE_S` in turn (cases 3 and 143 leave at 150 s)."""
    if index % 4 != 3:
        return None
    return LEAVE_S[(index // 4) % len(LEAVE_S)]


def play_worlds(
    worlds: Worlds, policy_seed: int, index: int, root: Path, fixed_nights: bool = True
) -> tuple[int, World, World, int | None]:
    """One attempt of case `index`: plan the decisions, play both worlds, compare; returns
    the messages compared (the observer's, and a spectator's in every fourth case,
    `index % 4 == 2`: watched, a person alone with bots no longer plays solo nights), the
    two worlds and the other person's seat (odd cases; in cases `index % 4 == 3` they
    leave, at `leave_time`). That person holds a card that differs between the worlds:
    in a card case an intrigue card (and a role too where one does)."""
    paired = plan(worlds, policy_seed)
    others = [s for s in range(worlds.players) if s != worlds.observer]
    person = random.Random(policy_seed).choice(others) if index % 2 else None
    if person is not None and worlds.hands_b is not None:
        # a card case: a person whose intrigue card differs, and their role too if any
        hands_a, hands_b = worlds.hands or {}, worlds.hands_b
        held = [s for s in others if hands_a.get(s) != hands_b.get(s)]
        both = [s for s in held if worlds.deal_a[s] != worlds.deal_b[s]]
        person = (both or held or [person])[0]
    elif person is not None and worlds.deal_a[person] == worlds.deal_b[person]:
        # a person whose card differs between the worlds, where the observer has one
        moved = [s for s in others if worlds.deal_a[s] != worlds.deal_b[s]]
        person = moved[0] if moved else person
    watched = index % 4 == 2
    leave_at = leave_time(index)
    a, b = (
        run_on_virtual_clock(
            _play(worlds, w, paired.decisions[w], person, root, fixed_nights, watched, leave_at)
        )
        for w in (False, True)
    )
    try:
        compared = compare_pages(worlds, a, b, paired)
        if watched:
            compared += compare_spectators(a, b, paired)
            assert a.gallery, "the spectator's page got no message"
        return compared, a, b, person
    except Leak as leak:
        raise Leak(f"person={person}: {leak}") from None


@pytest.mark.parametrize("setting", range(len(SETTINGS)), ids=[f"{v}{o}" for v, o in SETTINGS])
def test_a_page_is_the_same_in_worlds_its_seat_cannot_tell_apart(
    setting: int, tmp_path: Path
) -> None:
    cases = range(setting, CASES_PER_SETTING * len(SETTINGS), len(SETTINGS))
    compared = [play_case(index, tmp_path) for index in cases]
    assert sum(compared) >= 3 * len(compared), compared


@pytest.mark.slow
@pytest.mark.skipif(not RUN_SLOW, reason="thousands of web games: set MAFIA_SLOW=1")
def test_thousands_of_pages_are_the_same(tmp_path: Path) -> None:
    first = CASES_PER_SETTING * len(SETTINGS)
    compared = [play_case(index, tmp_path) for index in range(first, first + SLOW_CASES)]
    assert sum(compared) >= 3 * len(compared)


WEB_CARD_CASES = 8
"""Palermo cases whose world B also moves the intrigue cards, through the web app."""


def test_a_page_cannot_tell_who_holds_the_other_intrigue_cards(tmp_path: Path) -> None:
    """Palermo: world B moves every intrigue card but the observer's to other holders
    (within their camps, `move_cards`), on top of the permuted roles. The page must not
    tell: a card offered, played or held shows in no message, countdown or waiting line
    of a seat that does not hold it. Refined like the other cases (`run_refined`: the
    cards move afresh around the seats shown)."""
    compared: list[int] = []
    index = 0
    while len(compared) < WEB_CARD_CASES:
        case = card_case(index)
        if case is not None:
            worlds, policy_seed = case
            label = f"cards case {index} (hands {worlds.hands} -> {worlds.hands_b})"
            compared.append(play_refined(worlds, policy_seed, index, tmp_path, label))
        index += 1
    assert sum(compared) >= 3 * len(compared), compared


def test_the_page_comparison_catches_a_mark_on_the_intrigue_card_holders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mutation check: a waiting line that also names the seats holding an intrigue
    card (a badge of the kind a table might show) tells the worlds of a card case
    apart; the card cases' comparison must catch it."""
    from mafia_arena.engine.palermo.state import of

    real = GameSession.waiting

    def marking(self: GameSession) -> dict[str, Any] | None:
        line = real(self)
        if line is None or self.game is None:
            return line
        holders = ", ".join(f"P{s + 1}" for s in sorted(of(self.game).cards))
        return {**line, "text": f"{line['text']} Cards held by {holders}."}

    monkeypatch.setattr(GameSession, "waiting", marking)
    case = card_case(0)
    assert case is not None
    worlds, policy_seed = case
    assert worlds.hands is not None and worlds.hands_b is not None
    assert set(worlds.hands) != set(worlds.hands_b), "the holders differ between the worlds"
    with pytest.raises(AssertionError, match="message"):
        play_refined(worlds, policy_seed, 0, tmp_path, "cards case 0")


def caught_early(cases: range, root: Path, what: str, fixed_nights: bool = True) -> None:
    """A mutation check's verdict: some case of `cases` (played until one is) must fail
    the page comparison on a message; `what` names the planted leak."""
    for index in cases:
        try:
            play_case(index, root, fixed_nights=fixed_nights)
        except AssertionError as caught:
            assert "message" in str(caught), caught
            return
    pytest.fail(f"no case told the worlds apart by {what}")


def test_the_page_comparison_catches_nights_that_end_when_their_actors_answer(
    tmp_path: Path,
) -> None:
    """Mutation check: nights off their public slots (they end once the asked seats
    have answered) let a person's slow night decisions show in the observer's clock,
    and only where that person holds a night card; some early case must be caught."""
    odd = range(1, 8 * len(SETTINGS), 2)  # odd cases seat the slow person
    caught_early(odd, tmp_path, "the length of the night", fixed_nights=False)


def test_the_page_comparison_catches_a_waiting_line_that_names_the_night_actors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mutation check: a waiting line that names the asked seats by night too, as it
    does by day, tells the observer who holds a night card; some early case must be
    caught."""

    def naming(self: GameSession) -> dict[str, Any] | None:
        if self.game is None or self.game.over:
            return None
        asked = sorted(self.game.pending())
        return {"text": f"Waiting for {asked}.", "seconds_left": None}

    monkeypatch.setattr(GameSession, "waiting", naming)
    caught_early(range(8 * len(SETTINGS)), tmp_path, "the night's waiting line")


def test_a_hidden_card_holder_who_leaves_is_replaced_alike_in_both_worlds(tmp_path: Path) -> None:
    """Case 3 (standard): the other person holds a card that differs between the worlds
    and closes their page at 150 s (`leave_time`); in both worlds a stand-in takes the seat after
    the grace and decides for it, and the observer's page (the public notice, its time,
    every later message) is the same."""
    worlds, policy_seed = random_case(3)
    compared, a, b, person = play_worlds(worlds, policy_seed, 3, tmp_path)
    assert person is not None and worlds.deal_a[person] != worlds.deal_b[person]
    for world in (a, b):
        slot = world.session.slots[person]
        assert slot.was_replaced and slot.stood_in > 0
    notices = [time for time, _, message in a.page if "is away" in json.dumps(message)]
    assert leave_time(3) == 150.0
    assert notices and notices[0] >= 150.0
    assert compared > 50


def test_the_page_comparison_catches_a_replacement_that_waits_for_the_seats_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mutation check: a left seat replaced at its next turn (no grace timer) gets its
    stand-in, and the public notice, at night where it holds a night card and by day
    where it does not; some early case with a leaving person must be caught."""

    def replaced_when_asked(self: GameSession, slot: Any) -> None:
        slot.away_since = self.now()  # `_human_turn` replaces the seat once grace is over

    monkeypatch.setattr(GameSession, "_away", replaced_when_asked)
    leaving = range(3, 16 * len(SETTINGS), 4)  # the cases in which the person leaves
    caught_early(leaving, tmp_path, "when a left seat was replaced")


def test_a_second_night_death_in_one_world_only_is_compared_at_its_dawn(tmp_path: Path) -> None:
    """Regression of the harness (case 542: club, 12 players): in a refined attempt the
    night's shots killed P12 in world B only; in world A that seat held the immortal's
    card. Both dawns reached the page at the same server time, world B's with the extra
    death. The entry where the streams part is world B's extra one, so world A's dawn
    message, at the same index and time, rightly lacks it: the rule's public effect, not
    a page that is late."""
    assert play_case(542, tmp_path) > 0


def test_a_seat_left_during_a_night_that_ended_the_game_is_replaced_alike(tmp_path: Path) -> None:
    """Regression (case 143: simple, 13 players): in a refined attempt the last night's
    kill ended world A's game at once while the night ran on the clock to 183 s, and
    the other person left at 150 s. Only world B, whose game went on, replaced the seat
    (a public notice at 152 s), because the session counted its game over before the
    dawn had shown it: the notice told the observer, half a minute early, that the
    night had not ended the game."""
    assert leave_time(143) == 150.0
    assert play_case(143, tmp_path) > 0


def test_the_lobby_tells_the_end_only_at_the_dawn_that_shows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The public game endpoint (`GameSession.lobby`, as `GET /api/games/{id}`) says
    ``over`` only once the night that ended the game has run to its dawn: sampled at
    every push of a game whose last night's kill ends it while the night still runs on
    the clock (the first such simple case)."""
    samples: list[tuple[bool, bool, bool]] = []
    real_push = GameSession.push

    def sampling(self: GameSession, seat: int) -> None:
        if self.game is not None:
            held = self.clock.plan is not None  # the night still runs on the clock
            samples.append((self.game.over, held, self.lobby()["over"]))
        real_push(self, seat)

    monkeypatch.setattr(GameSession, "push", sampling)
    for index in range(0, 40 * len(SETTINGS), len(SETTINGS)):  # the `simple {}` cases
        samples.clear()
        worlds, policy_seed = random_case(index)
        play_worlds(worlds, policy_seed, index, tmp_path / str(index))
        held = [lobby for ended, holding, lobby in samples if ended and holding]
        if held:
            assert not any(held), f"case {index}: the lobby said over before the dawn"
            assert any(lobby for _, _, lobby in samples)  # and it does say so at the end
            return
    pytest.fail("no simple case ended the game in a night held on the clock")
