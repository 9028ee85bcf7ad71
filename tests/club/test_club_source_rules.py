"""Rules of club.md that no scenario of section 9 plays through: the vote with nobody left
to name (6.2 step 2), an arrest that voids the helpful effects aimed at the arrested
(4.5, D12), and a heal that saves a kamikaze's attacker from the retaliation (4.7 step
3, D15), and who sees each private event of a night (4.4, 5.19). Each test is named
after the rule it proves."""

from tests.club.club_table import Table


def test_6_2_with_nobody_left_to_name_there_is_no_vote_and_no_execution():
    # day 2: the sheriff and the maniac are alive and the maniac is silenced, so the
    # sheriff is the only voter and has no candidate: no vote takes place
    t = Table("Lv X Sh D")
    t.day(execute="D")
    t.night({"Lv": "X", "X": "Lv", "Sh": "pass"})
    assert t.dead(2) == {"Lv"} and t.events("silenced", 2) == [{"seats": [t["X"]]}]
    assert not t.game.over  # the sheriff is a killer: the maniac has not won
    t.day()
    assert t.events("nomination", 2) == [] and t.events("votes", 2) == []
    assert t.events("no_execution", 2) == [{"reason": "no candidates"}]
    assert t.alive("X") and t.alive("Sh")
    last = [p["seat"] for p in t.events("speech", 2) if p["kind"] == "last_word"]
    assert last == [t["Lv"]]  # the night victim still speaks after the (empty) vote
    assert t.game.state.phase == "night" and t.game.state.day == 3


def test_d12_an_arrest_voids_the_lawyers_protection_and_the_lovers_seduction():
    t = Table("Cp L D M K Dr Lv C1 C2 C3").tie_day("C2", "C3")
    t.night({"Cp": "M", "L": "M", "Lv": "M", "D": "C1", "Dr": "Dr", "K": "C2"})
    assert t.dead(2) == {"C1"}
    assert t.events("silenced", 2) == []  # the seduction of the arrested is void
    assert t.seen_by("L", "night_action", 2)  # the choice was made ...
    t.day(execute="M")
    assert t.events("protected", 2) == []  # ... but protects nobody
    assert {"seat": t["M"], "cause": "execution", "role": "mafia"} in t.events("death", 2)


def test_4_7_a_healed_attacker_survives_the_kamikazes_retaliation():
    t = Table("X Kz Dr D M C1 C2 C3", votes=False)
    t.night({"X": "Kz", "Dr": "X", "D": "C1"})
    assert t.dead(2) == {"Kz", "C1"} and t.alive("X")
    assert [p for p in t.events("trigger") if p["trait"] == "retaliates"] == []


def test_4_4_each_night_event_reaches_exactly_the_players_awake_for_it():
    # 4.4 and 5.19: the lawyer wakes apart from the clan after night 1; a robbed
    # mafioso is sent back to sleep; the sergeant sees the commissar's answer
    t = Table("D M1 M2 L T K Sg Dr C1 C2", votes=False)
    t.night({"T": "M2", "L": "L", "Dr": "Dr", "D": "C1", "M1": "C2", "K": "M1"})
    audiences = {
        (e.kind, e.fact.to_payload().get("step")): {t.label(s) for s in e.visibility.seats}
        for e in t.game.events
        if e.day == 2 and e.phase == "night" and e.visibility.scope == "seats"
    }
    assert audiences == {
        ("night_action", "thief_steal"): {"T"},
        ("night_action", "lawyer_defend"): {"L"},
        ("night_action", "doctor_heal"): {"Dr"},
        ("blocked", "mafia_kill"): {"M2"},
        ("group_picks", "mafia_kill"): {"D", "M1"},
        ("night_action", "mafia_kill"): {"D", "M1"},
        ("night_action", "commissar_check"): {"K"},
        ("night_result", "commissar_check"): {"K", "Sg"},
    }
    assert t.dead(2) == {"C1"}  # the don's pick, with M1 alone beside him
