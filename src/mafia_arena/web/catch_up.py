"""Resuming a stored game so that its bots decide after a restart as they would have.

A restarted server rebuilds a live game by resubmitting its stored decisions
(`Game.resubmit`). That alone gives every seat the same log, but not the same bots: a
fresh bot has drawn nothing from its random generator and remembers nothing, so its
next decision could differ from the one the uninterrupted game would have seen. So
while the decisions are resubmitted, each synchronous bot (and stand-in) is asked
again, on exactly the view it had, for every decision it made: its generator and memory
come out where they were. Its answers are compared with the stored ones, and a
difference is logged (the bot changed between the runs).

The view a bot decides on is its seat's view when the driver opened the prompt (the
set of seats `game.pending()` asked at once), never a later one: which other answers of
the same prompt had arrived by then would depend on the wall clock. Prompts are
rebuilt the same way here: a record whose seat is not waiting in the open prompt opens
the next one. Asynchronous bots (LLM players) are not asked again — that would call
their model — and start the rest of the game afresh.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from mafia_arena.agents.base import Agent
from mafia_arena.engine.choices import Choice, Speech
from mafia_arena.views.view import SeatTracker, View

if TYPE_CHECKING:
    from mafia_arena.web.session import GameSession

log = logging.getLogger(__name__)


def _matches(decision: object, record: dict[str, Any]) -> bool:
    if isinstance(decision, Speech):
        return record.get("text") == decision.text
    return isinstance(decision, Choice) and record.get("choice") == decision.key


def catch_up(session: GameSession, decisions: list[tuple[dict[str, Any], str]]) -> dict[int, View]:
    """Resubmit `decisions` (record, who made it) into the session's new game, asking
    each synchronous bot again on its view; returns the views of the seats still to
    answer in the prompt that was open when the server stopped."""
    game = session.game
    assert game is not None
    trackers = [SeatTracker(slot.seat) for slot in session.slots]
    opened: dict[int, View] = {}
    differ = 0
    for record, by in decisions:
        if record.get("host"):
            game.resubmit(record)
            continue
        seat = record["seat"]
        if seat not in opened:  # the prompt before is complete: the next one opens
            opened = {s: trackers[s].view(game) for s in sorted(game.pending())}
        view = opened.pop(seat, None)
        agent = _agent_for(session, seat, by)
        if agent is not None and agent.synchronous and view is not None:
            same = _matches(agent.decide(view), record)
            differ += 0 if same or record.get("fallback") else 1
        if record.get("fallback"):
            session.slots[seat].agent.stats.fallbacks += 1
        elif by == "player":
            session.slots[seat].agent.stats.decisions += 1
        game.resubmit(record)
    if differ:
        log.warning("game %s: %d bot decision(s) differ on resume", session.id, differ)
    session.resume_differences = differ
    return opened


def _agent_for(session: GameSession, seat: int, by: str) -> Agent | None:
    """The bot that made a stored decision: the seat's bot, or its stand-in."""
    slot = session.slots[seat]
    if by == "bot" and not slot.human:
        return slot.agent
    if by == "stand-in":
        return session.stand_in_for(slot)
    return None
