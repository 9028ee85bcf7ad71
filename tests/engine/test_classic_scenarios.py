"""classic.md section 10: one test per scenario, named after the rule it proves."""

from functools import partial

import pytest
from tests.scenario import Plan, answer, dealt, deaths, events, neutral, nominate, run

from mafia_arena.engine import PASS, Choice, IllegalDecision, Speech
from mafia_arena.rules import VariantError, load_variant
from mafia_arena.rules.composition import deck_counts

M, D, C = "mafioso", "detective", "citizen"


def counts(n, **overrides):
    return deck_counts(load_variant("classic", overrides), n)


def test_sc_c1_alternative_row_for_15_players_deals_5_2_8():
    assert counts(15, alternative_row=True) == {C: 8, D: 2, M: 5}
    assert counts(15) == {C: 10, D: 1, M: 4}
    game = dealt("classic", [M] * 5 + [D] * 2 + [C] * 8, alternative_row=True)
    setup = events(game, "setup")[0]
    assert setup["composition"] == {C: 8, D: 2, M: 5}
    allies = {
        e.visibility.seats: e.fact.to_payload()["allies"] for e in game.events if e.kind == "allies"
    }
    assert allies[frozenset({0})] == {"1": M, "2": M, "3": M, "4": M}
    assert allies[frozenset({5})] == {"6": D}
    assert not any(e.kind == "allies" and 7 in e.visibility.seats for e in game.events)


def test_sc_c2_player_count_bounds():
    assert counts(7) == {C: 4, D: 1, M: 2}
    assert counts(8) == {C: 5, D: 1, M: 2}
    assert counts(24) == {C: 15, D: 2, M: 7}
    notices = [
        [
            e.fact.to_payload()["text"]
            for e in dealt("classic", roles).events
            if e.kind == "narration"
        ]
        for roles in ([M, M, D, C, C, C, C], [M, M, D, C, C, C, C, C])
    ]
    assert notices == [["7 players is below the recommended minimum of 8 players."], []]
    with pytest.raises(VariantError, match="6 players is too few: at least 7"):
        counts(6)


def test_sc_c3_night_murder_announced_with_manner_and_card():
    game = dealt("classic", [M, M, M, D] + [C] * 8)

    def manner(g, seat, request):
        return None

    game = run(
        game,
        {("night:mafia_kill", 1): 4, ("night:detective_check", 1): 5},
        until=lambda g: (asked := g.request(0)) is not None and asked.kind == "describe",
    )
    game.submit(0, Speech("drowned in the harbour"))
    run(game, {}, until=lambda g: g.state.phase == "day")
    death = events(game, "death")[0]
    assert death == {"seat": 4, "cause": "night", "manner": "drowned in the harbour", "role": C}
    assert next(e for e in game.events if e.kind == "death").visibility.scope == "public"
    assert not game.state.alive(4)
    with pytest.raises(IllegalDecision, match="dead players cannot act"):
        game.submit(4, Speech("I was drowned"))


def test_sc_c4_mafia_cannot_target_a_mafioso():
    game = dealt("classic", [M, M, D] + [C] * 4)
    with pytest.raises(IllegalDecision, match="not a legal choice"):
        game.submit(0, Choice("target", 1))
    assert 0 in game.pending()  # the selection remains open


@pytest.mark.parametrize(
    ("picks", "victims"),
    [
        ([4, 4, 5], {4}),
        ([4, 5, None], {4, 5}),
    ],
)
def test_sc_c5_mafia_timeout_uses_plurality_then_random(picks, victims):
    seen = set()
    for seed in range(12):
        game = dealt("classic", [M, M, M, D] + [C] * 8, seed=seed)
        while game.state.phase == "night" and not game.over:
            for seat, request in sorted(game.pending().items()):
                if request.kind == "night:mafia_kill":
                    pick = picks[seat]  # None: this mafioso times out
                    answer(game, seat, request, PASS if pick is None else Choice("target", pick))
                else:
                    answer(game, seat, request, neutral(request))
        seen |= {s for s, _ in deaths(game)}
    assert seen == victims


def test_sc_c5_no_mafia_pick_means_nobody_murdered():
    game = dealt("classic", [M, M, D] + [C] * 4)
    run(game, {}, until=lambda g: g.state.phase == "day")
    assert events(game, "no_death") == [{"text": "Nobody was murdered tonight."}]
    assert not deaths(game)


def test_sc_c6_detective_results_and_no_check_of_the_partner():
    game = dealt("classic", [D, D, M, M, M] + [C] * 5)

    def checking(g):
        request = g.request(0)
        return request is not None and request.kind == "night:detective_check"

    run(game, {("night:mafia_kill", 1): 6}, until=checking)
    request = game.request(0)
    assert request is not None
    assert request.kind == "night:detective_check"
    assert Choice("target", 1) not in request.choices  # the partner detective
    with pytest.raises(IllegalDecision):
        game.submit(0, Choice("target", 1))
    run(
        game,
        {("night:mafia_kill", 1): 6, ("night:detective_check", 1): 3},
        until=lambda g: g.state.phase == "day",
    )
    results = [e for e in game.events if e.kind == "night_result"]
    assert results[0].fact.to_payload()["result"] == "mafia"
    assert results[0].visibility.seats == frozenset({0, 1})
    citizen = dealt("classic", [D, D, M, M, M] + [C] * 5)
    run(
        citizen,
        {("night:mafia_kill", 1): 6, ("night:detective_check", 1): 8},
        until=lambda g: g.state.phase == "day",
    )
    (checked,) = [e for e in citizen.events if e.kind == "night_result"]
    assert checked.fact.to_payload()["result"] == "innocent"  # a plain citizen: thumbs down
    assert checked.visibility.seats == frozenset({0, 1})


def test_sc_c7_check_of_the_nights_victim_is_truthful_and_victim_dies():
    game = dealt("classic", [M, M, D] + [C] * 4)
    run(
        game,
        {("night:mafia_kill", 1): 3, ("night:detective_check", 1): 3},
        until=lambda g: g.state.phase == "day",
    )
    assert events(game, "night_result")[0]["result"] == "innocent"
    assert deaths(game) == [(3, "night")]


def test_sc_c8_murdered_detective_still_checks_that_night():
    game = dealt("classic", [D, D, M, M, M] + [C] * 5)
    run(
        game,
        {("night:mafia_kill", 1): 0, ("night:detective_check", 1): 4},
        until=lambda g: g.state.phase == "day",
    )
    result = next(e for e in game.events if e.kind == "night_result")
    assert result.fact.to_payload()["result"] == "mafia" and result.visibility.seats == {0, 1}
    assert deaths(game) == [(0, "night")]
    assert events(game, "death")[0]["role"] == D
    with pytest.raises(IllegalDecision, match="dead players cannot act"):
        game.submit(0, Speech("P5 is mafia"))  # D1 cannot post
    from mafia_arena.views import view_of

    assert result.fact in [e.fact for e in view_of(game, 1).knowledge.events]  # D2 keeps it


def test_sc_c10_runoff_deadlock_is_decided_by_the_last_dead():
    # 7 players; night 1 kills seat 6, who becomes the last dead.
    game = dealt("classic", [M, M, D, C, C, C, C])
    run(game, {("night:mafia_kill", 1): 6}, until=lambda g: g.state.phase == "day")
    # Day 1: everybody passes in every nomination round → all-zero tie sets repeat.
    run(game, {}, until=lambda g: any(r.kind == "last_dead" for r in g.pending().values()))
    ((chooser, request),) = game.pending().items()
    assert chooser == 6 and request.kind == "last_dead"
    assert not game.state.alive(6)
    assert request.default == "random"  # no answer before the timeout: a seeded draw
    draws = len(events(game, "rng"))
    while (asked := game.request(6)) is not None and asked.kind == "last_dead":
        game.submit_default(6, "timeout")
    decision = events(game, "last_dead_decision")[-1]
    assert len(decision["chosen"]) == 2  # two open places
    assert decision["chooser"] is None  # drawn, not the last dead's choice (OP-C14)
    assert decision["text"].startswith("P7 (the last dead) did not decide; drawn at random: ")
    assert len(events(game, "rng")) == draws + 2
    assert events(game, "nominees")[-1]["seats"] == sorted(decision["chosen"])


def _asked(game, kind):
    return any(r.kind == kind for r in game.pending().values())


def _nominations(game, ballots):
    """One nomination round: every voter names `ballots[voter]` in order, then passes."""
    left = {voter: list(names) for voter, names in ballots.items()}
    rounds = len(events(game, "nomination_tally"))
    while len(events(game, "nomination_tally")) == rounds:
        ((voter, request),) = game.pending().items()
        assert request.kind == "nominate"
        names = left[voter]
        game.submit(voter, Choice("target", names.pop(0)) if names else PASS)


def _tc_n10_deadlock():
    """Five living players (P6 lynched on day 1, night 2 without a murder): TC-N3 secures
    P1 and sends P2, P3, P4 to a runoff for one place; the runoff TC-N10 (1 : 1 : 1, two
    abstentions) repeats the tie set for the same place."""
    game = dealt("classic", [M, M, D, C, C, C, C])
    plan: Plan = {
        ("night:mafia_kill", 1): 6,
        ("nominate", 1): lambda g, s, r: nominate(r, [5, 4]),
        ("final_vote", 1): 5,
    }
    run(game, plan, until=lambda g: g.state.day == 2 and _asked(g, "nominate"))
    assert game.state.living() == [0, 1, 2, 3, 4] and game.state.death_order[-1] == 5
    _nominations(game, {0: [1, 2], 1: [0, 3], 2: [0, 3], 3: [0, 1], 4: [0, 2]})
    assert events(game, "runoff")[-1]["candidates"] == [1, 2, 3]
    _nominations(game, {0: [1], 1: [2], 2: [3], 3: [], 4: []})
    assert events(game, "nomination_tally")[-1]["tally"] == {"1": 1, "2": 1, "3": 1}
    return game


@pytest.mark.parametrize("answers", [True, False], ids=["answered", "timed_out"])
def test_sc_c10_tc_n3_then_tc_n10_the_last_dead_chooses_among_p2_p3_p4(answers):
    """SC-C10 as written: after TC-N3 and TC-N10 the last dead (P6) is asked to choose
    one of P2, P3, P4; without an answer a seeded draw decides."""
    game = _tc_n10_deadlock()
    ((chooser, request),) = game.pending().items()
    assert chooser == 5 and request.kind == "last_dead"
    assert {c.target for c in request.choices} == {1, 2, 3}
    if answers:
        game.submit(5, Choice("target", 2))
    else:
        game.submit_default(5, "timeout")
    decision = events(game, "last_dead_decision")[-1]
    assert (decision["chooser"] == 5) is answers
    (second,) = decision["chosen"]
    assert second in (1, 2, 3) and (second == 2 or not answers)
    assert events(game, "nominees")[-1]["seats"] == [0, second]


def test_sc_c11_tied_final_vote_is_decided_by_the_last_dead():
    game = dealt("classic", [M, M, D, C, C, C, C])
    plan: Plan = {("night:mafia_kill", 1): 6, ("nominate", 1): lambda g, s, r: nominate(r, [0, 3])}
    run(game, plan, until=lambda g: any(r.kind == "final_vote" for r in g.pending().values()))
    assert events(game, "nominees")[-1]["seats"] == [0, 3]
    # 6 living: three vote for P1 (seat 0), three for P4 (seat 3)
    for seat in sorted(game.pending()):
        target = 0 if seat in (3, 4, 5) else 3
        game.submit(seat, Choice("target", target))
    ((chooser, request),) = game.pending().items()
    assert chooser == 6 and request.kind == "last_dead"
    game.submit(6, Choice("target", 0))
    assert deaths(game)[-1] == (0, "execution")
    assert events(game, "last_dead_decision")[-1]["chooser"] == 6


def test_sc_c11_on_day_3_only_the_night_3_victim_decides_and_the_card_is_revealed():
    """SC-C11 as written: five players are dead by day 3, the night-3 victim last; a
    3 : 3 final vote prompts that victim alone, and the chosen nominee's card is shown."""
    game = dealt("classic", [M, M, M, D] + [C] * 8)
    plan: Plan = {
        ("night:mafia_kill", 1): 4,
        ("nominate", 1): lambda g, s, r: nominate(r, [5, 6]),
        ("final_vote", 1): 5,
        ("night:mafia_kill", 2): 6,
        ("nominate", 2): lambda g, s, r: nominate(r, [7, 8]),
        ("final_vote", 2): 7,
        ("night:mafia_kill", 3): 11,
        ("nominate", 3): lambda g, s, r: nominate(r, [0, 8]),
    }
    run(game, plan, until=lambda g: g.state.day == 3 and _asked(g, "final_vote"))
    assert game.state.death_order == [4, 5, 6, 7, 11]
    assert events(game, "nominees")[-1]["seats"] == [0, 8]
    ballots = {0: 8, 1: 8, 2: 8, 3: 0, 8: 0, 9: 0}  # 3 : 3, seat 10 times out
    for seat, target in ballots.items():
        game.submit(seat, Choice("target", target))
    game.submit_default(10, "timeout")
    ((chooser, request),) = game.pending().items()  # no other dead player is prompted
    assert chooser == 11 and request.kind == "last_dead"
    game.submit(11, Choice("target", 8))
    assert events(game, "death")[-1] == {"seat": 8, "cause": "execution", "role": C}


def test_sc_c12_last_dead_after_a_night_without_murder_is_yesterdays_lynched():
    game = dealt("classic", [M, M, D, C, C, C, C])
    plan: Plan = {
        ("night:mafia_kill", 1): 6,
        ("nominate", 1): lambda g, s, r: nominate(r, [5, 4]),
        ("final_vote", 1): 5,
        ("nominate", 2): lambda g, s, r: nominate(r, [0, 3]),
    }
    run(
        game,
        plan,
        until=lambda g: (
            g.state.day == 2
            and g.state.phase == "day"
            and any(r.kind == "final_vote" for r in g.pending().values())
        ),
    )
    assert not game.state.alive(5)  # lynched on day 1; night 2 had no pick
    assert events(game, "no_death")
    assert game.state.living() == [0, 1, 2, 3, 4]
    ballots = {0: 3, 3: 0, 1: 0, 2: 3, 4: None}  # 2 : 2 with one abstention (a timeout)
    for seat, target in ballots.items():
        if target is None:
            game.submit(seat, PASS, fallback="timeout")
        else:
            game.submit(seat, Choice("target", target))
    ((chooser, request),) = game.pending().items()
    assert chooser == 5 and request.kind == "last_dead"


def test_sc_c13_invalid_nominations_are_rejected():
    game = dealt("classic", [M, M, D, C, C, C, C])
    run(
        game,
        {("night:mafia_kill", 1): 6},
        until=lambda g: any(r.kind == "nominate" for r in g.pending().values()),
    )
    ((voter, request),) = game.pending().items()
    with pytest.raises(IllegalDecision):  # self
        game.submit(voter, Choice("target", voter))
    with pytest.raises(IllegalDecision):  # dead
        game.submit(voter, Choice("target", 6))
    other = next(c for c in request.choices if c != PASS)
    game.submit(voter, other)
    with pytest.raises(IllegalDecision):  # the same player twice
        game.submit(voter, other)
    again = game.request(voter)
    assert again is not None
    third = next(c for c in again.choices if c not in (PASS, other))
    game.submit(voter, third)
    assert voter not in game.pending()  # a third nomination is never asked


def test_sc_c13_a_runoff_vote_outside_the_tie_set_is_rejected():
    game = dealt("classic", [M, M, D, C, C, C, C])
    run(game, {("night:mafia_kill", 1): 6}, until=lambda g: _asked(g, "nominate"))
    _nominations(game, {0: [1, 2], 1: [0, 3], 2: [0, 1], 3: [0, 2], 4: [0, 3], 5: []})
    assert events(game, "runoff")[-1]["candidates"] == [1, 2, 3]
    ((voter, _),) = game.pending().items()
    for outside in (0, 4, 5):  # secured, 0 votes, 0 votes
        with pytest.raises(IllegalDecision):
            game.submit(voter, Choice("target", outside))
    assert voter in game.pending()  # the runoff vote remains open


def test_sc_c14_no_parity_win_last_dead_breaks_the_one_on_one_tie():
    game = dealt("classic", [M, M, D, C, C, C, C])
    plan: Plan = {
        ("night:mafia_kill", 1): 2,
        ("nominate", 1): lambda g, s, r: nominate(r, [1, 3]),
        ("final_vote", 1): 1,
        ("night:mafia_kill", 2): 3,
        ("nominate", 2): lambda g, s, r: nominate(r, [4, 5]),
        ("final_vote", 2): 4,
        ("night:mafia_kill", 3): 5,
    }
    run(
        game,
        plan,
        until=lambda g: (
            g.state.living() == [0, 6] and any(r.kind == "final_vote" for r in g.pending().values())
        ),
    )
    assert not game.over  # 1 mafioso vs 1 citizen is not a mafia win
    assert events(game, "nominees")[-1]["seats"] == [0, 6]
    game.submit(0, Choice("target", 6))
    game.submit(6, Choice("target", 0))
    ((chooser, _),) = game.pending().items()
    assert chooser == 5
    game.submit(5, Choice("target", 0))
    assert game.over and game.state.winner == "citizens"


def test_sc_c15_mafia_wins_by_lynch_without_a_following_night():
    game = dealt("classic", [M, M, D, C, C, C, C])
    plan: Plan = {
        ("night:mafia_kill", 1): 2,
        ("nominate", 1): lambda g, s, r: nominate(r, [3, 4]),
        ("final_vote", 1): 3,
        ("night:mafia_kill", 2): 4,
        ("nominate", 2): lambda g, s, r: nominate(r, [5, 0]),
        ("final_vote", 2): 5,
        ("nominate", 3): lambda g, s, r: nominate(r, [6, 0]),
    }
    run(
        game,
        plan,
        until=lambda g: (
            g.state.living() == [0, 1, 6]
            and any(r.kind == "final_vote" for r in g.pending().values())
        ),
    )
    nominees = events(game, "nominees")[-1]["seats"]
    assert 6 in nominees
    for seat in game.state.living():
        game.submit(
            seat,
            Choice("target", 6)
            if seat != 6
            else Choice("target", next(n for n in nominees if n != 6)),
        )
    assert game.over and game.state.winner == "mafia"
    assert events(game, "game_over")[0]["winners"] == [0, 1]
    assert game.events[-1].kind == "game_over"
    assert not [e for e in game.events if e.kind == "phase" and e.day == 4]


def test_sc_c16_citizens_win_when_the_last_mafioso_is_lynched_and_dead_citizens_win_too():
    game = dealt("classic", [M, M, D, C, C, C, C])
    plan: Plan = {
        ("night:mafia_kill", 1): 3,
        ("nominate", 1): lambda g, s, r: nominate(r, [0, 4]),
        ("final_vote", 1): 0,
        ("night:mafia_kill", 2): 4,
        ("nominate", 2): lambda g, s, r: nominate(r, [1, 5]),
        ("final_vote", 2): 1,
    }
    run(game, plan)
    assert game.state.winner == "citizens"
    assert set(events(game, "game_over")[0]["winners"]) == {2, 3, 4, 5, 6}


def test_sc_c17_mafia_wins_by_night_murder_before_any_discussion():
    game = dealt("classic", [M, M, D, C, C, C, C])
    plan: Plan = {
        ("night:mafia_kill", 1): 3,
        ("nominate", 1): lambda g, s, r: nominate(r, [4, 5]),
        ("final_vote", 1): 4,
        ("night:mafia_kill", 2): 5,
        ("nominate", 2): lambda g, s, r: nominate(r, [6, 2]),
        ("final_vote", 2): 6,
        ("night:mafia_kill", 3): 2,
    }
    run(game, plan)
    assert game.state.winner == "mafia"
    assert deaths(game)[-1] == (2, "night")
    day3 = [e for e in game.events if e.day == 3 and e.phase == "day" and e.kind == "speech"]
    assert day3 == []


def test_sc_c18_dead_players_cannot_act_but_still_read_the_table():
    from mafia_arena.views import view_of

    game = dealt("classic", [M, M, D, C, C, C, C])
    run(
        game,
        {("night:mafia_kill", 1): 3},
        until=lambda g: g.state.phase == "day" and bool(g.pending()),
    )
    with pytest.raises(IllegalDecision, match="dead players cannot act"):
        game.submit(3, Speech("I am still here"))

    def spoken(g):
        return [e for e in g.events if e.kind == "speech" and e.visibility.scope == "public"]

    run(game, {}, until=spoken)
    assert spoken(game)[0].fact in [e.fact for e in view_of(game, 3).knowledge.events]
    plan: Plan = {("nominate", 1): lambda g, s, r: nominate(r, [4, 5]), ("final_vote", 1): 4}
    for kind in ("nominate", "final_vote"):
        run(game, plan, until=partial(_asked, kind=kind))
        assert 3 not in game.pending()
        with pytest.raises(IllegalDecision, match="dead players cannot act"):
            game.submit(3, Choice("target", 4))
    run(game, plan, until=lambda g: g.state.phase == "night" and bool(g.pending()))
    assert 3 not in game.pending()
    with pytest.raises(IllegalDecision, match="dead players cannot act"):
        game.submit(3, Choice("target", 5))


# The source's three examples (5.3) as ballots of five voters naming two players each.
SOURCE_EXAMPLES = {
    "TC-N1": (
        {0: [1, 2], 1: [0, 2], 2: [0, 1], 3: [0, 1], 4: [0, 3]},
        {"0": 4, "1": 3, "2": 2, "3": 1, "4": 0},
        ([0, 1], None),
    ),
    "TC-N2": (
        {0: [1, 2], 1: [0, 2], 2: [0, 1], 3: [0, 1], 4: [2, 3]},
        {"0": 3, "1": 3, "2": 3, "3": 1, "4": 0},
        ([], ([0, 1, 2], 2)),
    ),
    "TC-N3": (
        {0: [1, 2], 1: [0, 3], 2: [0, 3], 3: [0, 1], 4: [0, 2]},
        {"0": 4, "1": 2, "2": 2, "3": 2, "4": 0},
        ([0], ([1, 2, 3], 1)),
    ),
}


@pytest.mark.parametrize("example", sorted(SOURCE_EXAMPLES))
def test_sc_c9_the_source_nomination_examples(example):
    """SC-C9: TC-N1..TC-N3 with five living players: the tally, the nominees or the
    secured player and the runoff set, and the votes each runoff voter has."""
    ballots, tally, (secured, runoff) = SOURCE_EXAMPLES[example]
    game = dealt("classic", [M, M, D, C, C, C, C])
    plan: Plan = {
        ("night:mafia_kill", 1): 6,
        ("nominate", 1): lambda g, s, r: nominate(r, [5, 4]),
        ("final_vote", 1): 5,
    }
    run(game, plan, until=lambda g: g.state.day == 2 and _asked(g, "nominate"))
    _nominations(game, ballots)
    assert events(game, "nomination_tally")[-1]["tally"] == tally
    if runoff is None:
        assert events(game, "nominees")[-1]["seats"] == secured
        assert not [e for e in game.events if e.kind == "runoff" and e.day == 2]
        return
    assert events(game, "runoff")[-1]["candidates"] == runoff[0]
    assert events(game, "runoff")[-1]["places"] == runoff[1]
    for _ in range(5):  # every living voter, one request per vote
        ((voter, request),) = game.pending().items()
        assert request.kind == "nominate" and request.info["places"] == runoff[1]
        assert {c.target for c in request.choices if c != PASS} == set(runoff[0]) - {voter}
        game.submit(voter, PASS)
    while (asked := game.request(5)) is not None and asked.kind == "last_dead":
        game.submit(5, asked.choices[0])  # everybody passed: a deadlock for the last dead
    assert set(secured) <= set(events(game, "nominees")[-1]["seats"])  # P1 stays secured


def test_sc_c9_runoff_gives_each_voter_one_vote_per_open_place_among_the_tie_set():
    game = dealt("classic", [M, M, D, C, C, C, C])
    run(
        game,
        {("night:mafia_kill", 1): 6},
        until=lambda g: any(r.kind == "nominate" for r in g.pending().values()),
    )
    ballots = {0: [1, 2], 1: [0, 3], 2: [0, 1], 3: [0, 2], 4: [0, 3], 5: []}
    for voter, names in ballots.items():
        for target in names:
            game.submit(voter, Choice("target", target))
        if len(names) < 2:
            game.submit(voter, PASS)
    tally = events(game, "nomination_tally")[0]["tally"]
    assert tally == {"0": 4, "1": 2, "2": 2, "3": 2, "4": 0, "5": 0}
    assert events(game, "runoff")[0]["candidates"] == [1, 2, 3]
    assert events(game, "runoff")[0]["places"] == 1
    ((voter, request),) = game.pending().items()
    assert voter == 0 and request.info["places"] == 1
    assert set(request.choices) == {
        PASS,
        Choice("target", 1),
        Choice("target", 2),
        Choice("target", 3),
    }
    game.submit(0, Choice("target", 2))
    assert 0 not in game.pending()  # one vote for one open place
    for voter in range(1, 6):
        game.submit(voter, Choice("target", 3 if voter != 3 else 1))
    assert events(game, "nominees")[0]["seats"] == [0, 3]
