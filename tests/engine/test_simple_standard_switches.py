"""One test per switch of `simple` and `standard`."""

from collections import Counter

import pytest
from tests.scenario import dealt, deaths, events, run

from mafia_arena.engine import Choice
from mafia_arena.rules import load_variant
from mafia_arena.rules.composition import deck_counts

M, V = "mafioso", "villager"


def test_simple_mafia_count_is_a_parameter():
    assert deck_counts(load_variant("simple", {"mafia": 3}), 10) == {V: 7, M: 3}
    assert deck_counts(load_variant("simple"), 3) == {V: 2, M: 1}
    assert deck_counts(load_variant("simple"), 40) == {V: 30, M: 10}


def test_simple_first_phase_day_opens_with_a_vote():
    game = dealt("simple", [M, V, V, V, V], first_phase="day")
    kinds = {r.kind for r in game.pending().values()}
    assert kinds == {"vote"}
    assert events(game, "phase")[0] == {"phase": "day", "number": 1}


def test_simple_first_phase_day_opens_every_later_day_once():
    """A game that opens by day holds each morning right after its night; the day that
    follows must not be announced a second time (one `phase` event per day)."""
    game = dealt("simple", [M, V, V, V, V, M, V, V], first_phase="day")
    run(
        game,
        {("vote", 1): 1, ("night:mafia_kill", 2): 2, ("vote", 2): 3},
        until=lambda g: g.state.day == 3 and g.state.phase == "day",
    )
    phases = [(p["phase"], p["number"]) for p in events(game, "phase")]
    assert phases == [("day", 1), ("night", 2), ("day", 2), ("night", 3), ("day", 3)]


def test_simple_first_phase_night_opens_with_the_mafia_kill():
    game = dealt("simple", [M, V, V, V, V])
    assert {r.kind for r in game.pending().values()} == {"night:mafia_kill"}


def test_simple_parity_win_ends_when_mafia_equal_the_rest():
    game = dealt("simple", [M, V, V, V])
    run(game, {("night:mafia_kill", 1): 1, ("vote", 1): 2})
    assert game.state.winner == "mafia" and game.state.living() == [0, 3]


def test_simple_sole_survivor_rule_plays_on_at_parity():
    game = dealt("simple", [M, V, V, V], mafia_win="sole_survivors")
    run(game, {("night:mafia_kill", 1): 1, ("vote", 1): 2}, until=lambda g: g.state.day == 2)
    assert not game.over and game.state.living() == [0, 3]
    run(game, {("night:mafia_kill", 2): 3})
    assert game.state.winner == "mafia" and game.state.living() == [0]


@pytest.mark.parametrize("reveal", [True, False])
def test_simple_reveal_on_death_switch(reveal):
    game = dealt("simple", [M, V, V, V, V], reveal_on_death=reveal)
    run(game, {("night:mafia_kill", 1): 2}, until=lambda g: g.state.phase == "day")
    assert ("role" in events(game, "death")[0]) is reveal


def test_simple_night_kill_is_plurality_with_random_tie_break():
    victims: Counter[int] = Counter()
    for seed in range(30):
        game = dealt("simple", [M, M, V, V, V, V, V], seed=seed)
        game.submit(0, Choice("target", 3))
        game.submit(1, Choice("target", 4))
        victims[deaths(game)[0][0]] += 1
        assert any(e.kind == "rng" and "tie" in e.fact.to_payload()["purpose"] for e in game.events)
    assert set(victims) == {3, 4}


def test_simple_day_vote_ties_are_broken_uniformly_at_random():
    seen = set()
    for seed in range(30):
        game = dealt("simple", [M, V, V, V], seed=seed, first_phase="day")
        for seat, target in {0: 1, 1: 0, 2: 1, 3: 0}.items():
            game.submit(seat, Choice("target", target))
        seen.add(deaths(game)[0][0])
    assert seen == {0, 1}


def test_standard_roles_and_reveal_switch():
    variant = load_variant("standard", {"reveal_on_death": False})
    assert deck_counts(variant, 7) == {V: 3, "doctor": 1, "detective": 1, M: 2}
    game = dealt("standard", [M, M, "doctor", "detective", V, V, V], reveal_on_death=False)
    run(game, {("night:mafia_kill", 1): 4}, until=lambda g: g.state.phase == "day")
    assert events(game, "death")[0] == {"seat": 4, "cause": "night"}


@pytest.mark.parametrize("rounds", [0, 1, 3])
def test_standard_discussion_rounds_switch(rounds):
    game = dealt("standard", [M, M, "doctor", "detective", V, V, V], discussion_rounds=rounds)
    run(
        game,
        {("night:mafia_kill", 1): 4},
        until=lambda g: any(r.kind == "vote" for r in g.pending().values()),
    )
    assert len(events(game, "speech")) == rounds * 6


def test_standard_doctor_saves_the_mafia_target():
    game = dealt("standard", [M, M, "doctor", "detective", V, V, V])
    run(
        game,
        {("night:mafia_kill", 1): 4, ("night:doctor_protect", 1): 4},
        until=lambda g: g.state.phase == "day",
    )
    assert deaths(game) == [] and events(game, "no_death")


@pytest.mark.parametrize("repeat", [True, False])
def test_standard_doctor_repeat_switch(repeat):
    game = dealt(
        "standard",
        [M, M, "doctor", "detective", V, V, V, V],
        doctor_repeat=repeat,
        discussion_rounds=0,
    )
    run(
        game,
        {("night:mafia_kill", 1): 4, ("night:doctor_protect", 1): 5, ("vote", 1): 6},
        until=lambda g: g.state.day == 2 and g.state.phase == "night" and 2 in g.pending(),
    )
    request = game.request(2)
    assert request is not None
    assert (Choice("target", 5) in request.choices) is repeat
    assert Choice("target", 7) in request.choices


def test_standard_detective_learns_the_truth_privately():
    game = dealt("standard", [M, M, "doctor", "detective", V, V, V])
    run(
        game,
        {("night:mafia_kill", 1): 4, ("night:detective_check", 1): 1},
        until=lambda g: g.state.phase == "day",
    )
    result = next(e for e in game.events if e.kind == "night_result")
    assert result.fact.to_payload()["result"] == "mafia" and result.visibility.seats == {3}


def test_standard_vote_tie_switch_none_means_no_execution():
    game = dealt(
        "standard", [M, "doctor", "detective", V, V, V], vote_tie="none", discussion_rounds=0
    )
    run(
        game,
        {("night:mafia_kill", 1): 5},
        until=lambda g: any(r.kind == "vote" for r in g.pending().values()),
    )
    for seat, target in {0: 1, 1: 0, 2: 0, 3: 1, 4: 2}.items():
        game.submit(seat, Choice("target", target))
    assert events(game, "no_execution")[0]["reason"] == "tie"
