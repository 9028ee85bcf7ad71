"""`random`: uniform among the legal choices, from its own seeded generator."""

from __future__ import annotations

import random

from mafia_arena.agents.base import SyncAgent
from mafia_arena.engine.choices import Decision
from mafia_arena.views.view import View


class RandomAgent(SyncAgent):
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        self.rng = random.Random(seed)

    def reset(self, seat: int, seed: int) -> None:
        super().reset(seat, seed)
        self.rng = random.Random(f"random:{seed}:{seat}")

    def decide(self, view: View) -> Decision:
        assert view.request is not None
        self.stats.decisions += 1
        return self.rng.choice(view.request.choices)
