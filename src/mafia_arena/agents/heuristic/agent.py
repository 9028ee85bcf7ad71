"""`HeuristicAgent`: a competent scripted player for every role of the bundled variants.

It decides from its `View` alone (knowledge + request), never from the game. Each
request kind goes to a small strategy module: night actions by action name
(`night.py`), votes and nominations (`day.py`), speech (`talk.py`); all of them read
one `Context` with the seat's suspicion assessments (`suspicion.py`). Randomness comes
from a per-seat generator seeded in `reset`, so a game with the same seed and seating
replays identically.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from mafia_arena.agents.base import SyncAgent
from mafia_arena.agents.heuristic.context import Context
from mafia_arena.agents.heuristic.day import last_dead, nominate, vote
from mafia_arena.agents.heuristic.forum import forum_decision
from mafia_arena.agents.heuristic.memory import Memory
from mafia_arena.agents.heuristic.night import night_decision
from mafia_arena.agents.heuristic.palermo import palermo_decision
from mafia_arena.agents.heuristic.rulebook import rulebook
from mafia_arena.agents.heuristic.style import BALANCED, Style
from mafia_arena.agents.heuristic.talk import speak
from mafia_arena.engine.choices import PASS, Choice, Decision, Speech
from mafia_arena.views.view import View

Handler = Callable[[Context], Decision]

HANDLERS: dict[str, Handler] = {
    "vote": vote,
    "final_vote": vote,
    "nominate": nominate,
    "last_dead": last_dead,
    "forum": forum_decision,
}


class HeuristicAgent(SyncAgent):
    """Rule-of-thumb Mafia player: suspicion scores, role play, coordinated votes.

    `strict` re-raises errors of its own strategies (tests); otherwise an error is
    counted in ``stats.extra["errors"]`` and a legal fallback is played, so one
    unforeseen request (a new variant's role) never stops a tournament. `style` is the
    preset (`style.STYLES`); the agent's name is the style's.
    """

    name = "heuristic"

    def __init__(self, seed: int = 0, *, strict: bool = False, style: Style = BALANCED) -> None:
        super().__init__()
        self.strict = strict
        self.style = style
        self.name = style.name
        self.seat = 0
        self.seed = seed
        self.rng = random.Random(f"heuristic:{seed}:0")
        self.memory = Memory(0)
        self.notes: dict[str, Any] = {}

    def reset(self, seat: int, seed: int) -> None:
        super().reset(seat, seed)
        self.seat, self.seed = seat, seed
        self.rng = random.Random(f"heuristic:{seed}:{seat}")
        self.memory = Memory(seat)
        self.notes = {}

    def decide(self, view: View) -> Decision:
        """A legal decision for `view.request` (a choice, or a speech where allowed)."""
        request = view.request
        assert request is not None, "decide() needs a view with a request"
        self.stats.decisions += 1
        book = rulebook(view.rules)
        if view.rules.palermo is None:  # Palermo's strategy folds its own stream
            self.memory = Memory.of(view.knowledge)
        ctx = Context(view, self.memory, book, self.rng, self.seed, self.notes, self.style)
        try:
            decision = dispatch(ctx)
        except Exception:
            if self.strict:
                raise
            self.stats.extra["errors"] = self.stats.extra.get("errors", 0.0) + 1.0
            decision = PASS if request.kind == "forum" else ctx.fallback()
        return _legal(ctx, decision)


def dispatch(ctx: Context) -> Decision:
    """Route a request by kind; unknown kinds are handled by their shape."""
    request = ctx.request
    if ctx.view.rules.palermo is not None:
        return palermo_decision(ctx)
    if request.kind.startswith("night:"):
        return night_decision(ctx)
    handler = HANDLERS.get(request.kind)
    if handler is not None:
        return handler(ctx)
    if request.free_text:
        return speak(ctx)
    if ctx.targets:
        return vote(ctx)
    return PASS if PASS in request.choices else ctx.fallback()


def _legal(ctx: Context, decision: Decision) -> Decision:
    """Guard: whatever a strategy returned, hand the engine something it accepts."""
    request = ctx.request
    if isinstance(decision, Speech):
        if request.free_text and len(decision.text) <= request.max_chars:
            return decision
        return PASS if request.kind == "forum" else ctx.fallback()
    if isinstance(decision, Choice) and (
        request.offers(decision)
        or (decision == PASS and request.default == "pass" and not ctx.targets)
    ):
        return decision
    return ctx.fallback()
