"""`Context`: everything one decision may use, with the helpers every strategy shares.

Built fresh per decision from the `View` (knowledge + request), the agent's `Memory`,
the public `RuleBook`, the seat's seeded generator, the agent's notes (what it has
decided to pretend, for a mafia bluff) and its `Style`. Assessments are computed lazily, once.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from mafia_arena.agents.heuristic.memory import Memory
from mafia_arena.agents.heuristic.rulebook import RuleBook
from mafia_arena.agents.heuristic.style import BALANCED, Style
from mafia_arena.agents.heuristic.suspicion import Assessment, assess, grounded, momentum
from mafia_arena.engine.choices import PASS, Choice, Request
from mafia_arena.views.knowledge import Knowledge
from mafia_arena.views.view import View


@dataclass
class Context:
    """One decision's inputs. `notes` persist across the agent's decisions in a game."""

    view: View
    memory: Memory
    book: RuleBook
    rng: random.Random
    seed: int
    """The seat's own seed (from `reset`); no other seat has it."""
    notes: dict[str, Any] = field(default_factory=dict)
    style: Style = BALANCED

    # -- who am I
    @property
    def k(self) -> Knowledge:
        return self.view.knowledge

    @property
    def request(self) -> Request:
        assert self.view.request is not None
        return self.view.request

    @property
    def me(self) -> int:
        return self.view.seat

    @property
    def day(self) -> int:
        return self.k.day

    @cached_property
    def side(self) -> str:
        return self.book.side_of_faction(self.k.faction)

    @property
    def town(self) -> bool:
        return self.side == "town"

    @cached_property
    def team(self) -> set[int]:
        """Known allies on my side (fellow mafiosi; a fellow detective), without me."""
        return {
            s
            for s, r in self.k.allies.items()
            if self.book.side_of_role(r) == self.side and s != self.me
        }

    def living(self, *, others: bool = True) -> list[int]:
        return [s for s in self.k.living() if not (others and s == self.me)]

    # -- what do I think
    @cached_property
    def mine(self) -> Assessment:
        """My reading with my secrets (a town player's true belief)."""
        return assess(self.k, self.memory, self.book, private=True)

    @cached_property
    def public(self) -> Assessment:
        """The reading a secretless town player would have (what the table believes)."""
        return assess(self.k, self.memory, self.book, private=False)

    @cached_property
    def grounded(self) -> bool:
        """Is there any public evidence yet (see `suspicion.grounded`)?"""
        return grounded(self.memory, self.k)

    @cached_property
    def pressure(self) -> dict[int, float]:
        return momentum(self.memory, self.day, self.town_view(), evidence=self.grounded)

    def town_view(self) -> Assessment:
        """The assessment to act on as a town player would: mine if town, else public."""
        return self.mine if self.town else self.public

    # -- the request's options
    @cached_property
    def targets(self) -> list[int]:
        seen = dict.fromkeys(c.target for c in self.request.choices if c.target is not None)
        return list(seen)

    def choice_for(self, seat: int | None, verb: str | None = None) -> Choice:
        """The legal choice naming `seat` (preferring `verb`); pass/first if none."""
        options = [c for c in self.request.choices if c.target == seat and seat is not None]
        if verb is not None:
            options = [c for c in options if c.verb == verb] or options
        if options:
            return options[0]
        return self.fallback()

    def fallback(self) -> Choice:
        """A legal choice when nothing better is known: a target if any, else pass."""
        choices = self.request.choices
        with_target = [c for c in choices if c.target is not None]
        if with_target:
            return self.rng.choice(with_target)
        return PASS if PASS in choices or not choices else choices[0]

    # -- picking
    def public_order(self, salt: str) -> list[int]:
        """A permutation of all seats that every player can compute from public facts.

        Used to break ties the same way at every like-minded seat (a focal point), so
        that heuristic players who agree on the facts also agree on one name. Public
        facts only: every seat has its own seed (none knows the game's), so a seed
        would make each seat's order its own.
        """
        seats = list(range(self.k.players))
        living = ",".join(map(str, self.k.living()))
        random.Random(f"focal:{self.day}:{salt}:{living}").shuffle(seats)
        return seats

    def best(
        self, seats: Iterable[int], score: Callable[[int], float], salt: str, *, slack: float = 0.05
    ) -> int | None:
        """The highest-scoring seat; near-ties broken by the public focal order."""
        seats = list(seats)
        if not seats:
            return None
        top = max(score(s) for s in seats)
        tied = {s for s in seats if score(s) >= top - slack}
        return next(s for s in self.public_order(salt) if s in tied)

    def weighted(self, weights: dict[int, float], rng: random.Random | None = None) -> int | None:
        """A seat drawn in proportion to positive weights (from `rng` or my own)."""
        items = [(s, w) for s, w in sorted(weights.items()) if w > 0]
        if not items:
            return None
        draw = (rng or self.rng).random() * sum(w for _, w in items)
        for seat, weight in items:
            draw -= weight
            if draw <= 0:
                return seat
        return items[-1][0]

    def team_rng(self, purpose: str) -> random.Random:
        """A generator my whole team computes alike: from what they share (who they are,
        the day), since each seat's own seed is its own."""
        team = ",".join(map(str, sorted(self.team | {self.me})))
        return random.Random(f"team:{team}:{self.day}:{purpose}")

    def vote_score(self, seat: int) -> float:
        """What a town-minded player holds against `seat` when voting today."""
        return self.town_view().sus[seat] + 0.25 * self.pressure.get(seat, 0.0)
