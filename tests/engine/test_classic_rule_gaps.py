"""Rules of the classic digest that games must follow: the final vote between any number
of nominees, the night chats (section 7), the manner of death (3.1 N3, OP-C7), the last
dead's announcement (OP-C14), the nominee's own vote (5.2), the player count (2.1, OP-C1,
OP-C2) and custom distributions (2.2 rule 4)."""

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.scenario import Plan, dealt, deaths, events, nominate, run

from mafia_arena.engine import PASS, Choice, Speech
from mafia_arena.rules import VariantError, load_variant
from mafia_arena.rules.composition import deck_counts

M, D, C = "mafioso", "detective", "citizen"
TEN = [M, M, M, D, D, C, C, C, C, C]


def _at(kind):
    return lambda g: any(r.kind == kind for r in g.pending().values())


def _three_nominees(seed=0):
    """10 players, P10 murdered in night 1; day 1 nominates P7, P8 and P9 (seats 6-8)."""
    game = dealt("classic", TEN, seed, **{"day.2.params.nominees": 3})
    plan: Plan = {
        ("night:mafia_kill", 1): 9,
        ("nominate", 1): lambda g, s, r: nominate(r, [6, 7, 8]),
    }
    return run(game, plan, until=_at("final_vote"))


def test_item1_nominate_final_with_three_nominees_executes_the_most_voted_nominee():
    game = _three_nominees()
    assert events(game, "nominees")[-1]["seats"] == [6, 7, 8]
    for seat in sorted(game.pending()):  # P9 gets 8 of the 9 votes, P7 one
        game.submit(seat, Choice("target", 6 if seat == 8 else 8))
    assert events(game, "votes")[-1]["tally"] == {"6": 1, "8": 8}
    assert deaths(game)[-1] == (8, "execution")


def test_item1_nominate_final_with_three_nominees_sends_a_top_tie_to_the_last_dead():
    game = _three_nominees()
    ballots = {0: 7, 1: 7, 2: 7, 3: 8, 4: 8, 5: 8, 6: 8, 7: 6, 8: 7}  # P8 4, P9 4, P7 1
    for seat, target in ballots.items():
        game.submit(seat, Choice("target", target))
    ((chooser, request),) = game.pending().items()
    assert chooser == 9 and request.kind == "last_dead"
    assert {c.target for c in request.choices} == {7, 8}  # the tied top only, never P7
    game.submit(9, Choice("target", 7))
    assert deaths(game)[-1] == (7, "execution")


def test_item2_classic_mafia_and_detectives_chat_in_their_own_night_channels():
    game = dealt("classic", TEN)
    run(game, {}, until=_at("night_chat"))
    for seat in (0, 1, 2):  # the mafiosi speak in seat order, before their picks
        assert list(game.pending()) == [seat]
        asked = game.request(seat)
        assert asked is not None and asked.kind == "night_chat"
        game.submit(seat, Speech(f"P{seat + 1} here: let us take P6"))
    assert {r.kind for r in game.pending().values()} == {"night:mafia_kill"}
    run(game, {("night:mafia_kill", 1): 5}, until=_at("night_chat"))
    assert list(game.pending()) == [3]
    game.submit(3, Speech("I check P1"))
    assert list(game.pending()) == [4]
    game.submit(4, Speech("agreed"))
    assert {r.kind for r in game.pending().values()} == {"night:detective_check"}
    chat = [
        e for e in game.events if e.kind == "speech" and e.fact.to_payload()["kind"] == "night_chat"
    ]
    assert [e.visibility.seats for e in chat] == [frozenset({0, 1, 2})] * 3 + [
        frozenset({3, 4})
    ] * 2
    assert {e.visibility.channel for e in chat} == {"mafia_kill", "detective_check"}


def test_item2_classic_night_chat_rounds_are_switches_and_a_lone_member_has_no_chat():
    game = dealt("classic", TEN, mafia_chat_rounds=0, detective_chat_rounds=2)
    run(game, {}, until=_at("night_chat"))
    assert list(game.pending()) == [3]  # no mafia talk; two detective rounds
    run(game, {}, until=lambda g: g.state.phase == "day")
    chats = [d for d in game.decisions if d["kind"] == "night_chat"]
    assert [d["seat"] for d in chats] == [3, 4, 3, 4]
    alone = dealt("classic", [M, M, D, C, C, C, C])  # one detective: nobody to talk to
    run(alone, {}, until=lambda g: g.state.phase == "day")
    assert [d["seat"] for d in alone.decisions if d["kind"] == "night_chat"] == [0, 1]


def test_item2_classic_any_living_mafioso_may_write_the_manner_of_death():
    game = dealt("classic", TEN)
    run(game, {("night:mafia_kill", 1): 5}, until=_at("describe"))
    asked = {s for s, r in game.pending().items() if r.kind == "describe"}
    assert asked == {0, 1, 2}
    game.submit(0, PASS)
    game.submit(1, Speech("fell from the church tower"))
    game.submit(2, PASS)
    run(game, {}, until=lambda g: g.state.phase == "day")
    assert events(game, "death")[0]["manner"] == "fell from the church tower"


def test_op_c7_missing_manner_of_death_is_announced_with_the_neutral_default():
    """OP-C7: without a manner of death the murder still happens and the morning
    announcement uses the neutral default text, as the game master announces "auf welche
    Weise er umkam" (3.2) for every murder."""
    game = dealt("classic", TEN)
    run(game, {("night:mafia_kill", 1): 5}, until=_at("describe"))
    for seat in sorted(game.pending()):
        game.submit(seat, PASS)
    run(game, {}, until=lambda g: g.state.phase == "day")
    assert events(game, "death")[0] == {
        "seat": 5,
        "cause": "night",
        "manner": "was found dead",
        "role": C,
    }


def test_op_c7_a_timed_out_manner_of_death_uses_the_default_text_too():
    game = dealt("classic", TEN)
    run(game, {("night:mafia_kill", 1): 5}, until=_at("describe"))
    for seat in sorted(game.pending()):
        game.submit_default(seat, "timeout")
    run(game, {}, until=lambda g: g.state.phase == "day")
    assert events(game, "death")[0]["manner"] == "was found dead"


def _tied_final_vote_before_the_last_dead():
    """7 players, P7 murdered in night 1; day 1's final vote P1 : P4 ends 3 : 3."""
    game = dealt("classic", [M, M, D, C, C, C, C])
    plan: Plan = {("night:mafia_kill", 1): 6, ("nominate", 1): lambda g, s, r: nominate(r, [0, 3])}
    run(game, plan, until=_at("final_vote"))
    for seat in sorted(game.pending()):
        game.submit(seat, Choice("target", 0 if seat in (3, 4, 5) else 3))
    asked = game.request(6)
    assert asked is not None and asked.kind == "last_dead"
    return game


def test_op_c14_a_last_dead_who_does_not_answer_is_not_announced_as_deciding():
    """OP-C14: without an answer the engine breaks the tie at random; the public
    announcement says so instead of naming the last dead as the one who chose (5.2: the
    engine announces whom the last dead chose, which players read as that player's
    judgement)."""
    game = _tied_final_vote_before_the_last_dead()
    game.submit_default(6, "timeout")
    (decision,) = events(game, "last_dead_decision")
    lynched = deaths(game)[-1][0]
    assert decision["chooser"] is None and decision["chosen"] == [lynched]
    assert decision["text"] == f"P7 (the last dead) did not decide; drawn at random: P{lynched + 1}"


def test_op_c14_the_last_dead_who_answers_is_announced_with_the_choice():
    game = _tied_final_vote_before_the_last_dead()
    game.submit(6, Choice("target", 3))
    (decision,) = events(game, "last_dead_decision")
    assert decision == {
        "purpose": "tied final vote",
        "chooser": 6,
        "chosen": [3],
        "text": "P7 (the last dead) chose P4",
    }


def test_item2_classic_nominee_may_vote_for_himself_in_the_final_vote():
    game = dealt("classic", [M, M, D, C, C, C, C])
    plan: Plan = {("night:mafia_kill", 1): 6, ("nominate", 1): lambda g, s, r: nominate(r, [0, 3])}
    run(game, plan, until=_at("final_vote"))
    assert events(game, "nominees")[-1]["seats"] == [0, 3]
    request = game.request(3)
    assert request is not None
    assert Choice("target", 3) in request.choices and Choice("target", 0) in request.choices
    ballots = {0: 3, 1: 3, 2: 0, 3: 3, 4: 0, 5: 0}  # P4 votes against himself: 3 : 3
    for seat, target in ballots.items():
        game.submit(seat, Choice("target", target))
    assert events(game, "votes")[-1]["votes"]["3"] == 3
    assert events(game, "votes")[-1]["tally"] == {"0": 3, "3": 3}
    last_dead = game.request(6)
    assert last_dead is not None and last_dead.kind == "last_dead"


@pytest.mark.parametrize(("n", "mafia"), [(41, 12), (60, 18), (100, 30)], ids=["41", "60", "100"])
def test_item2_classic_has_no_upper_player_limit(n, mafia):
    variant = load_variant("classic")
    assert variant.max_players is None
    assert deck_counts(variant, n) == {C: n - mafia - 2, D: 2, M: mafia}


@pytest.mark.parametrize(
    ("n", "mafia"), [(21, 6), (24, 7), (25, 8), (35, 11), (55, 17), (75, 23)], ids=str
)
def test_op_c2_default_mafia_count_is_0_3_n_rounded_half_up(n, mafia):
    """OP-C2: above 20 players the default is round(0.3 x N) in the ordinary sense, so
    10.5 (35 players) gives 11 and 16.5 (55) gives 17, not the even neighbour that a
    round-half-to-even rule would pick."""
    assert deck_counts(load_variant("classic"), n) == {C: n - mafia - 2, D: 2, M: mafia}


def test_item2_classic_large_game_plays_to_the_end():
    from mafia_arena.agents.random_agent import RandomAgent
    from mafia_arena.runner.match import play_match_sync

    variant = load_variant("classic")
    result = play_match_sync(
        variant, [RandomAgent() for _ in range(45)], 3, host_key=FIXED_HOST_KEY
    )
    assert result.winner in ("citizens", "mafia")


@pytest.mark.parametrize(
    ("overrides", "key"),
    [
        ({"composition.table.10.detective": 0, "composition.table.10.citizen": 7}, "detective"),
        ({"composition.table.10.detective": 3, "composition.table.10.citizen": 4}, "detective"),
        ({"composition.formula.detective": 3}, "detective"),
        (
            {
                "composition.bounds.mafioso": ["1", "n"],
                "composition.table.7.mafioso": 6,
                "composition.table.7.citizen": 0,
            },
            "citizen",
        ),
    ],
    ids=["no-detective", "three-detectives", "formula-three-detectives", "no-plain-citizen"],
)
def test_item2_classic_custom_distribution_needs_one_or_two_detectives_and_a_plain_citizen(
    overrides, key
):
    n = 24 if "composition.formula.detective" in overrides else 10
    if "composition.table.7.citizen" in overrides:
        n = 7
    with pytest.raises(VariantError, match=rf"\.{key}: .* outside the bounds"):
        deck_counts(load_variant("classic", overrides), n)


def test_item2_classic_every_table_row_satisfies_the_distribution_rules():
    variant = load_variant("classic")
    for n in range(7, 21):
        counts = deck_counts(variant, n)
        assert 1 <= counts[D] <= 2 and counts[C] >= 1
    for n in (15, 16):
        counts = deck_counts(load_variant("classic", {"alternative_row": True}), n)
        assert 1 <= counts[D] <= 2 and counts[C] >= 1


def _notices(game):
    return [
        e for e in game.events if e.kind == "narration" and e.fact.to_payload()["step"] == "setup"
    ]


def test_item2_classic_below_the_recommended_minimum_gives_a_public_notice():
    (notice,) = _notices(dealt("classic", [M, M, D, C, C, C, C]))
    assert notice.visibility.scope == "public"
    assert (
        notice.fact.to_payload()["text"]
        == "7 players is below the recommended minimum of 8 players."
    )
    assert not _notices(dealt("classic", [M, M, D, C, C, C, C, C]))


def test_item2_classic_cli_warns_below_the_recommended_minimum(tmp_path):
    from typer.testing import CliRunner

    from mafia_arena.cli import app

    below = CliRunner().invoke(
        app, ["run", "--variant", "classic", "--players", "7", "--games", "1"]
    )
    assert below.exit_code == 0
    assert "below the recommended minimum of 8 players" in below.output
    at = CliRunner().invoke(app, ["run", "--variant", "classic", "--players", "8", "--games", "1"])
    assert at.exit_code == 0 and "recommended minimum" not in at.output


def test_item2_classic_six_players_are_still_refused():
    with pytest.raises(VariantError, match="6 players is too few: at least 7"):
        deck_counts(load_variant("classic"), 6)
