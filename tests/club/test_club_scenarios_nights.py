"""club.md section 9, scenarios S1-S15: night one, saves, limits, blocks and answers.

Each test is one scenario, named after the rule it proves; actions are on night 2 unless
the scenario says otherwise. Labels follow the spec (D don, M mafia, K commissar, ...).
"""

import pytest
from tests.club.club_table import Table

from mafia_arena.engine import Choice, IllegalDecision

EIGHT = "D M K Dr Lv C1 C2 C3"


def public_kinds(t: Table, day: int, phase: str) -> set[str]:
    return {
        e.kind
        for e in t.game.events
        if e.visibility.scope == "public" and e.day == day and e.phase == phase
    }


def test_s1_night_one_only_introduces_the_roles_and_the_clan_learns_its_don():
    t = Table(EIGHT)
    assert not [e for e in t.game.events if e.kind == "decision"]
    request = t.game.request(t["D"])
    assert request is not None
    assert request.kind == "speak"  # day 1 opens with introductions
    assert t.seen_by("D", "allies") == [{"seat": t["D"], "allies": {str(t["M"]): "mafia"}}]
    assert t.seen_by("M", "allies") == [{"seat": t["M"], "allies": {str(t["D"]): "don"}}]
    for label in ("K", "Dr", "Lv", "C1", "C2", "C3"):
        assert all(not p["allies"] for p in t.seen_by(label, "allies"))
    # no deaths, no silence, no "nobody died": only the theme of the introductions (3.2)
    assert public_kinds(t, 1, "day") == {"phase", "narration"}
    assert [p["step"] for p in t.events("narration", 1) if p["step"] != "introductions"] == [
        "introduction_theme"
    ]
    t.day(execute="C3")
    assert [p["kind"] for p in t.events("speech", 1)].count("introductions") == 8
    assert t.dead(1) == {"C3"}


def test_s2_the_doctor_saves_the_mafia_target_silently():
    t = Table(EIGHT).tie_day("C1", "C3")
    t.night({"D": "C1", "M": "C1", "Dr": "C1", "Lv": "C2", "K": "M"})
    assert t.result("K", 2) == "mafia"
    assert t.dead() == set()
    assert public_kinds(t, 2, "day") == {"phase", "no_death", "silenced"}
    assert t.events("silenced", 2) == [{"seats": [t["C2"]]}]
    t.day(execute="C3")
    asked = {(p["seat"], p["kind"]) for p in t.events("decision", 2)}
    assert (t["C2"], "nominate") not in asked and (t["C2"], "final_vote") not in asked
    assert all(p["target"] != t["C2"] for p in t.events("nomination", 2))


def _heal_night(t: Table, target: str, illegal: list[str], lover: str) -> None:
    request = t.until("Dr", "night:doctor_heal", {"Lv": lover, "K": "M"})
    for label in illegal:
        assert Choice("target", t[label]) not in request.choices
        with pytest.raises(IllegalDecision):
            t.game.submit(t["Dr"], Choice("target", t[label]))
    t.game.submit(t["Dr"], Choice("target", t[target]))
    t.night({"D": target, "M": target})  # the mafia attack the healed player: no deaths


def test_s3_the_doctor_heals_a_player_at_most_twice_and_never_twice_in_a_row():
    t = Table(EIGHT, votes=False)
    _heal_night(t, "C1", [], lover="Lv")
    _heal_night(t, "Dr", ["C1"], lover="C2")
    _heal_night(t, "C1", [], lover="Lv")
    _heal_night(t, "Dr", ["C1"], lover="C3")
    request = t.until("Dr", "night:doctor_heal", {"Lv": "C2"})
    assert Choice("target", t["C1"]) not in request.choices
    assert Choice("target", t["Dr"]) not in request.choices
    assert {t.label(c.target) for c in request.choices} == {"D", "M", "K", "Lv", "C2", "C3"}
    assert t.dead() == set()


def test_s3_a_robbed_night_excludes_nobody_on_the_next_night():
    t = Table("T D M K Dr Lv C1 C2 C3", votes=False)
    t.night({"T": "C2", "Dr": "C1", "D": "C1", "K": "M"})
    t.night({"T": "Dr", "D": "C2", "K": "M"})
    assert t.blocked("Dr", 3) == ["doctor_heal"]
    assert not [p for p in t.seen_by("Dr", "night_action", 3)]
    request = t.until("Dr", "night:doctor_heal", {"T": "C3"})
    assert Choice("target", t["C1"]) in request.choices


def test_s4_the_immortal_survives_the_night_and_dies_only_by_execution():
    t = Table("D M1 M2 X I K Dr C1 C2 C3").tie_day("C2", "C3")
    t.night({"D": "I", "X": "I", "Dr": "C1"})
    assert t.dead() == set() and t.alive("I")
    t.day(execute="I")
    assert t.events("death", 2) == [{"seat": t["I"], "cause": "execution", "role": "immortal"}]
    last = [p for p in t.events("speech", 2) if p["kind"] == "last_word"]
    assert [p["seat"] for p in last] == [t["I"]]


def test_s5_kamikaze_retaliation_takes_every_lone_attacker_and_one_of_each_clan():
    t = Table("D M L S Y F X Kz Sw Dr C1 C2", votes=False)
    t.night({"D": "Kz", "S": "Kz", "X": "Kz", "Dr": "C1", "Sw": "Kz"})
    assert sorted(t.result("Sw", 2)) == sorted(t[x] for x in ("D", "M", "S", "Y", "X"))
    dead = t.dead(2)
    assert {"Kz", "X"} <= dead and len(dead) == 4
    assert len(dead & {"D", "M"}) == 1 and len(dead & {"S", "Y"}) == 1
    assert t.alive("L") and t.alive("F")


@pytest.mark.parametrize("case", ["healed", "executed", "arrested"])
def test_s6_no_retaliation_when_the_kamikaze_survives_or_dies_by_day(case):
    t = Table("D M Kz Dr Cp C1 C2 C3", votes=case == "executed")
    if case == "healed":
        t.night({"D": "Kz", "Dr": "Kz", "Cp": "C1"})
        assert t.dead() == set()
    elif case == "executed":
        t.tie_day("C1", "C2").night({"D": "C3", "Dr": "C3", "Cp": "C1"}).day(execute="Kz")
        assert t.dead() == {"Kz"}
    else:
        t.night({"D": "C1", "Dr": "C1", "Cp": "C2"})
        t.night({"D": "Kz", "Dr": "Dr", "Cp": "Kz"})
        assert t.dead() == set()


def test_s7_the_thief_steals_the_commissar_check_in_silence():
    t = Table("T K Sg D M Dr C1 C2 C3 C4", votes=False)
    t.night({"T": "K", "D": "C1", "Dr": "C2"})
    assert "commissar_check" in [p["step"] for p in t.events("narration", 2)]
    assert t.blocked("K", 2) == ["commissar_check"] and t.blocked("Sg", 2) == ["commissar_check"]
    assert not t.seen_by("K", "night_result", 2) and not t.seen_by("Sg", "night_result", 2)
    assert public_kinds(t, 2, "day") == {"phase", "death"}
    assert t.dead(2) == {"C1"}


def test_s8_theft_gives_no_protection_and_an_actionless_victim_never_learns_of_it():
    t = Table("T K Sg D M Dr C1 C2 C3 C4", votes=False)
    t.night({"T": "Dr", "D": "C1", "K": "M"})
    assert t.blocked("Dr", 2) == ["doctor_heal"]
    assert t.dead(2) == {"C1"}
    t.night({"T": "C2", "D": "C2", "Dr": "Dr", "K": "M"})
    assert t.dead(3) == {"C2"}
    assert not t.seen_by("C2", "blocked")


def test_s9_the_captains_arrest_voids_actions_on_and_of_the_arrested():
    t = Table("Cp T D M K Dr C1 C2 C3 C4", votes=False)
    t.night({"Cp": "C1", "T": "C4", "D": "C1", "K": "C1", "Dr": "C2"})
    assert t.alive("C1") and t.result("K", 2) == "no result"
    assert public_kinds(t, 2, "day") == {"phase", "no_death"}
    t.night({"Cp": "D", "T": "M", "K": "D", "Dr": "C3"})
    assert t.blocked("D", 3) == ["mafia_kill"] and t.blocked("M", 3) == ["mafia_kill"]
    assert t.result("K", 3) == "no result" and t.dead() == set()
    t.night({"Cp": "T", "D": "C2", "K": "M", "Dr": "C2"})
    assert t.blocked("T", 4) == ["thief_steal"]
    assert t.result("K", 4) == "mafia"


SIXTEEN = "D M L S Y F X K Sg Dr Lv Sh J I W C"


def test_s10_a_framed_civilian_checks_as_mafia_that_night_only():
    t = Table(SIXTEEN, votes=False)
    attack_lv = {"D": "Lv", "S": "Lv", "X": "Lv", "Dr": "Lv"}
    t.night({**attack_lv, "F": "C", "K": "C", "J": ["C", "Y"]})
    assert t.result("K", 2) == "mafia" and t.result("Sg", 2) == "mafia"
    assert t.result("J", 2) == "different"
    t.night({"D": "I", "S": "I", "X": "I", "F": "Lv", "K": "C", "J": ["C", "Dr"]})
    assert t.result("K", 3) == "innocent"
    assert t.dead() == set()


def test_s12_the_journalist_may_not_compare_himself():
    t = Table("J D M K Dr Lv C1 C2", votes=False)
    first = t.until("J", "night:journalist_compare", {"D": "C1"})
    assert Choice("target", t["J"]) not in first.choices
    t.game.submit(t["J"], Choice("target", t["C1"]))
    second = t.game.request(t["J"])
    assert second is not None
    assert {t.label(c.target) for c in second.choices} == {"D", "M", "K", "Dr", "Lv", "C2"}


def test_s13_the_detective_interacts_with_each_player_once():
    t = Table("Dt D M Dr K C1 C2 C3 C4", votes=False)
    t.night({"Dt": "check:M", "D": "C4", "Dr": "C4"})
    assert t.result("Dt", 2) == "mafia"
    request = t.until("Dt", "night:detective_act", {"D": "C1", "Dr": "C1"})
    assert Choice("check", t["M"]) not in request.choices
    assert Choice("kill", t["M"]) not in request.choices
    t.game.submit(t["Dt"], Choice("kill", t["C1"]))
    t.night({"D": "C1", "Dr": "C1"})
    assert t.alive("C1")
    request = t.until("Dt", "night:detective_act", {"D": "C2", "Dr": "C2"})
    targets = {c.target for c in request.choices}
    assert not targets & {t["C1"], t["M"], t["Dt"]}


def test_s13_an_interaction_with_an_arrested_player_is_void_but_counts():
    t = Table("Dt Cp D M Dr K C1 C2 C3", votes=False)
    t.night({"Cp": "C1", "Dt": "kill:C1", "D": "C2", "Dr": "C2"})
    assert t.alive("C1")
    request = t.until("Dt", "night:detective_act", {"Cp": "C3", "D": "C2", "Dr": "Dr"})
    assert not {c.target for c in request.choices} & {t["C1"]}


def test_s14_the_sheriff_may_decline_or_shoot():
    t = Table("Sh D M C1 C2 C3 C4 C5", votes=False)
    t.night({"Sh": "pass", "D": "C1"})
    assert t.dead(2) == {"C1"}
    t.night({"Sh": "C2", "D": "C3"})
    assert t.dead(3) == {"C2", "C3"}
    assert {p["seat"] for p in t.events("death", 3)} == {t["C2"], t["C3"]}


def test_s15_the_sleepwalker_sees_every_attacker_of_the_night_without_roles():
    t = Table("D M X Sh Dr Sw C1 C2 C3 C4", votes=False)
    t.night({"D": "C1", "X": "C1", "Sh": "C1", "Dr": "C1", "Sw": "C1"})
    assert t.alive("C1")
    assert sorted(t.result("Sw", 2)) == sorted(t[x] for x in ("D", "M", "X", "Sh"))
    t.night({"D": "C3", "X": "C3", "Sh": "pass", "Dr": "C3", "Sw": "C2"})
    assert t.result("Sw", 3) == []


def test_s15_an_arrested_watch_target_gives_no_result():
    t = Table("Cp Sw D M Dr K C1 C2 C3", votes=False)
    t.night({"Cp": "C1", "Sw": "C1", "D": "C1", "Dr": "C2"})
    assert t.result("Sw", 2) == "no result"


def test_s1_to_s15_use_the_exact_night_order_of_the_spec():
    from mafia_arena.rules import load_variant

    order = [step.name for step in load_variant("club").night]
    assert order == [
        "captain_arrest",
        "thief_steal",
        "framer_frame",
        "cardsharp_copy",
        "lawyer_defend",
        "lover_seduce",
        "doctor_heal",
        "mafia_kill",
        "yakuza_kill",
        "maniac_kill",
        "psychopath_kill",
        "sheriff_shoot",
        "detective_act",
        "commissar_check",
        "journalist_compare",
        "sleepwalker_watch",
    ]
