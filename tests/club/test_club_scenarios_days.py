"""club.md section 9, scenarios S16-S26 and S30: silence, protection, the vote, triggers,
the cardsharp, clan decisions and the timing of reveals."""

import pytest
from tests.club.club_table import Table

from mafia_arena.engine import Choice
from mafia_arena.views.text import render_event

EIGHT = "D M K Dr Lv C1 C2 C3"
SIXTEEN = "D M L S Y F X K Sg Dr Lv Sh J I W C"


def asked(t: Table, label: str, day: int) -> set[str]:
    """The kinds of day decisions `label` was asked on `day`."""
    return {
        e.fact.to_payload()["kind"]
        for e in t.game.events
        if e.kind == "decision"
        and e.day == day
        and e.phase == "day"
        and e.fact.to_payload()["seat"] == t[label]
    }


def named(t: Table, day: int) -> set[int]:
    """Every seat offered as a target in a vote request of `day` (from the decisions)."""
    return {p["target"] for p in t.events("nomination", day)} | {
        p["target"] for p in t.events("ballot", day)
    }


def test_s16_a_silenced_player_cannot_speak_vote_or_be_voted_against():
    t = Table(EIGHT).tie_day("C2", "C3")
    t.night({"Lv": "C1", "D": "C2", "Dr": "C1", "K": "M"})
    assert t.dead(2) == {"C2"}
    assert t.events("silenced", 2) == [{"seats": [t["C1"]]}]  # the heal does not cancel it
    request = t.until("D", "nominate")
    assert Choice("target", t["C1"]) not in request.choices
    t.tie_day("C3", "K")
    assert asked(t, "C1", 2) == set()
    assert t["C1"] not in named(t, 2)
    t.night({"Lv": "Lv", "D": "C3", "Dr": "C3", "K": "M"})
    assert t.events("silenced", 3) == [{"seats": [t["Lv"]]}]
    request = t.until("D", "nominate")
    assert Choice("target", t["Lv"]) not in request.choices
    t.tie_day("C3", "K")
    assert asked(t, "Lv", 3) == set()


def test_s16_the_lover_seduces_a_player_at_most_twice_and_never_twice_in_a_row():
    t = Table(EIGHT, votes=False)
    t.night({"Lv": "C1", "D": "C2", "Dr": "Dr", "K": "M"})
    request = t.until("Lv", "night:lover_seduce")
    assert Choice("target", t["C1"]) not in request.choices
    t.game.submit(t["Lv"], Choice("target", t["Lv"]))
    t.night({"D": "C3", "Dr": "C3", "K": "M"})
    request = t.until("Lv", "night:lover_seduce")
    assert Choice("target", t["C1"]) in request.choices
    t.game.submit(t["Lv"], Choice("target", t["C1"]))
    t.night({"D": "K", "Dr": "K"})
    t.night({"Lv": "Lv", "D": "Dr", "Dr": "Dr", "K": "M"})
    request = t.until("Lv", "night:lover_seduce")
    assert Choice("target", t["C1"]) not in request.choices
    assert Choice("target", t["Lv"]) not in request.choices


def test_s17_the_lawyers_protection_is_announced_after_the_final_vote_and_ends_the_vote():
    t = Table(SIXTEEN).tie_day("C", "I")
    attack = {"D": "I", "S": "I", "X": "J", "Dr": "C", "Lv": "C"}
    t.night({**attack, "L": "M", "K": "L"})
    assert t.result("K", 2) == "mafia"
    everyone_but = {label: "M" for label in t.labels if label not in ("M", "C", "J")}
    t.day(votes={**everyone_but, "M": "C", "C": "M"}, finals={"C": "M"}, execute="M")
    day2 = [
        e
        for e in t.game.events
        if e.day == 2 and e.phase == "day" and e.visibility.scope == "public"
    ]
    kinds = [e.kind for e in day2]
    assert kinds.index("protected") > kinds.index("votes")
    assert t.events("protected", 2)[0]["seat"] == t["M"]
    assert t.alive("M") and "execution" not in {p["cause"] for p in t.events("death", 2)}
    assert len(t.events("votes", 2)) == 1  # no further vote that day
    assert t.events("reveal", 2) == [{"seat": t["J"], "role": "journalist"}]
    assert kinds.index("reveal") > kinds.index("protected")
    t.night({"D": "I", "S": "I", "X": "I", "Dr": "Dr", "L": "L", "Lv": "Lv"})
    t.day(execute="M")
    assert {"seat": t["M"], "cause": "execution", "role": "mafia"} in t.events("death", 3)


def test_s18_the_accused_are_the_top_group_widened_by_the_second_and_a_double_tie_spares_all():
    t = Table(EIGHT)
    t.day(
        votes={
            "M": "D",
            "K": "D",
            "Dr": "D",
            "D": "M",
            "Lv": "M",
            "C1": "K",
            "C2": "K",
            "C3": "Dr",
        },
        finals={
            "D": "M",
            "M": "D",
            "K": "D",
            "Dr": "D",
            "Lv": "D",
            "C1": "M",
            "C2": "M",
            "C3": "M",
        },
    )
    assert t.events("nominees", 1)[0]["seats"] == [t["D"], t["M"], t["K"]]
    assert t.events("runoff", 1)[0]["candidates"] == [t["D"], t["M"]]
    revote = [p["target"] for p in t.events("ballot", 1) if p["revote"]]
    assert len(revote) == 8 and set(revote) == {t["D"], t["M"]}  # K is out of the re-vote
    assert [p["kind"] for p in t.events("votes", 1)] == ["final_vote", "revote"]
    assert t.events("no_execution", 1) == [{"reason": "tie", "tied": [t["D"], t["M"]]}]
    assert t.dead() == set()
    defences = [p["seat"] for p in t.events("speech", 1) if p["kind"] == "defence"]
    assert defences == [t["D"], t["M"], t["K"]]  # most votes first, ties in voting order


def test_s18_two_players_tied_at_the_top_are_the_only_accused():
    t = Table(EIGHT)
    votes = {"M": "D", "K": "D", "Dr": "D", "C3": "D", "D": "M", "Lv": "M", "C1": "M", "C2": "M"}
    t.day(votes=votes, execute="D")
    assert t.events("nominees", 1)[0]["seats"] == [t["D"], t["M"]]


def test_s19_the_werewolf_joins_the_mafia_when_its_killers_are_gone():
    t = Table("D M W Sh K J C1 C2").tie_day("C1", "C2")
    t.night({"Sh": "D", "D": "C1", "K": "C2", "J": ["C2", "K"]})
    assert t.dead(2) == {"D", "C1"}
    t.day(execute="M")
    assert t.role("W") == "mafia"
    assert t.seen_by("W", "role_change") == [{"seat": t["W"], "role": "mafia", "faction": "mafia"}]
    assert not t.game.over  # mafia {W} against four others, with the sheriff alive
    request = t.until("W", "night:mafia_kill")
    assert request.info["step"] == "mafia_kill"
    t.night({"W": "C2", "Sh": "pass", "K": "W", "J": ["W", "C2"]})
    assert t.result("K", 3) == "mafia" and t.result("J", 3) == "different"
    t.day(execute="W")
    assert {"seat": t["W"], "cause": "execution", "role": "werewolf"} in t.events("death")


def test_s20_the_psychopath_activates_after_being_accused_and_kills_alone():
    t = Table("P D M K J Dr C1 C2 C3 C4").tie_day("C3", "C4")
    t.night({"K": "P", "J": ["P", "C1"], "D": "C4", "Dr": "C4"})
    assert t.result("K", 2) == "innocent" and t.result("J", 2) == "same"
    t.day(votes={"M": "P"}, execute="M")
    assert t.game.state.accused_today == {t["M"], t["P"]}
    assert t.role("P") == "active_psychopath"
    t.night({"P": "C2", "D": "C1", "Dr": "C1", "K": "P", "J": ["P", "C1"]})
    assert t.dead(3) == {"C2"}
    assert t.result("K", 3) == "innocent" and t.result("J", 3) == "different"
    t.day(execute="D")
    assert not t.game.over  # the active psychopath keeps the town from winning


def test_s21_the_deputy_inherits_the_doctors_role_and_state():
    t = Table("Dp Dr D M K C1 C2 C3", votes=False)
    t.night({"Dr": "C1", "D": "Dr", "K": "M"})
    assert t.dead(2) == {"Dr"} and t.role("Dp") == "doctor"
    change = t.seen_by("Dp", "role_change")[0]
    assert change["role"] == "doctor"
    # the heir is told the record that binds him before any mask shows it (issue 11, 5d)
    (record,) = change["inherited"]
    assert record["step"] == "doctor_heal" and record["last"] == t["C1"]
    assert record["last_night"] == 2 and record["uses"] == 1
    told = next(e for e in t.game.events if e.kind == "role_change")
    rendered = render_event(told, t["Dp"])
    assert rendered is not None
    assert f"last on P{t['C1'] + 1} (night 2)" in rendered
    request = t.until("Dp", "night:doctor_heal", {"K": "Dp"})
    assert Choice("target", t["C1"]) not in request.choices
    t.game.submit(t["Dp"], Choice("target", t["C2"]))
    t.night({"D": "Dp", "K": "Dp"})
    assert t.result("K", 3) == "innocent"
    t.day()
    assert {"seat": t["Dp"], "role": "deputy"} in t.events("reveal")


def test_s21_no_inheritance_from_a_civilian_or_an_execution():
    t = Table("Dp Dr D M K C1 C2 C3").tie_day("C2", "C3")
    t.night({"D": "C1", "Dr": "Dr", "K": "M"})
    assert t.dead(2) == {"C1"}
    t.day(execute="K")
    assert t.role("Dp") == "deputy"


def test_s22_the_sergeant_succeeds_before_the_deputy_inherits():
    t = Table("K Sg Dp D M Dr C1 C2 C3", votes=False)
    t.night({"D": "K", "Dr": "C1", "K": "M"})
    assert t.role("Sg") == "commissar" and t.role("Dp") == "deputy"
    t.day()
    assert {"seat": t["K"], "role": "commissar"} in t.events("reveal", 2)
    assert not [p for p in t.events("speech", 2) if p["seat"] == t["K"]]
    request = t.until("Sg", "night:commissar_check", {"D": "Dr", "Dr": "C2"})
    assert request.kind == "night:commissar_check"
    t.night({"D": "Dr", "Dr": "C2", "Sg": "M"})
    assert t.dead(3) == {"Dr"} and t.role("Dp") == "doctor"


def test_s23_the_cardsharp_copies_a_heal_a_check_and_nothing_from_a_civilian():
    t = Table("Cs Dr K D M C1 C2 C3 C4", votes=False)
    t.night({"Cs": ["Dr", "C1"], "D": "C1", "Dr": "C2", "K": "M"})
    assert t.result("Cs", 2, "copy") == "protect"
    assert t.alive("C1")
    usage = t.game.state.usage[(t["Dr"], "doctor_heal")]
    assert usage["counts"].get(t["C1"], 0) == 0
    t.night({"Cs": ["K", "D"], "D": "C3", "Dr": "C3", "K": "M"})
    assert t.result("Cs", 3, "copy") == "check" and t.result("Cs", 3, "check") == "innocent"
    t.night({"Cs": ["C3"], "D": "C4", "Dr": "C4", "K": "M"})
    assert t.blocked("Cs", 4) == ["cardsharp_copy"]
    assert not t.seen_by("Cs", "night_result", 4)


def test_s24_a_copied_theft_blocks_and_an_arrested_source_gives_nothing():
    t = Table("Cp T Cs Dr D M C1 C2 C3 C4", votes=False)
    t.night({"Cp": "C4", "T": "C3", "Cs": ["T", "Dr"], "D": "C1"})
    assert t.result("Cs", 2, "copy") == "steal"
    assert t.blocked("Dr", 2) == ["doctor_heal"] and t.dead(2) == {"C1"}
    t.night({"Cp": "T", "Cs": ["T"], "D": "C2", "Dr": "C2"})
    assert t.blocked("Cs", 3) == ["cardsharp_copy"]
    t.night({"Cp": "C3", "T": "C4", "Cs": ["Cp", "C2"], "D": "C2", "Dr": "Dr"})
    assert t.result("Cs", 4, "copy") == "arrest" and t.alive("C2")


def test_s25_a_copied_shot_at_the_kamikaze_costs_the_cardsharp_his_life():
    t = Table("Cs Sh Kz D M C1 C2 C3", votes=False)
    t.night({"Cs": ["Sh", "Kz"], "Sh": "pass", "D": "C1"})
    assert t.dead(2) == {"Kz", "Cs", "C1"} and t.alive("Sh")


def test_s26_the_don_decides_the_clan_kill_and_blocked_members_stay_out():
    t = Table("D M1 M2 T C1 C2 C3 C4 C5 C6", votes=False)
    t.night({"D": "C1", "M1": "C2", "M2": "C2", "T": "C6"})
    assert t.dead(2) == {"C1"}
    t.night({"T": "D", "M1": "C3", "M2": "C4"})
    assert t.blocked("D", 3) == ["mafia_kill"]
    assert len(t.dead(3)) == 1 and t.dead(3) <= {"C3", "C4"}


def test_s26_an_arrested_don_and_a_robbed_mafioso_make_no_kill():
    t = Table("D M Cp T C1 C2 C3 C4", votes=False)
    t.night({"Cp": "D", "T": "M"})
    assert t.dead(2) == set()
    assert t.blocked("D", 2) == ["mafia_kill"] and t.blocked("M", 2) == ["mafia_kill"]


def test_s30_night_victims_show_their_cards_after_the_vote_and_the_commissar_is_silent():
    t = Table(EIGHT).tie_day("C1", "C3")
    t.night({"D": "K", "Lv": "C1", "Dr": "Dr"})
    assert t.events("death", 2) == [{"seat": t["K"], "cause": "night"}]  # no role
    assert t.events("silenced", 2) == [{"seats": [t["C1"]]}]
    t.day(execute="C2")
    public = [
        (e.kind, e.fact.to_payload())
        for e in t.game.events
        if e.day == 2 and e.phase == "day" and e.kind in ("death", "reveal", "speech")
    ]
    after_vote = public[[k for k, _ in public].index("death", 1) :]
    assert after_vote[0] == ("death", {"seat": t["C2"], "cause": "execution", "role": "civilian"})
    assert after_vote[1][0] == "speech" and after_vote[1][1]["kind"] == "last_word"
    assert after_vote[1][1]["seat"] == t["C2"]
    assert after_vote[2] == ("reveal", {"seat": t["K"], "role": "commissar"})
    assert len(after_vote) == 3  # no last word for the commissar
    secret = {"night_action", "night_result", "blocked", "group_picks"}
    assert not [e for e in t.game.events if e.kind in secret and e.visibility.scope == "public"]


@pytest.mark.parametrize("seed", range(3))
def test_s5_the_clan_member_who_dies_for_the_kamikaze_is_drawn_and_logged(seed):
    t = Table("D M Kz Dr C1 C2 C3 C4", seed=seed, votes=False)
    t.night({"D": "Kz", "Dr": "C1"})
    draws = [
        e.fact.to_payload()
        for e in t.game.events
        if e.kind == "rng" and e.fact.to_payload()["purpose"].startswith("retaliation")
    ]
    assert len(draws) == 1 and t.dead(2) == {"Kz", t.label(draws[0]["result"])}
