"""The one task per game that drives the engine.

Loop: take the seats `game.pending()` asks, issue each a turn (a number and a deadline
from `timer_for(kind)`), push every seat its view, then let each pending seat decide
concurrently — bots through `agent.act(view)` after a paced delay, humans through
their `HumanAgent` mailbox — and submit with `game.submit` (a fallback a bot reports,
`take_fallback()`, is submitted as the engine's default with its reason, as in
tournaments). A seat the engine adds to the waiting prompt meanwhile (a player a
moderator's ruling releases during Palermo's change window) is given its turn at once,
beside the seats still answering (`_answer`). An illegal human decision
is refused to that person only and they may try again until the deadline; a timeout
records the request's default (`game.submit_default(seat, "timeout")`). A human away
past the grace period is replaced (a flagged stand-in bot or default actions, as the
creator chose) and takes the seat back on reconnecting. When the game ends the session
is stored (`web/storage.py`) and every seat gets the reveal.

Why per-seat coroutines inside one prompt: the rules ask simultaneous decisions (votes,
a mafia's picks) as one prompt that advances only when all have answered, so the seats
of a prompt are independent and a slow human never blocks a bot's pick being recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from asyncio import FIRST_COMPLETED, Task

from mafia_arena.agents.human import HumanAgent
from mafia_arena.engine.choices import Speech
from mafia_arena.engine.errors import GameOver, IllegalDecision
from mafia_arena.web.night_pace import NightPace
from mafia_arena.web.session import GameSession, Slot
from mafia_arena.web.settings import timer_for

log = logging.getLogger(__name__)
_jitter = random.SystemRandom()
NO_SPEECH = "[no speech: the time ran out]"  # pacing noise: independent of the game's seeded RNG
LAST_CALL = 15.0  # seconds left to the last seat of a prompt once all others have answered


async def drive(session: GameSession) -> None:
    """Play the session's game to the end, then store it and push the reveal.

    By night the loop follows the night clock (`web/night_pace.py`): a prompt waits for
    its slot, is answered by the slot's end, and every slot (asked or not) runs to its
    end before the next; the dawn is shown after the last. On a solo night the slot in
    which the table's one person is asked ends when everyone asked has answered. By
    day a prompt ends when its seats have answered.
    """
    game = session.game
    assert game is not None
    clock = session.clock
    clock.sync(game, new_prompt=True)
    dusk = None
    try:
        while not game.over or clock.plan is not None:
            pace = session.follow_night()
            if pace is not None and pace is not dusk:
                dusk = pace
                session.push_all()  # the night begins now for every page, asked or not
            if pace is not None and not clock.in_slot():
                await _end_slot(session)  # a slot in which nobody is asked
                continue
            seats = sorted(game.pending())
            now = session.now()
            if game.state.phase == "night" and not session.night_open:
                session.open_night()
            for seat in seats:
                _open_turn(session, seat, now, pace)
            session.push_all()
            await _answer(session, seats, pace)
            if pace is not None and pace.solo and any(session.slots[s].human for s in seats):
                pace.close(session.now())  # the person's slot: over once all have answered
            at_night = clock.plan is not None
            clock.sync(game, new_prompt=True)
            if at_night:
                await _end_slot(session)
    except asyncio.CancelledError:
        raise
    except Exception:  # a bug must not leave pages waiting silently
        log.exception("game %s crashed", session.id)
        session.failed = True
        session.finished_at = time.monotonic()
        for slot in session.slots:
            slot.active = False
            session.reject(slot.seat, "the game stopped because of a server error")
        return
    finally:
        session.night_open = False
        session.pace = None
        for slot in session.slots:
            slot.active = False
    from mafia_arena.web.storage import store  # local: storage imports the session module

    session.stored = store(session)
    session.finished_at = time.monotonic()
    session.push_all()


def _open_turn(session: GameSession, seat: int, now: float, pace: NightPace | None) -> None:
    """Give `seat` a turn on the request the engine now waits for from it: a new turn
    number, a deadline from `timer_for` (never past the night slot `pace` runs, which
    a solo night's person holds open) and the view a bot decides on (see catch_up)."""
    game = session.game
    assert game is not None
    request = game.request(seat)
    assert request is not None, f"seat {seat} is not asked"
    session.asked(seat)
    slot = session.slots[seat]
    if slot.opened is None or slot.opened.request is not request:
        slot.opened = session.view(seat)
    slot.turn += 1
    slot.active = True
    slot.hurry = False
    slot.deadline = now + timer_for(request.kind, session.timer_scale)
    if pace is not None:  # never past the slot (by design it fits in it)
        if pace.solo and slot.human:  # the person's own slot waits for them
            pace.hold(slot.deadline)
        slot.deadline = min(slot.deadline, pace.slot_end)


async def _answer(session: GameSession, prompt: list[int], pace: NightPace | None) -> None:
    """Run the turns of `prompt` (`_decide`, concurrently) until every one has ended.

    A seat the engine adds to the waiting prompt while the others still answer gets
    its turn at once beside theirs (they keep their numbers and deadlines): Palermo's
    moderator releasing a player while the CHANGE WINDOW waits adds that player's one
    action to the window (`Game.moderate`). Why
    not at the loop's next pass: that pass comes only once every seat asked before has
    answered, so the freed player would wait for the slowest of them, and at a table
    with a person that is minutes of the window's timer. The rulings wake this wait
    (`GameSession.prompt_changed`); `prompt` grows with the seats added, so the last
    call and the pushes of `_decide` count them. A turn that raises ends the wait
    with its exception, the other turns cancelled (the game stops: see `drive`)."""
    changed = session.prompt_changed
    changed.clear()
    turns = {asyncio.create_task(_decide(session, seat, prompt)) for seat in prompt}
    try:
        while turns:
            waking = asyncio.create_task(changed.wait())
            try:
                done, _ = await asyncio.wait({*turns, waking}, return_when=FIRST_COMPLETED)
            finally:
                waking.cancel()
            for turn in done - {waking}:
                turns.discard(turn)
                turn.result()  # a bug in a turn stops the game (`drive` logs it)
            if changed.is_set():
                changed.clear()
                turns |= _join(session, prompt, pace)
    finally:
        for turn in turns:
            turn.cancel()


def _join(session: GameSession, prompt: list[int], pace: NightPace | None) -> set[Task[None]]:
    """Open a turn for each seat the engine's waiting prompt asks that has none open,
    add it to `prompt` and push every page; the new turns (none if nobody joined).

    Only while a turn of `prompt` is still open: the engine moves to its next prompt
    only once every seat asked has answered, so an open turn means the waiting prompt
    is still the one `prompt` began with. Once every turn has ended, the driver's loop
    asks the engine's next prompt as usual."""
    game = session.game
    assert game is not None
    if game.over or not any(session.slots[s].active for s in prompt):
        return set()
    joined = [s for s in sorted(game.pending()) if not session.slots[s].active]
    if not joined:
        return set()
    now = session.now()
    for seat in joined:
        _open_turn(session, seat, now, pace)
        if seat not in prompt:
            prompt.append(seat)
    session.push_all()
    return {asyncio.create_task(_decide(session, seat, prompt)) for seat in joined}


async def _end_slot(session: GameSession) -> None:
    """Wait for the end of the night's current slot, then move the clock to the next.

    Why wait even when the slot's prompt was answered at once (or nobody was asked in
    it): the slot's length is public, the speed of its hidden actor is not."""
    assert session.game is not None and session.pace is not None
    wait = session.pace.slot_end - session.now()
    if wait > 0:
        await asyncio.sleep(wait)
    session.clock.tick(session.game)


async def _decide(session: GameSession, seat: int, prompt: list[int]) -> None:
    """Get one seat's decision for its open turn and submit it; never raises IllegalDecision.

    Actions the seat's pages sent for the turn and that were not needed (a second
    click) are dropped and the pages told so at once, not at the seat's next turn.
    Afterwards the seat's page loses its buttons at once — unless this was the last
    answer of a prompt off the night clock: then the game has moved on and the main
    loop pushes everyone together. In a night slot the page is pushed at once either
    way: while the night is open it sees the log only as it stood when it was asked
    (`GameSession.view`), so nothing of what came after shows before the dawn.
    """
    slot = session.slots[seat]
    try:
        while slot.active:
            if slot.human and not slot.replaced:
                if await _human_turn(session, slot):
                    return
            elif slot.human and (session.spec.absent == "default" or _rules_absence(session, slot)):
                _default(session, slot, "absent")
                return
            else:
                await _bot_turn(session, slot)
                return
    finally:
        slot.active = False
        slot.opened = None
        if isinstance(slot.agent, HumanAgent) and slot.agent.discard():
            session.reject(seat, "that turn is already over")  # a second click, told now
        if session.pace is not None or any(session.slots[s].active for s in prompt):
            session.push(seat)
        if any(session.slots[s].active for s in prompt):
            _last_call(session, prompt)


def _last_call(session: GameSession, prompt: list[int]) -> None:
    """Every other seat of a prompt has answered: the one left gets at most
    `LAST_CALL` seconds more (scaled like every timer) and is told so.

    Why: a vote or a clan's pick waits for its slowest member; once everyone else is
    done, a full timer left to run is only the table waiting. Only when another person
    sits at the table (connected, alive or dead): bots do not mind waiting, and a person
    alone with bots keeps their whole time. Not in a night slot (`web/night_pace.py`),
    which lasts its public time whoever answers when, nor in a forum window
    (`GameSession.forum_part`): its push to every page, and the call itself, would tell
    that all but one seat are done writing private messages or handing in forms."""
    if session.pace is not None:  # a night slot runs to its end anyway: nothing to gain
        return
    if session.forum_part() is not None:  # who is still at it in a forum window is hidden
        return
    left = [s for s in prompt if session.slots[s].active]
    if len(prompt) < 2 or len(left) != 1:
        return
    slot = session.slots[left[0]]
    waiting = [
        s for s in session.slots if s.human and s.connections and not s.replaced and s is not slot
    ]
    if not waiting:
        return
    deadline = session.now() + LAST_CALL * session.timer_scale
    if slot.hurry or deadline >= slot.deadline:
        return
    slot.deadline, slot.hurry = deadline, True
    slot.changed.set()  # a waiting human turn takes the new deadline
    session.push_all()  # the seat's countdown, and by day the others' waiting line


def _default(session: GameSession, slot: Slot, reason: str) -> None:
    assert session.game is not None
    slot.agent.stats.fallbacks += 1
    request = session.game.request(slot.seat)
    with contextlib.suppress(IllegalDecision, GameOver):  # already answered
        silent = reason in ("timeout", "absent") and not (
            request is not None and session.rules_absence(request.kind)
        )
        if request is not None and request.free_text and silent:
            # a speech nobody gave is shown as such, not as the player's "nothing to add";
            # but a forum window under the variant's inactivity rule gets the engine's
            # default (no post), or the timeout line would count as the person posting
            session.game.submit(slot.seat, Speech(NO_SPEECH), fallback=reason)
        else:
            session.game.submit_default(slot.seat, reason)
    session.record("timeout" if reason in ("timeout", "absent") else _player_kind(slot))


def _rules_absence(session: GameSession, slot: Slot) -> bool:
    """A replaced person's forum window under the variant's inactivity rule: the
    default is recorded, no stand-in posts (`GameSession.rules_absence`)."""
    request = session.game.request(slot.seat) if session.game is not None else None
    return request is not None and session.rules_absence(request.kind)


def _player_kind(slot: Slot) -> str:
    """Who answers for the seat now: the person, a stand-in for them, or its bot."""
    if slot.human:
        return "stand-in" if slot.replaced else "player"
    return "bot"


async def _bot_turn(session: GameSession, slot: Slot) -> None:
    """A bot (or a stand-in) answers after a human-like delay, within the timer."""
    game = session.game
    assert game is not None
    agent = slot.stand_in if slot.human and slot.stand_in is not None else slot.agent
    remaining = slot.deadline - session.now()
    if session.bot_delay > 0:
        await asyncio.sleep(
            min(session.bot_delay * _jitter.uniform(0.5, 1.5), max(0.0, remaining - 0.1))
        )
    try:
        view = slot.opened or session.view(slot.seat)  # the prompt's view, not a later one
        decision = await asyncio.wait_for(agent.act(view), max(0.01, slot.deadline - session.now()))
    except TimeoutError:
        _default(session, slot, "timeout")
        return
    except Exception:
        log.exception("bot at seat %d failed", slot.seat)
        _default(session, slot, "error")
        return
    if not slot.active:  # a moderator's ruling ended the turn meanwhile
        return
    # as the tournament runner does (`runner.match._submit`): a fallback the agent
    # reports (an LLM call that failed, counted by the agent) is recorded as the
    # engine's default with its reason, so the log says who decided
    reason = agent.take_fallback()
    try:
        if reason:
            game.submit_default(slot.seat, reason)
        else:
            game.submit(slot.seat, decision)
    except IllegalDecision:
        _default(session, slot, "illegal")
        return
    session.record(_player_kind(slot))
    if slot.human:
        slot.stood_in += 1


async def _human_turn(session: GameSession, slot: Slot) -> bool:
    """Wait for the person's legal decision until the deadline or the grace runs out.

    Returns True when the turn was answered (by them or by the default), False when
    the seat changed hands (replaced) and the caller should ask the new controller.
    """
    game = session.game
    agent = slot.agent
    assert game is not None and isinstance(agent, HumanAgent)
    agent.turn = slot.turn
    view = session.view(slot.seat)
    at_night = session.at_night()  # a night turn neither counts as missed nor resets
    while True:
        if not slot.active:  # a moderator's ruling ended the turn (`web/rulings.py`)
            return True
        now = session.now()
        grace_end = (
            float("inf") if slot.away_since is None else slot.away_since + session.settings.grace
        )
        if now >= slot.deadline:
            request = game.request(slot.seat)
            _default(session, slot, "timeout")
            if request is not None:
                session.missed_turn(slot.seat, request.kind, at_night=at_night)
            return True
        if now >= grace_end:
            session.replace(slot.seat)
            return False
        slot.changed.clear()
        acting = asyncio.ensure_future(agent.act(view))
        changed = asyncio.ensure_future(slot.changed.wait())
        try:
            done, _ = await asyncio.wait(
                {acting, changed},
                timeout=min(slot.deadline, grace_end) - now,
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            acting.cancel()
            changed.cancel()
        if acting in done and not acting.cancelled():
            try:
                game.submit(slot.seat, acting.result())
                session.record("player")
                if not at_night:  # only day turns make or break a row of missed ones
                    slot.missed = 0
                return True
            except IllegalDecision as exc:
                session.reject(slot.seat, exc.reason)
