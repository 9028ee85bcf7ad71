"""The night clock: every night takes the same slots, whoever is alive to act.

Two drivers run nights on it: the PettingZoo env (a slot is one env step) and the web
app (a slot is a span of seconds, `web/night_pace.py`).

Why: the engine asks only the living, unblocked holders of a step's roles, and a group
step stops early once its members agree. Driven prompt by prompt, a night would take
fewer steps (or seconds) when the doctor is dead (in a variant that hides dead roles, a leak),
and an actor's own turn would come earlier or later with the fate of the roles before
it. The clock gives each night step that runs tonight a fixed number of *slots*, from
public facts only (the variant, the player count, the deck, the night number):

- an individual step: one slot per pick (``target.count``);
- a group step: ``chat_rounds`` times the most members it can have (the chat), then
  ``max(1, rounds)`` pick rounds, then one slot if it asks the group to describe a kill;
- a copy step: per possible copier, one slot for the source and one per pick of the
  longest skill it can borrow.

The engine's prompts are placed in their step's slots in the order they come; every
other slot is a waiting slot in which nobody decides. A seat's view is cut at the start
of the next step (`Game.step_marks`), so the public call of a later step, a later
step's private result and the dawn appear at the same slot whether or not anyone was
asked in between. The slot schedule is therefore the same in every deal a seat cannot
tell apart. (A prompt beyond its step's budget would still be placed, one slot later;
`tests/properties/test_differential_leaks.py` would then see the two worlds differ.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mafia_arena.engine import Game, Request
from mafia_arena.engine.night import DAWN, runs_tonight
from mafia_arena.rules import Variant
from mafia_arena.rules.composition import deck

CHANGES_ROLE = ("succeeds", "inherits", "converts_to", "activates_when_accused")
"""Traits that can give a seat a role it was not dealt, so a step may gain members."""


@dataclass(frozen=True)
class StepSlots:
    """One step's slot budget: chat, picks and describe parts, in that order."""

    name: str
    chat: int
    picks: int
    describe: int

    @property
    def size(self) -> int:
        return self.chat + self.picks + self.describe


def step_budgets(variant: Variant, players: int) -> dict[str, StepSlots]:
    """The most prompts each night step can need, from the variant and the deck."""
    cards = deck(variant, players)
    changers = sum(1 for c in cards if any(variant.roles[c].traits.get(t) for t in CHANGES_ROLE))
    longest = max((s.target.count for s in variant.night if s.action != "copy"), default=1)
    budgets = {}
    for step in variant.night:
        members = sum(1 for c in cards if c in step.actors) + changers
        if step.action == "copy":
            budgets[step.name] = StepSlots(step.name, 0, members * (1 + longest), 0)
        elif step.group:
            describe = 1 if step.params.describe else 0
            budgets[step.name] = StepSlots(
                step.name, step.chat_rounds * members, max(1, step.rounds), describe
            )
        else:
            budgets[step.name] = StepSlots(step.name, 0, step.target.count, 0)
    return budgets


@dataclass
class NightPlan:
    """One night's slots and where the env stands in them."""

    number: int
    steps: list[str]
    base: dict[str, int]
    budgets: dict[str, StepSlots]
    living: list[int]
    """The seats alive when the night began: dawn's deaths show only after its slots."""
    slot: int = 0
    prompt_slot: int | None = None
    used: dict[tuple[str, str], int] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return sum(self.budgets[s].size for s in self.steps)

    @property
    def done(self) -> bool:
        return self.slot >= max(self.size, (self.prompt_slot or 0) + 1)

    def step_at(self, slot: int) -> str:
        for name in self.steps:
            if slot < self.base[name] + self.budgets[name].size:
                return name
        return self.steps[-1]

    def part_at(self, slot: int) -> str:
        """Which part of its step's budget `slot` is: ``chat``, ``picks`` or
        ``describe`` (a public fact of the plan, whoever is asked in it)."""
        name = self.step_at(slot)
        budget = self.budgets[name]
        offset = slot - self.base[name]
        if offset < budget.chat:
            return "chat"
        return "picks" if offset < budget.chat + budget.picks else "describe"

    def place(self, step: str, request: Request) -> int:
        """The slot of the engine's next prompt (one of `step`'s), never before now."""
        budget = self.budgets[step]
        if request.kind == "night_chat":
            part, offset = "chat", 0
        elif request.kind == "describe":
            part, offset = "describe", budget.chat + budget.picks
        else:
            part, offset = "picks", budget.chat
        count = self.used.get((step, part), 0)
        self.used[(step, part)] = count + 1
        return max(self.slot, self.base[step] + offset + count)


class NightClock:
    """Plans each night and places the engine's prompts into slots (see the module)."""

    def __init__(self, variant: Variant, players: int, *, enabled: bool = True) -> None:
        self.variant = variant
        self.enabled = enabled
        self.budgets = step_budgets(variant, players)
        self.plan: NightPlan | None = None
        self.last_night = 0
        self._cut: tuple[NightPlan, int, int, int | None] | None = None

    def reset(self) -> None:
        self.plan = None
        self.last_night = 0
        self._cut = None

    def sync(self, game: Game, new_prompt: bool) -> None:
        """Follow the game after a completed prompt (or at the start): open a night
        whose first step the engine has entered, place a new night prompt."""
        if not self.enabled:
            return
        if self.plan is None:
            marks = [m for m in game.step_marks if m[0] > self.last_night]
            if not marks:
                return
            number = marks[0][0]
            steps = [s.name for s in self.variant.night if runs_tonight(s, number)]
            base, at = {}, 0
            for name in steps:
                base[name] = at
                at += self.budgets[name].size
            living = [s.seat for s in game.state.seats if s.alive]
            self.plan = NightPlan(number, steps, base, self.budgets, living)
            self.last_night = number
            new_prompt = True
        plan = self.plan
        if new_prompt:
            plan.prompt_slot = None
            step = self._engine_step(game)
            pending = game.pending()
            if step is not None and pending:
                request = next(iter(pending.values()))
                plan.prompt_slot = plan.place(step, request)

    def _engine_step(self, game: Game) -> str | None:
        """The night step the engine is in now, or None once it is past tonight's."""
        assert self.plan is not None
        tonight = [m for m in game.step_marks if m[0] == self.plan.number]
        if not tonight or tonight[-1][2] == DAWN:
            return None
        if game.state.phase != "night" or game.state.day != self.plan.number:
            return None
        return tonight[-1][2]

    def in_slot(self) -> bool:
        """Whether the engine's current prompt is to be answered in the current slot."""
        plan = self.plan
        return plan is None or plan.prompt_slot == plan.slot

    def cut(self, game: Game) -> int | None:
        """How many events of the log a seat may see now (None: all of them).

        Asked for every seat's view at every step; the answer depends only on the plan,
        its slot and the step marks (which only grow), so it is kept until one moves."""
        plan = self.plan
        if plan is None:
            return None
        known = self._cut
        marks = len(game.step_marks)
        if known is not None and known[0] is plan and known[1] == plan.slot and known[2] == marks:
            return known[3]
        upto = self._cut_now(game, plan)
        self._cut = (plan, plan.slot, marks, upto)
        return upto

    def _cut_now(self, game: Game, plan: NightPlan) -> int | None:
        current = plan.step_at(plan.slot)
        tonight = [m for m in game.step_marks if m[0] == plan.number]
        names = [m[2] for m in tonight]
        if current not in names:
            return None  # only past a step's budget (see the module): show everything
        later = names.index(current) + 1
        return tonight[later][1] if later < len(tonight) else None

    def tick(self, game: Game) -> None:
        """The current slot is over: move to the next, closing the night at its end."""
        plan = self.plan
        if plan is None:
            return
        plan.slot += 1
        if plan.done:
            self.plan = None
            self.sync(game, new_prompt=True)
