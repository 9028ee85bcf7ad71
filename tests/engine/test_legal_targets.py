"""`legal_targets` (the fast filter) agrees with `refusal` (the reasons) everywhere."""

import random

import pytest

from mafia_arena.engine import Game
from mafia_arena.engine.night import actors_of, legal_targets, refusal
from mafia_arena.rules import load_variant


@pytest.mark.parametrize(
    ("variant", "players"), [("standard", 10), ("classic", 10), ("club", 12), ("club", 26)]
)
def test_legal_targets_match_refusal(variant: str, players: int) -> None:
    spec = load_variant(variant)
    for seed in range(4):
        game, rng = Game(spec, players, seed), random.Random(seed)
        while not game.over:
            living = game.state.living()
            for step in spec.night:
                actors = actors_of(game, step)
                for actor in actors or living[:1]:
                    picked = rng.sample(living, rng.randrange(min(3, len(living)) + 1))
                    expected = [
                        t for t in living if refusal(game, step, actor, actors, t, picked) is None
                    ]
                    assert legal_targets(game, step, actor, actors, picked) == expected
            for seat, request in sorted(game.pending().items()):
                game.submit(seat, rng.choice(request.choices))
