"""A variant whose roles are new combinations of primitives and traits plays without new
Python: a night-immune bodyguard, a one-shot vigilante, an avenger who retaliates."""

from pathlib import Path

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.scenario import run

from mafia_arena.agents import RandomAgent
from mafia_arena.engine import Choice, Game, IllegalDecision
from mafia_arena.engine.win import is_killer
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match_sync

VARIANT = load_variant(Path(__file__).with_name("bodyguard.toml"))
DECK = ["boss", "mafioso", "bodyguard", "vigilante", "avenger", "villager", "villager"]


def game() -> Game:
    return Game(VARIANT, len(DECK), 0, deal=DECK)


@pytest.mark.parametrize("n", [6, 8, 12])
def test_recombined_roles_play_full_random_games_that_replay(n):
    for seed in range(10):
        result = play_match_sync(
            VARIANT, [RandomAgent() for _ in range(n)], seed, host_key=FIXED_HOST_KEY
        )
        assert result.log.result is not None
        again = Game(VARIANT, n, seed)  # replay by hand: the variant is not in envs/
        for record in result.log.decisions:
            again.submit(
                record["seat"],
                Choice.parse(record["choice"]) if "choice" in record else record["text"],
            )
        assert again.events == result.log.events


def test_bodyguard_guards_others_and_survives_the_mafia_himself():
    g = game()
    request = g.request(2)
    assert request is not None
    assert Choice("target", 2) not in request.choices  # never himself
    with pytest.raises(IllegalDecision):
        g.submit(2, Choice("target", 2))
    run(
        g,
        {("night:guard", 1): 5, ("night:mafia_kill", 1): 2},
        until=lambda g: g.state.phase == "day",
    )
    assert g.state.alive(2)


def test_vigilante_has_one_shot_and_is_a_killer():
    g = game()
    assert is_killer(g, 3)
    run(
        g,
        {("night:guard", 1): 5, ("night:mafia_kill", 1): 5, ("night:vigilante_shot", 1): 6},
        until=lambda g: g.state.phase == "day",
    )
    assert not g.state.alive(6)
    run(g, {("nominate", 1): 5, ("final_vote", 1): 5}, until=lambda g: g.state.phase == "night")
    assert g.request(3) is None  # the shot is spent: no request on night 2


def test_avenger_takes_the_clan_leader_along():
    g = game()
    run(
        g,
        {("night:guard", 1): 5, ("night:mafia_kill", 1): 4},
        until=lambda g: g.state.phase == "day",
    )
    assert not g.state.alive(4) and not g.state.alive(0) and g.state.alive(1)
