"""Golden playthroughs: seeded games dumped step by step into committed text files.

Each step records the phase, every pending request with its labelled choices, and the
new lines of every seat's text view since the previous step (its transcript as the
seat's tracker renders it, the variant's readable names included). A second file per game
records every seat's numeric observation at every step (a hash of the float32 vector
and its number of non-zero values), so a change in the encoding shows up too. The test
regenerates both dumps and diffs them with the committed files, so any change in rules,
rendering or encoding shows up as a readable diff. Regenerate with
``UPDATE_GOLDEN=1 pytest tests/golden``.
"""

from __future__ import annotations

import hashlib
import random

from mafia_arena.engine import Game
from mafia_arena.rules import load_variant
from mafia_arena.views import SeatTracker
from mafia_arena.views.encode import ObservationEncoder

CASES = {
    "simple": [(7, 1), (9, 2)],
    "standard": [(7, 1), (8, 2)],
    "classic": [(7, 1), (10, 2)],
    "club": [(8, 1), (12, 2)],
    "dictator": [(12, 1), (13, 2)],
    "palermo": [(12, 1), (16, 2)],
}


def dumps(variant_name: str, players: int, seed: int) -> tuple[str, str]:
    """The text dump and the observation dump of one seeded game with random decisions."""
    variant = load_variant(variant_name)
    game = Game(variant, players, seed)
    trackers = [SeatTracker(s) for s in range(players)]
    encoder = ObservationEncoder(variant, players)
    rng = random.Random(f"golden:{seed}")
    head = f"# {variant_name}, {players} players, seed {seed}, random decisions"
    out = [head]
    obs = [f"{head}: observation hash and non-zero count per seat"]
    step = 0
    while True:
        out.append(f"== step {step}: {game.state.phase} {game.state.day}")
        obs.append(f"== step {step}")
        for tracker in trackers:
            before = len(tracker.knowledge.lines())
            view = tracker.view(game)
            for line in view.knowledge.lines()[before:]:  # the seat's text view, as read
                out.append(f"  P{tracker.seat + 1}| {line}")
            vector = encoder.encode(view)
            digest = hashlib.sha256(vector.tobytes()).hexdigest()[:16]
            obs.append(f"  P{tracker.seat + 1} {digest} {int((vector != 0).sum())}")
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
    return "\n".join(out) + "\n", "\n".join(obs) + "\n"


def dump(variant_name: str, players: int, seed: int) -> str:
    """The text dump alone."""
    return dumps(variant_name, players, seed)[0]
