"""Golden playthroughs: seeded games dumped step by step into committed text files.

Each step records the phase, every pending request with its labelled choices, and the
new lines of every seat's text view since the previous step. The test regenerates the
dump and diffs it with the committed file, so any change in rules or rendering shows up
as a readable diff. Regenerate with ``UPDATE_GOLDEN=1 pytest tests/golden``.
"""

from __future__ import annotations

import random

from mafia_arena.engine import Game
from mafia_arena.rules import load_variant
from mafia_arena.views import SeatTracker
from mafia_arena.views.text import render_event

CASES = {
    "simple": [(7, 1), (9, 2)],
    "standard": [(7, 1), (8, 2)],
    "classic": [(7, 1), (10, 2)],
    "club": [(8, 1), (12, 2)],
}


def dump(variant_name: str, players: int, seed: int) -> str:
    game = Game(load_variant(variant_name), players, seed)
    trackers = [SeatTracker(s) for s in range(players)]
    rng = random.Random(f"golden:{seed}")
    out = [f"# {variant_name}, {players} players, seed {seed}, random decisions"]
    step = 0
    while True:
        out.append(f"== step {step}: {game.state.phase} {game.state.day}")
        for tracker in trackers:
            before = len(tracker.knowledge.events)
            knowledge = tracker.update(game)
            lines = [render_event(e, tracker.seat) for e in knowledge.events[before:]]
            for line in filter(None, lines):
                out.append(f"  P{tracker.seat + 1}| {line}")
        if game.over:
            break
        for seat, request in sorted(game.pending().items()):
            labels = "; ".join(
                f"{c.key}={label}" for c, label in zip(request.choices, request.labels, strict=True)
            )
            out.append(f"  ask P{seat + 1} [{request.kind}] {request.prompt} :: {labels}")
        for seat, request in sorted(game.pending().items()):
            game.submit(seat, rng.choice(request.choices))
        step += 1
    return "\n".join(out) + "\n"
