"""club.md sections 4 (night action resolution) and 6 (voting procedure), clause by
clause: the clauses that no scenario of section 9 plays through. Each test is named
after the clause it proves and plays a dealt game to the situation with chosen picks."""

from typing import Any

import pytest
from tests.club.club_table import Table

from mafia_arena.engine import PASS, Choice

EIGHT = "D M K Dr Lv C1 C2 C3"


def draws(t: Table, purpose: str) -> list[dict[str, Any]]:
    """The logged random draws whose purpose starts with `purpose`."""
    return [p for p in t.events("rng") if p["purpose"].startswith(purpose)]


def offered(t: Table, label: str, kind: str) -> list[set[int]]:
    """The targets offered to `label` in each request of `kind` it was asked so far."""
    return [
        {c.target for c in r.choices if c.target is not None}
        for r in t.asked
        if r.seat == t[label] and r.kind == kind
    ]


def last_words(t: Table, day: int) -> list[str]:
    """Who gave a last word on `day`, in order."""
    return [t.label(p["seat"]) for p in t.events("speech", day) if p["kind"] == "last_word"]


# ------------------------------------------------------------------ 4.4 procedure of a step
def test_4_4_1_a_dealt_step_is_called_aloud_even_for_a_dead_holder_and_nothing_more():
    t = Table("D M Dr K P C1 C2 C3", votes=False)
    t.night({"D": "Dr", "Dr": "C1", "K": "M"})
    assert t.dead(2) == {"Dr"}
    t.night({"D": "C1", "K": "M"})
    calls = [p["step"] for p in t.events("narration", 3)]
    assert calls == ["doctor_heal", "mafia_kill", "psychopath_kill", "commissar_check"]
    public = {
        e.kind
        for e in t.game.events
        if e.day == 3 and e.phase == "night" and e.visibility.scope == "public"
    }
    assert public == {"phase", "narration"}


def test_4_4_4_every_night_action_is_mandatory_but_the_sheriffs():
    t = Table("Cp T F Cs L Lv Dr D M S Y X Sh Dt K J Sw C1 C2 C3", votes=False)
    t.night(
        {
            "Cp": "C3",
            "T": "C2",
            "Cs": ["Dr", "C1"],
            "D": "C1",
            "S": "C2",
            "X": "C1",
            "Dt": "check:M",
        }
    )
    night = [r for r in t.asked if r.kind.startswith("night:")]
    assert len({r.info["step"] for r in night}) == 15  # every step with a living holder
    assert {r.info["step"] for r in night if PASS in r.choices} == {"sheriff_shoot"}


# ------------------------------------------------------------------ 4.5 effects
def test_4_5_a_clan_attempt_counts_every_participant_whatever_each_pointed_at():
    t = Table("D M Kz Sw Dr C1 C2 C3", votes=False)
    t.night({"D": "Kz", "M": "C1", "Dr": "C2", "Sw": "Kz"})
    assert sorted(t.result("Sw", 2)) == sorted([t["D"], t["M"]])
    (draw,) = draws(t, "retaliation")
    assert sorted(draw["options"]) == sorted([t["D"], t["M"]])
    assert t.dead(2) == {"Kz", t.label(draw["result"])} and t.alive("C1")


def test_4_5_a_robbed_clan_member_is_no_attacker_and_never_dies_for_the_kamikaze():
    t = Table("D M T Kz Sw Dr C1 C2 C3", votes=False)
    t.night({"T": "M", "D": "Kz", "Dr": "C1", "Sw": "Kz"})
    assert t.blocked("M", 2) == ["mafia_kill"]
    assert t.result("Sw", 2) == [t["D"]]
    assert t.dead(2) == {"Kz", "D"}


def test_4_5_a_kill_copied_from_a_clan_member_is_the_cardsharps_own_attempt():
    t = Table("Cs D M Kz Sw Dr C1 C2 C3", votes=False)
    t.night({"Cs": ["M", "Kz"], "D": "C1", "Dr": "C2", "Sw": "Kz"})
    assert t.result("Cs", 2, "copy") == "kill"
    assert t.result("Sw", 2) == [t["Cs"]]
    assert t.dead(2) == {"Kz", "Cs", "C1"} and not draws(t, "retaliation")


def test_4_5_a_heal_of_an_arrested_player_is_void_but_counts_toward_the_doctors_limits():
    t = Table("Cp Dr D M K C1 C2 C3", votes=False)
    t.night({"Cp": "C1", "Dr": "C1", "D": "C2", "K": "M"})
    assert t.dead(2) == {"C2"}
    request = t.until("Dr", "night:doctor_heal", {"Cp": "C3", "D": "C3", "K": "M"})
    assert Choice("target", t["C1"]) not in request.choices  # not two nights running (D10)


def test_4_5_a_theft_after_the_victims_step_changes_nothing_the_frame_stands():
    # the cardsharp's copied theft (step 4) robs the framer, whose step 3 is past
    t = Table("Cs T F S Y K D M Dr C1 C2 C3 C4", votes=False)
    t.night({"T": "C4", "F": "C1", "Cs": ["T", "F"], "S": "C2", "D": "C3", "Dr": "Dr", "K": "C1"})
    assert t.result("Cs", 2, "copy") == "steal" and not t.blocked("F", 2)
    assert t.result("K", 2) == "mafia"


# ------------------------------------------------------------------ 4.6 answer functions
def test_4_6_a_copied_check_sees_tonights_frame_and_a_copied_frame_reaches_the_commissar():
    t = Table("Cs F S Y K D M Dr C1 C2 C3 C4 C5 C6", votes=False)
    t.night({"F": "C1", "Cs": ["K", "C1"], "S": "C5", "D": "C6", "Dr": "Dr", "K": "C4"})
    assert t.result("Cs", 2, "check") == "mafia"  # the cardsharp's step follows the framer's
    assert t.result("K", 2) == "innocent"
    t.night({"Cs": ["F", "C2"], "F": "C3", "S": "C4", "D": "C1", "Dr": "C2", "K": "C2"})
    assert t.result("K", 3) == "mafia"


@pytest.mark.parametrize(("shot", "answer"), [("M", "mafia"), ("D", "innocent")])
def test_4_6_a_deputy_who_inherited_a_clan_role_checks_as_that_role(shot, answer):
    t = Table("Dp D M K Sh Dr J C1 C2 C3", votes=False)
    t.night(
        {"Sh": shot, "D" if shot == "M" else "M": "C1", "Dr": "Dr", "K": "C2", "J": ["C2", "C3"]}
    )
    assert t.role("Dp") == ("mafia" if shot == "M" else "don")
    clan = "D" if shot == "M" else "M"
    t.night({clan: "C2", "Sh": "pass", "Dr": "C3", "K": "Dp", "J": ["Dp", clan]})
    assert t.result("K", 3) == answer
    assert t.result("J", 3) == "same"  # the comparison sees the team, never the exemption


# ------------------------------------------------------------------ 4.7 dawn resolution
def test_4_7_a_player_marked_by_an_attack_and_by_retaliation_dies_once():
    t = Table("X Sh Kz D M Dr C1 C2 C3", votes=False)
    t.night({"X": "Kz", "Sh": "X", "D": "C1", "Dr": "C2"})
    assert t.dead(2) == {"Kz", "X", "C1"}
    assert [p["seat"] for p in t.events("death", 2)].count(t["X"]) == 1


# ------------------------------------------------------------------ 4.8 post-death triggers
def test_4_8b_a_retaliation_death_is_a_candidate_for_the_deputys_inheritance():
    t = Table("Dp X Kz D M Dr C1 C2 C3", votes=False)
    t.night({"X": "Kz", "D": "C1", "Dr": "C2"})
    assert t.dead(2) == {"Kz", "X", "C1"}
    (draw,) = draws(t, "inheritance")
    assert sorted(draw["options"]) == sorted([t["X"], t["Kz"]])  # not the civilian C1
    assert t.role("Dp") == t.game.state.role(draw["result"])


def test_4_8c_the_werewolf_joins_the_yakuza_when_only_the_yakuza_killers_are_gone():
    t = Table("D M S Y F W Sh Dt Dr C1 C2 C3", votes=False)
    t.night({"Sh": "S", "Dt": "kill:Y", "D": "C1", "S": "C2", "Dr": "Dr"})
    assert {"S", "Y"} <= t.dead(2) and t.alive("F")
    assert t.role("W") == "yakuza"
    request = t.until("W", "night:yakuza_kill", {"D": "C3", "Dr": "C3", "Sh": "pass"})
    assert t["F"] not in {c.target for c in request.choices}  # the framer is his team now
    assert {str(t["F"]): "framer"} in [p["allies"] for p in t.seen_by("W", "allies")]


# ------------------------------------------------------------------ 6 voting procedure
def test_6_1_the_vote_starts_at_the_next_living_seat_after_yesterdays_first_speaker():
    t = Table("C1 C2 D M K Dr Lv C3")
    t.tie_day("C3", "K")
    assert t.events("nomination", 1)[0]["seat"] == t["C1"]  # seat 1 on day 1
    t.night({"D": "C2", "Lv": "D", "Dr": "Dr", "K": "M"})
    assert t.dead(2) == {"C2"} and t.events("silenced", 2) == [{"seats": [t["D"]]}]
    t.tie_day("C3", "K")
    # day 2's first speaker is D (C2 died); D is silenced, so M votes first, then on
    nominations = [t.label(p["seat"]) for p in t.events("nomination", 2)]
    assert nominations == ["M", "K", "Dr", "Lv", "C3", "C1"]
    ballots = [t.label(p["seat"]) for p in t.events("ballot", 2) if not p["revote"]]
    assert ballots == nominations  # round 2 goes in the same order


def test_6_2_a_nomination_names_one_other_candidate_with_no_abstention():
    t = Table(EIGHT).tie_day("C2", "C3")
    everyone = {t[label] for label in EIGHT.split()}
    for label in EIGHT.split():
        (targets,) = offered(t, label, "nominate")
        assert targets == everyone - {t[label]}
    assert not [r for r in t.asked if r.kind == "nominate" and PASS in r.choices]


def test_6_5_an_accused_votes_against_one_of_the_other_accused_only():
    t = Table(EIGHT).tie_day("C2", "C3")
    assert offered(t, "C2", "final_vote") == [{t["C3"]}, {t["C3"]}]
    assert offered(t, "D", "final_vote") == [{t["C2"], t["C3"]}] * 2
    assert not [r for r in t.asked if r.kind == "final_vote" and PASS in r.choices]


def test_6_6_an_executed_commissar_and_the_sergeant_after_him_give_no_last_word():
    t = Table("K Sg D M Dr Lv C1 C2 C3")
    t.day(execute="K")
    assert {"seat": t["K"], "cause": "execution", "role": "commissar"} in t.events("death", 1)
    assert last_words(t, 1) == [] and t.role("Sg") == "commissar"
    t.night({"D": "C1", "Dr": "Dr", "Lv": "C2", "Sg": "M"})
    t.day(execute="Sg")
    assert {"seat": t["Sg"], "cause": "execution", "role": "sergeant"} in t.events("death", 2)
    assert last_words(t, 2) == ["C1"]  # the night victim speaks, the executed commissar not


def three_way_day(others: list[str]) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Votes for 8 voters (`others` and C1-C3) that accuse C1, C2 and C3 (2 votes each),
    tie C1 and C2 at the top of round 2 (3, 3 and 2 for C3), and give C2 the re-vote."""
    v1, v2, v3, v4, v5 = others
    return (
        {v1: "C1", v2: "C1", v3: "C2", v4: "C2", v5: "C3", "C1": "C3", "C2": v1, "C3": v2},
        {
            v1: "C1",
            v2: "C1",
            v3: "C2",
            v4: "C2",
            v5: "C3",
            "C1": "C3",
            "C2": "C1",
            "C3": "C2",
        },
        {**dict.fromkeys([*others, "C1", "C3"], "C2"), "C2": "C1"},
    )


def test_6_5_a_re_vote_among_the_tied_only_with_a_strict_top_executes_its_winner():
    votes, finals, revotes = three_way_day(["D", "M", "K", "Dr", "Lv"])
    t = Table(EIGHT).day(votes=votes, finals=finals, revotes=revotes)
    assert t.events("nominees", 1)[0]["seats"] == [t["C1"], t["C2"], t["C3"]]
    assert t.events("runoff", 1)[0]["candidates"] == [t["C1"], t["C2"]]
    assert offered(t, "D", "final_vote") == [{t["C1"], t["C2"], t["C3"]}, {t["C1"], t["C2"]}]
    revote = [t.label(p["target"]) for p in t.events("ballot", 1) if p["revote"]]
    assert sorted(revote) == ["C1"] + ["C2"] * 7  # C3 votes too, but is no longer a candidate
    assert t.events("death", 1) == [{"seat": t["C2"], "cause": "execution", "role": "civilian"}]


def test_6_6_a_protected_winner_of_the_re_vote_survives_with_his_card_hidden():
    t = Table("L D K Dr C1 C2 C3 C4").tie_day("C3", "C4")
    t.night({"L": "C2", "D": "C4", "Dr": "C4", "K": "D"})
    assert t.dead() == set()
    votes, finals, revotes = three_way_day(["L", "D", "K", "Dr", "C4"])
    t.day(votes=votes, finals=finals, revotes=revotes)
    assert t.events("runoff", 2)[0]["candidates"] == [t["C1"], t["C2"]]
    assert [p["seat"] for p in t.events("protected", 2)] == [t["C2"]]
    assert t.alive("C2") and t.events("death", 2) == []
    assert not [p for p in t.events("reveal") if p["seat"] == t["C2"]]
    assert [p["kind"] for p in t.events("votes", 2)] == ["final_vote", "revote"]  # no more
