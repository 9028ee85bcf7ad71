"""Every scripted player of every variant attaches to its speeches only acts its turn
offers (or none): over seeded games with every scripted preset at the table, each
speech is checked against its request before it is submitted (strictly: any other
illegal decision fails the test where it is made)."""

from __future__ import annotations

import pytest

from mafia_arena.agents import make_agent, scripted_agent_names
from mafia_arena.engine import Game, Request, Speech
from mafia_arena.engine.choices import Decision
from mafia_arena.rules import available_variants, load_variant
from mafia_arena.views import SeatTracker

SEEDS = range(6)
FORUM = "forum"
"""The forum game's request: its speeches carry written forms, which the forum's own
check admits (`engine.forum.window.refusal`), not offered choices."""


def _players(variant: str, seed: int) -> int:
    """A table size that varies with the seed, from the variant's least."""
    spec = load_variant(variant)
    low = max(spec.min_players, 7)
    return min(low + seed % 3, spec.max_players or low + 2)


def _unoffered(request: Request, decision: Decision) -> str | None:
    """The key of the act `decision` attaches that `request` does not offer, or None."""
    if not isinstance(decision, Speech) or decision.act is None or request.kind == FORUM:
        return None
    return None if request.offers(decision.act) else decision.act.key


@pytest.mark.parametrize("variant", sorted(available_variants()))
def test_scripted_players_attach_only_offered_acts(variant: str) -> None:
    names = scripted_agent_names()
    found: list[str] = []
    for seed in SEEDS:
        players = _players(variant, seed)
        agents = [make_agent(names[(seat + seed) % len(names)]) for seat in range(players)]
        for seat, agent in enumerate(agents):
            agent.reset(seat, seed * 1000 + seat)
        game = Game(load_variant(variant), players, seed)
        trackers = [SeatTracker(seat) for seat in range(players)]
        while not game.over:
            for seat, request in sorted(game.pending().items()):
                decision = agents[seat].decide(trackers[seat].view(game))
                act = _unoffered(request, decision)
                if act is None:
                    game.submit(seat, decision)  # strict: any other illegal decision raises
                else:
                    found.append(f"seed {seed}, {agents[seat].name}, {request.kind}: {act}")
                    game.submit_default(seat, "illegal")
    assert not found, "\n".join(found)
