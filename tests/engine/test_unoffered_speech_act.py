"""A speech whose attached act the turn does not offer is an illegal decision on every
variant that has speaking turns: refused (nothing logged, nothing changed) when
submitted, and the runner records the request's default as an ``illegal`` fallback in
its place, never the speech with its act."""

from __future__ import annotations

import random

import pytest
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.agents import RandomAgent
from mafia_arena.engine import Choice, Game, IllegalDecision, Request, Speech
from mafia_arena.engine.catalogue import DecisionRecord
from mafia_arena.engine.choices import Decision
from mafia_arena.rules import available_variants, load_variant
from mafia_arena.runner import play_match_sync
from mafia_arena.views import View

KILL = Choice("kill", 99)
"""An act no speaking turn offers (a kill, of a seat that is not in the game)."""


def _players(variant: str) -> int:
    return max(load_variant(variant).min_players, 7)


def _at_a_speaking_turn(variant: str, seed: int = 3) -> tuple[Game, int, Request] | None:
    """A seeded game with random choices, stopped at its first speaking turn (None: the
    game had none)."""
    game = Game(load_variant(variant), _players(variant), seed)
    rng = random.Random(f"speaking-turn:{seed}")
    while not game.over:
        for seat, request in sorted(game.pending().items()):
            if request.free_text:
                return game, seat, request
        for seat, request in sorted(game.pending().items()):
            game.submit(seat, rng.choice(request.choices))
    return None


SPEAKING = [v for v in sorted(available_variants()) if _at_a_speaking_turn(v) is not None]
"""The variants whose games have speaking turns (simple's days are a vote alone)."""


def _speaking_turn(variant: str) -> tuple[Game, int, Request]:
    found = _at_a_speaking_turn(variant)
    assert found is not None
    return found


def test_every_bundled_variant_but_simple_has_speaking_turns() -> None:
    assert set(available_variants()) - set(SPEAKING) == {"simple"}


@pytest.mark.parametrize("variant", SPEAKING)
def test_an_unoffered_attached_act_is_refused_and_changes_nothing(variant: str) -> None:
    game, seat, request = _speaking_turn(variant)
    assert not request.offers(KILL)
    events, decisions = len(game.events), len(game.decisions)
    with pytest.raises(IllegalDecision):
        game.submit(seat, Speech("hello", KILL))
    assert (len(game.events), len(game.decisions)) == (events, decisions)
    assert game.request(seat) == request


@pytest.mark.parametrize("variant", [v for v in SPEAKING if v != "dictator"])
def test_the_refusal_names_the_act_and_an_offered_act_is_logged(variant: str) -> None:
    game, seat, request = _speaking_turn(variant)
    with pytest.raises(IllegalDecision, match="attached act 'kill:99' is not offered"):
        game.submit(seat, Speech("hello", KILL))
    offered = request.choices[-1]
    game.submit(seat, Speech("hello", Choice.parse(offered.key)))  # equal, not the same
    assert game.decisions[-1] == {
        "seat": seat,
        "kind": request.kind,
        "text": "hello",
        "act": offered.key,
    }


class _AttachesAKill(RandomAgent):
    """Random choices, but every speaking turn a speech with an act it does not offer."""

    def decide(self, view: View) -> Decision:
        if view.request is not None and view.request.free_text:
            self.stats.decisions += 1
            return Speech("hello", KILL)
        return super().decide(view)


@pytest.mark.parametrize("variant", SPEAKING)
def test_the_runner_records_an_illegal_fallback_instead(variant: str) -> None:
    players = _players(variant)
    agents = [_AttachesAKill() for _ in range(players)]
    result = play_match_sync(load_variant(variant), agents, 3, host_key=FIXED_HOST_KEY)
    records = [e.fact for e in result.log.events if isinstance(e.fact, DecisionRecord)]
    assert all(r.act != KILL.key for r in records)
    fallbacks = [r for r in records if r.fallback == "illegal"]
    assert fallbacks, "no speaking turn was played"
    assert sum(a.stats.fallbacks for a in agents) == len(fallbacks)
