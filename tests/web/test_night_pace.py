"""The night's pace must not tell a seat who holds the hidden cards (issue 11, 5b).

A differential test at the web level. Two deals of one 7-player `standard` game
(roles hidden on death, one round of mafia night talk) differ only in cards the
observer P1 (a villager, played by a bot) cannot know: in world A the doctor is P3, a
person who thinks for 30 s before each night pick, and P7 is a villager; in world B P3
is a villager and the doctor is P7, a bot killed in the first night, so later nights
have no doctor at all. Every other seat decides by a rule on public facts only, so the
public game is the same in both worlds. The whole game runs through the real session
and driver on an event loop whose clock jumps (`tests/web/virtual_clock.py`): the test
reads the server's own times, never the wall clock.

What P1's page receives — every message, in order, with the server time it was sent
and the countdowns it carries — must be identical in both worlds until the reveal at
the end (which shows every card), and that reveal must come at the same time. Before
the night ran on its public slots (`web/night_pace.py`), world A's nights lasted
longer (the person used their time) and world B's ended as soon as the bots had
answered.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.virtual_clock import run_on_virtual_clock

from mafia_arena.agents.base import AgentBase, SyncAgent
from mafia_arena.agents.human import Action, HumanAgent
from mafia_arena.engine.choices import PASS, Choice, Speech
from mafia_arena.engine.night_clock import step_budgets
from mafia_arena.rules import load_variant
from mafia_arena.views.view import View
from mafia_arena.web.session import Connection, GameSession
from mafia_arena.web.settings import NIGHT_TIMER, TIMERS, GameSpec, SeatSpec

pytestmark = pytest.mark.timeout(120)

OVERRIDES: dict[str, Any] = {"reveal_on_death": False, "mafia_chat_rounds": 1}
DEAL_A = ["villager", "mafioso", "doctor", "detective", "villager", "mafioso", "villager"]
DEAL_B = ["villager", "mafioso", "villager", "villager", "detective", "mafioso", "doctor"]
OBSERVER, PERSON = 0, 2
THINKING = 30.0
"""Seconds the person takes over a night pick (the pick's timer is 45 s)."""


def public_rule(view: View) -> Choice | Speech:
    """A decision from public facts only, the same for a seat (by day) or a card (by
    night) in both worlds: the mafia kill the highest seat they may, the doctor and
    the detective take the lowest, every voter names the highest, speeches are a
    fixed line."""
    request = view.request
    assert request is not None
    if request.free_text:
        return Speech("I am listening.")
    targets = [c for c in request.choices if c.target is not None]
    if not targets:
        return PASS if PASS in request.choices else request.choices[0]
    by_seat = sorted(targets, key=lambda c: c.target or 0)
    lowest = request.kind in ("night:doctor_protect", "night:detective_check")
    return by_seat[0] if lowest else by_seat[-1]


class PublicRuleBot(SyncAgent):
    """A bot that decides by `public_rule`."""

    name = "public-rule"

    def decide(self, view: View) -> Choice | Speech:
        return public_rule(view)


class ThinkingBot(AgentBase):
    """A bot that decides asynchronously (as an LLM bot does), by `public_rule`."""

    name = "thinking"

    async def act(self, view: View) -> Choice | Speech:
        return public_rule(view)


async def _record(conn: Connection, into: list[tuple[float, dict[str, Any]]]) -> None:
    """A page: every message with the server time it was sent."""
    loop = asyncio.get_running_loop()
    while (message := await conn.outbox.get()) is not None:
        into.append((loop.time(), message))


async def _person(
    session: GameSession,
    conn: Connection,
    seat: int = PERSON,
    night_s: float = THINKING,
    into: list[tuple[float, dict[str, Any]]] | None = None,
) -> None:
    """A person at `seat`: answers each request of theirs by the public rule, after
    `night_s` seconds by night and one second by day; `into` records their page."""
    agent = session.slots[seat].agent
    assert isinstance(agent, HumanAgent)
    answered: set[int] = set()
    loop = asyncio.get_running_loop()
    answering: set[asyncio.Task[None]] = set()  # kept until done (the loop holds weak refs)
    while (message := await conn.outbox.get()) is not None:
        if into is not None:
            into.append((loop.time(), message))
        request = message.get("request") if message.get("type") == "state" else None
        if request is None or request["turn"] in answered:
            continue
        answered.add(request["turn"])
        task = loop.create_task(_answer(session, agent, seat, night_s, request))
        answering.add(task)
        task.add_done_callback(answering.discard)


async def _answer(
    session: GameSession, agent: HumanAgent, seat: int, night_s: float, request: dict[str, Any]
) -> None:
    await asyncio.sleep(night_s if request["kind"].startswith("night") else 1.0)
    decision = public_rule(session.view(seat))
    if isinstance(decision, Speech):
        agent.offer(Action(request["turn"], text=decision.text))
    else:
        pending = session.view(seat).request
        assert pending is not None
        agent.offer(Action(request["turn"], choice=pending.choices.index(decision)))


def _table(
    tmp_path: Path, deal: list[str], people: set[int], bot_delay: float, **settings: Any
) -> GameSession:
    """A 7-player table on fixed nights: seats in `people` for persons, public-rule
    bots in the others."""
    variant = load_variant("standard", OVERRIDES)
    seats = [SeatSpec(kind="human" if s in people else "bot") for s in range(7)]
    spec = GameSpec(variant="standard", players=7, seats=seats, overrides=OVERRIDES)
    chosen = settings_for(tmp_path, fixed_nights=True, bot_delay=bot_delay, **settings)
    session = GameSession("g", spec, variant, 7, chosen, FIXED_HOST_KEY, deal=deal)
    for slot in session.slots:
        if not slot.human:
            slot.agent = PublicRuleBot()
    return session


async def _play(
    tmp_path: Path,
    deal: list[str],
    *,
    person: bool = True,
    observer_person: bool | None = None,
    bot_delay: float = 0.0,
    **settings: Any,
) -> tuple[list[tuple[float, dict]], list[str]]:
    """One world: P1's messages with their times, and the log's decisions by kind.
    `person`: P3 is the thinking person (else a bot like the others); P1 is then a
    person too (`observer_person`, who answers each night request after 2 s), so two
    people share the table and the night runs on its public slots, not solo; else P1 is
    a bot whose page is recorded."""
    observer_person = person if observer_person is None else observer_person
    people = {PERSON} if person else set()
    if observer_person:
        people.add(OBSERVER)
    session = _table(tmp_path, deal, people, bot_delay, **settings)
    loop = asyncio.get_running_loop()
    seen: list[tuple[float, dict[str, Any]]] = []
    tasks = []
    for seat in sorted(people | {OBSERVER}):
        page = Connection(seat, limit=100_000)
        if seat in people:
            session.claim(seat, "Ada" if seat == PERSON else "Bo")
        session.attach(page)
        if seat == OBSERVER and seat not in people:
            task = _record(page, seen)
        else:
            night_s = THINKING if seat == PERSON else 2.0
            task = _person(session, page, seat, night_s, seen if seat == OBSERVER else None)
        tasks.append(loop.create_task(task))
    session.start()
    assert session.task is not None
    await session.task
    for running in tasks:
        running.cancel()
    assert session.game is not None and session.game.over
    kinds = [d["kind"] for d in session.game.decisions]
    return seen, kinds


def _until_reveal(seen: list[tuple[float, dict]]) -> tuple[list[tuple[float, dict]], float]:
    """The messages before the first one that shows the game over, and its time."""
    at = next(i for i, (_, m) in enumerate(seen) if m.get("over"))
    return seen[:at], seen[at][0]


def test_the_observer_cannot_tell_the_worlds_apart_by_the_night_pace(tmp_path: Path) -> None:
    seen_a, kinds_a = run_on_virtual_clock(_play(tmp_path / "a", DEAL_A))
    seen_b, kinds_b = run_on_virtual_clock(_play(tmp_path / "b", DEAL_B))
    # the worlds did differ by night: A's person (the doctor) was asked every night,
    # B's doctor only on the first
    assert kinds_a.count("night:doctor_protect") == 3
    assert kinds_b.count("night:doctor_protect") == 1
    before_a, end_a = _until_reveal(seen_a)
    before_b, end_b = _until_reveal(seen_b)
    assert len(before_a) == len(before_b)
    for (time_a, message_a), (time_b, message_b) in zip(before_a, before_b, strict=True):
        assert time_a == time_b, (time_a, time_b, message_a.get("phase"))
        assert message_a == message_b
    assert end_a == end_b


def test_a_patient_night_lasts_its_public_slots(tmp_path: Path) -> None:
    """The first night with a person at the table lasts exactly the sum of its slots'
    timers, from the public deck (2 mafiosi talk once each, two pick rounds, the
    doctor's and the detective's picks), and P1's page shows that countdown at dusk."""
    seen, _ = run_on_virtual_clock(_play(tmp_path, DEAL_B))
    budgets = step_budgets(load_variant("standard", OVERRIDES), 7)
    assert budgets["mafia_kill"].chat == 2 and budgets["mafia_kill"].picks == 2
    night = 2 * TIMERS["night_chat"] + 2 * NIGHT_TIMER + NIGHT_TIMER + NIGHT_TIMER
    dusk = next(m for _, m in seen if m.get("phase") == "night")
    assert dusk["waiting"] == {"text": "The night is in progress.", "seconds_left": night}
    start = next(t for t, m in seen if m.get("phase") == "night")
    dawn = next(t for t, m in seen if m.get("phase") == "day")
    assert dawn - start == pytest.approx(night)


def _nights(seen: list[tuple[float, dict]]) -> list[tuple[int | None, float]]:
    """Each night as P1's page saw it: the countdown at dusk and the time to dawn."""
    dusk: dict[Any, tuple[int | None, float]] = {}  # keyed by the messages' "day"
    dawn: dict[Any, float] = {}
    for at, message in seen:
        day, phase = message.get("day"), message.get("phase")
        if phase == "night" and day not in dusk:
            dusk[day] = (message["waiting"]["seconds_left"], at)
        if phase == "day" and day in dusk and day not in dawn:
            dawn[day] = at
    return [(dusk[d][0], dawn[d] - dusk[d][1]) for d in sorted(dawn)]


def test_paced_bots_do_not_shorten_the_night(tmp_path: Path) -> None:
    """Bots only (none patient): each slot lasts twice the bot pace, whenever the bots
    answer (their delays are random), and whoever is alive to act. Both worlds' nights
    last the same public time, and the page is told it at dusk."""
    runs = [
        _nights(run_on_virtual_clock(_play(tmp_path / name, deal, person=False, bot_delay=1.0))[0])
        for name, deal in (("a", DEAL_A), ("b", DEAL_B))
    ]
    slots = sum(b.size for b in step_budgets(load_variant("standard", OVERRIDES), 7).values())
    assert len(runs[0]) == len(runs[1]) > 0
    for (told_a, lasted_a), (told_b, lasted_b) in zip(*runs, strict=True):
        # times are sums of floats from different starts: equal up to rounding
        assert told_a == told_b == round(2.0 * slots)
        assert lasted_a == pytest.approx(lasted_b) == pytest.approx(2.0 * slots)


def test_a_night_is_patient_while_a_living_seat_may_take_its_time(tmp_path: Path) -> None:
    """Patient or not is read from public facts: a person plays a living seat (not a
    stand-in for them), or a bot that decides asynchronously does."""
    spec = GameSpec(variant="standard", players=7, seats=[SeatSpec(kind="human")])
    variant = load_variant("standard")
    session = GameSession("g", spec, variant, 1, settings_for(tmp_path), FIXED_HOST_KEY)
    assert session.patient([0, 1, 2])  # the person at P1
    assert not session.patient([1, 2, 3])  # scripted bots only
    session.replace(0)  # away: a scripted stand-in plays P1
    assert not session.patient([0, 1, 2])
    session.slots[1].agent = ThinkingBot()  # like an LLM bot: it decides asynchronously
    assert session.patient([1, 2])


# ---------------------------------------------------------------------- solo nights
DEAL_C = ["villager", "mafioso", "doctor", "villager", "villager", "mafioso", "detective"]
"""DEAL_A with the detective's card moved from P4 to P7, whom the mafia kill on the first
night (roles stay hidden): later nights have no detective. What P3 cannot know."""


async def _solo(
    tmp_path: Path, deal: list[str], bot_delay: float = 1.0, **settings: Any
) -> list[tuple[float, dict]]:
    """A person at P3 alone with public-rule bots: their own page's messages."""
    session = _table(tmp_path, deal, {PERSON}, bot_delay, **settings)
    session.claim(PERSON, "Ada")
    page = Connection(PERSON, limit=100_000)
    session.attach(page)
    seen: list[tuple[float, dict[str, Any]]] = []
    task = asyncio.get_running_loop().create_task(_person(session, page, into=seen))
    session.start()
    assert session.task is not None
    await session.task
    task.cancel()
    return seen


def test_a_person_alone_with_bots_waits_at_night_only_for_their_own_slot(
    tmp_path: Path,
) -> None:
    """Solo: the person (the doctor, 30 s over each pick) waits for nothing but their
    own pick; every other slot lasts the bot pace (2 s), so the first night lasts
    30 s plus 2 s per other slot — not the five minutes of the full timers — and the
    page is given no dawn countdown (it depends on the person's own speed)."""
    seen = run_on_virtual_clock(_solo(tmp_path, DEAL_A))
    slots = sum(b.size for b in step_budgets(load_variant("standard", OVERRIDES), 7).values())
    first = _nights(seen)[0]
    assert first == (None, pytest.approx(2.0 * (slots - 1) + THINKING))
    full = 2 * TIMERS["night_chat"] + 4 * NIGHT_TIMER
    assert first[1] < full / 4


def test_a_solo_night_is_as_long_as_the_persons_own_play_whatever_the_others_hold(
    tmp_path: Path,
) -> None:
    """The differential check of solo nights, from the only seat that sees their
    length: two worlds that differ in a card the person cannot know (who is the
    detective, alive or dead after the first night) give the person's page the same
    messages at the same times (instant bots: a paced bot's random delay would reorder
    the day's waiting lines), and with paced bots the same nights."""
    seen_a = run_on_virtual_clock(_solo(tmp_path / "a", DEAL_A, bot_delay=0.0))
    seen_c = run_on_virtual_clock(_solo(tmp_path / "c", DEAL_C, bot_delay=0.0))
    before_a, end_a = _until_reveal(seen_a)
    before_c, end_c = _until_reveal(seen_c)
    assert len(before_a) == len(before_c) > 20
    for (time_a, message_a), (time_c, message_c) in zip(before_a, before_c, strict=True):
        assert time_a == time_c and message_a == message_c
    assert end_a == end_c
    assert any(
        m.get("request", {}) and m["request"]["kind"].startswith("night") for _, m in before_a
    )
    paced = [
        _nights(run_on_virtual_clock(_solo(tmp_path / w, d)))
        for w, d in (("pa", DEAL_A), ("pc", DEAL_C))
    ]
    assert len(paced[0]) == len(paced[1]) >= 2
    assert [n[1] for n in paced[0]] == pytest.approx([n[1] for n in paced[1]])


def test_solo_nights_can_be_turned_off(tmp_path: Path) -> None:
    """`solo_nights=False`: the person alone with bots waits out every slot's timer."""
    seen = run_on_virtual_clock(_solo(tmp_path, DEAL_A, solo_nights=False))
    night = 2 * TIMERS["night_chat"] + 4 * NIGHT_TIMER
    assert _nights(seen)[0] == (night, pytest.approx(night))


def test_a_night_runs_solo_only_for_one_person_alone_with_scripted_bots(tmp_path: Path) -> None:
    """Solo or not is read from public facts: one person at the whole table, alive and
    playing their own seat, only scripted bots alive besides, and no spectator."""
    variant = load_variant("standard")

    def session_of(*kinds: str) -> GameSession:
        seats = [SeatSpec(kind=k) for k in kinds]
        spec = GameSpec(variant="standard", players=7, seats=seats)
        return GameSession("g", spec, variant, 1, settings_for(tmp_path), FIXED_HOST_KEY)

    alone = session_of("human")
    assert alone.solo([0, 1, 2]) and alone.patient([0, 1, 2])
    assert not alone.solo([1, 2, 3])  # the person is dead: nobody waits (bot pace anyway)
    alone.slots[1].agent = ThinkingBot()  # an asynchronous bot's speed would show
    assert not alone.solo([0, 1, 2]) and alone.solo([0, 2, 3])
    two = session_of("human", "human")
    assert not two.solo([0, 1, 2]) and not two.solo([0, 2])  # the dead person sees the clock
    replaced = session_of("human")
    replaced.replace(0)
    assert not replaced.solo([0, 1, 2])
    watched = session_of("human")
    watched.gallery.attach(Connection(None, limit=100))
    assert not watched.solo([0, 1, 2])
