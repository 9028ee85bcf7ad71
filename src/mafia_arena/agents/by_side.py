"""An agent that plays as another agent chosen by the side of the role it is dealt.

``town=heuristic,mafia=random`` seats one `BySideAgent` per seat; once the seat's role
is known (the first view), it delegates every decision to the agent for that side. This
is how experiments field "heuristic town against random mafia" although roles are dealt
by the game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mafia_arena.agents.base import Agent, AgentStats
from mafia_arena.engine.choices import Decision
from mafia_arena.rules import Variant
from mafia_arena.views.shown_names import Presentation
from mafia_arena.views.view import View


class BySideAgent:
    """One seat whose player is chosen by the side of its dealt role (see module doc).

    It is `synchronous` only when every side's agent is, so a table of scripted sides
    plays without an event loop and a table with an LLM side is awaited.
    """

    kind = "scripted"

    def __init__(
        self, factories: Mapping[str, Callable[[], Agent]], side_of: Callable[[str], str]
    ) -> None:
        self._factories = dict(factories)
        self._side_of = side_of
        self._delegate: Agent | None = None
        self._variant: Variant | None = None
        self._presentation: Presentation | None = None
        self._seat = 0
        self._seed = 0
        samples = {side: factory() for side, factory in self._factories.items()}
        self.name = ",".join(f"{side}={agent.name}" for side, agent in samples.items())
        self._synchronous = all(agent.synchronous for agent in samples.values())
        self.stats = AgentStats()

    @property
    def synchronous(self) -> bool:
        return self._synchronous

    @property
    def beliefs(self) -> Sequence[Mapping[str, Any]]:
        return () if self._delegate is None else self._delegate.beliefs

    @property
    def traces(self) -> Sequence[Mapping[str, Any]]:
        return () if self._delegate is None else self._delegate.traces

    def reset(self, seat: int, seed: int) -> None:
        self._seat, self._seed, self._delegate = seat, seed, None
        self._variant = None
        self._presentation = None
        self.stats = AgentStats()

    def set_variant(self, variant: Variant) -> None:
        self._variant = variant

    def set_presentation(self, presentation: Presentation) -> None:
        """Kept for the side's agent, which exists only from the first view."""
        self._presentation = presentation

    def take_fallback(self) -> str | None:
        return None if self._delegate is None else self._delegate.take_fallback()

    def card(self) -> Mapping[str, Any] | None:
        """The model card of the side's agent playing the seat (None before its first
        view, or when that agent has none)."""
        return None if self._delegate is None else self._delegate.card()

    def delegate(self, view: View) -> Agent:
        """The agent for this seat's side, created on the first view of the game."""
        if self._delegate is None:
            side = self._side_of(_dealt_faction(view))
            factory = self._factories.get(side) or self._factories.get("*")
            if factory is None:
                raise ValueError(f"no agent given for side {side!r}")
            self._delegate = factory()
            self._delegate.reset(self._seat, self._seed)
            if self._variant is not None:
                self._delegate.set_variant(self._variant)
            if self._presentation is not None:
                self._delegate.set_presentation(self._presentation)
            self.stats = self._delegate.stats
            self.kind = self._delegate.kind
        return self._delegate

    def decide(self, view: View) -> Decision:
        return self.delegate(view).decide(view)

    async def act(self, view: View) -> Decision:
        return await self.delegate(view).act(view)


def _dealt_faction(view: View) -> str:
    """The faction of the seat's dealt role: the one it is told, or for a role dealt
    without its party (the dictator's question mark, OP-D14) the role's faction in the
    variant, so the seat is fielded as the side it was dealt to, as before it knew."""
    knowledge = view.knowledge
    if knowledge.faction is not None:
        return knowledge.faction
    spec = view.rules.roles.get(knowledge.role or "")
    return spec.faction if spec is not None else ""
