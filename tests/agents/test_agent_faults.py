"""An agent that crashes or stalls never stops a game: its seat plays the default, the
log records a ``error``/``timeout`` fallback, and the driver's log says which agent
failed and why (the game log keeps only the reason's kind)."""

from __future__ import annotations

import asyncio
import logging

import pytest
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.agents.base import AgentBase
from mafia_arena.agents.random_agent import RandomAgent
from mafia_arena.engine.choices import Decision
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match
from mafia_arena.views.view import View


class Faulty(AgentBase):
    """Answers at random, except that every request of `kind` fails: `how` is ``raise``
    (a bug in the agent) or ``stall`` (it never answers)."""

    def __init__(self, how: str, kind: str = "vote") -> None:
        super().__init__()
        self.name, self.how, self.kind = f"faulty-{how}", how, kind
        self.inner = RandomAgent()

    def reset(self, seat: int, seed: int) -> None:
        super().reset(seat, seed)
        self.inner.reset(seat, seed)

    async def act(self, view: View) -> Decision:
        if view.request is not None and view.request.kind == self.kind:
            if self.how == "raise":
                raise KeyError("a missing table entry")
            await asyncio.sleep(60)
        return self.inner.decide(view)


@pytest.mark.parametrize(("how", "reason"), [("raise", "error"), ("stall", "timeout")])
def test_a_failing_agent_plays_the_default_and_is_named(
    how: str, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    agents = [Faulty(how), *(RandomAgent() for _ in range(6))]
    with caplog.at_level(logging.WARNING, logger="mafia_arena.runner.match"):
        result = asyncio.run(
            play_match(
                load_variant("standard"), agents, 3, decision_timeout=0.05, host_key=FIXED_HOST_KEY
            )
        )
    assert result.log.result is not None  # the game reached its end
    seat0 = [d for d in result.log.decisions if d["seat"] == 0 and d["kind"] == "vote"]
    assert seat0 and all(d["fallback"] == reason for d in seat0)
    others = [d for d in result.log.decisions if d["seat"] != 0]
    assert not any(d.get("fallback") for d in others)
    warned = [r.getMessage() for r in caplog.records]
    assert len(warned) == len(seat0)
    assert all(f"agent faulty-{how} (seat 0)" in m for m in warned)
    if how == "raise":
        assert "KeyError: 'a missing table entry'" in warned[0]
    else:
        assert "within 0.05s" in warned[0]
    assert result.log.meta["fallbacks"]["by_seat"]["0"]["infrastructure"] == len(seat0)
