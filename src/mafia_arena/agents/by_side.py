"""An agent that plays as another agent chosen by the side of the role it is dealt.

``town=heuristic,mafia=random`` seats one `BySideAgent` per seat; once the seat's role
is known (the first view), it delegates every decision to the agent for that side. This
is how experiments field "heuristic town against random mafia" although roles are dealt
by the game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from mafia_arena.agents.base import Agent, AgentStats
from mafia_arena.engine.choices import Decision
from mafia_arena.views.view import View


class BySideAgent:
    kind = "scripted"

    def __init__(
        self, factories: Mapping[str, Callable[[], Agent]], side_of: Callable[[str], str]
    ) -> None:
        self._factories = dict(factories)
        self._side_of = side_of
        self._delegate: Agent | None = None
        self._seat = 0
        self._seed = 0
        self.name = ",".join(f"{k}={v().name}" for k, v in self._factories.items())
        self.stats = AgentStats()

    def reset(self, seat: int, seed: int) -> None:
        self._seat, self._seed, self._delegate = seat, seed, None
        self._variant: object | None = None
        self.stats = AgentStats()

    # The runner's optional hooks, forwarded to the delegate (LLM players use them).
    def set_variant(self, variant: object) -> None:
        self._variant = variant

    def take_fallback(self) -> str | None:
        take = getattr(self._delegate, "take_fallback", None)
        return take() if callable(take) else None

    @property
    def beliefs(self) -> list[dict]:
        return list(getattr(self._delegate, "beliefs", None) or [])

    def delegate(self, view: View) -> Agent:
        if self._delegate is None:
            faction = view.knowledge.faction or ""
            side = self._side_of(faction)
            factory = self._factories.get(side) or self._factories.get("*")
            if factory is None:
                raise ValueError(f"no agent given for side {side!r}")
            self._delegate = factory()
            self._delegate.reset(self._seat, self._seed)
            set_variant = getattr(self._delegate, "set_variant", None)
            if callable(set_variant) and getattr(self, "_variant", None) is not None:
                set_variant(self._variant)
            self.stats = self._delegate.stats
            self.kind = self._delegate.kind
        return self._delegate

    def decide(self, view: View) -> Decision:
        return self.delegate(view).decide(view)  # type: ignore[attr-defined]

    async def act(self, view: View) -> Decision:
        return await self.delegate(view).act(view)
