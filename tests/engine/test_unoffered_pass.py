"""A pass the request does not offer (a vote where abstaining is forbidden) is taken only
as a recorded fallback, never as a seat's own choice."""

import pytest
from tests.scenario import run

from mafia_arena.engine import PASS, Game, IllegalDecision
from mafia_arena.rules import load_variant


def _at_the_vote() -> Game:
    game = Game(load_variant("standard"), 7, 3)
    run(game, {}, until=lambda g: any(r.kind == "vote" for r in g.pending().values()))
    return game


def test_an_unoffered_pass_sent_as_a_choice_is_refused_and_changes_nothing() -> None:
    game = _at_the_vote()
    seat, request = min(game.pending().items())
    assert request.kind == "vote" and not request.offers(PASS) and request.default == "pass"
    events, decisions = len(game.events), len(game.decisions)
    with pytest.raises(IllegalDecision, match="not a legal choice"):
        game.submit(seat, PASS)
    assert (len(game.events), len(game.decisions)) == (events, decisions)
    assert seat in game.pending()


def test_an_unoffered_pass_is_the_recorded_default_of_a_seat_that_did_not_answer() -> None:
    game = _at_the_vote()
    seat = min(game.pending())
    game.submit(seat, PASS, fallback="timeout")
    assert game.decisions[-1] == {
        "seat": seat,
        "kind": "vote",
        "choice": "pass",
        "fallback": "timeout",
    }
