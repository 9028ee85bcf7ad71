"""One test (at least) per club role, each named after the rule of club.md section 5 it
proves; the scenario files cover the rest."""

import random

from tests.club.club_table import Table

from mafia_arena.engine import PASS, Choice, Game
from mafia_arena.engine.win import outcome
from mafia_arena.rules import load_variant


def choices_of(request) -> set[int]:
    return {c.target for c in request.choices if c.target is not None}


def test_civilian_never_wakes_at_night():
    game = Game(load_variant("club"), 26, seed=5)
    rng = random.Random(5)
    while not game.over:
        for seat, request in sorted(game.pending().items()):
            assert not (
                request.kind.startswith("night:") and game.state.seats[seat].card == "civilian"
            )
            game.submit(seat, rng.choice(request.choices))


def test_mafia_clan_may_not_target_its_own_team_lawyer_included():
    t = Table("D M L K Dr C1 C2 C3", votes=False)
    request = t.until("M", "night:mafia_kill", {"D": "C1"})
    assert choices_of(request) == {t[x] for x in ("K", "Dr", "C1", "C2", "C3")}


def test_don_absent_the_majority_of_the_participants_decides():
    t = Table("D M1 M2 Cp Dr C1 C2 C3", votes=False)
    t.night({"Cp": "D", "M1": "C1", "M2": "C1", "Dr": "Dr"})
    assert t.dead(2) == {"C1"}


def test_commissar_may_recheck_a_player_but_never_himself():
    t = Table("K D M Dr C1 C2 C3 C4", votes=False)
    t.night({"K": "M", "D": "C1", "Dr": "C1"})
    request = t.until("K", "night:commissar_check", {"D": "C2", "Dr": "C2"})
    assert t["M"] in choices_of(request) and t["K"] not in choices_of(request)


def test_maniac_knows_nobody_and_nobody_knows_him():
    t = Table("D M1 M2 X K Dr Lv C1 C2 C3", votes=False)
    assert not t.seen_by("X", "allies")
    assert all(str(t["X"]) not in p["allies"] for p in t.events("allies"))


def test_doctor_may_heal_himself_and_a_heal_does_not_cancel_a_check():
    t = Table("D M K Dr C1 C2 C3 C4", votes=False)
    t.night({"Dr": "Dr", "D": "Dr", "K": "Dr"})
    assert t.alive("Dr") and t.result("K", 2) == "innocent"


def test_lover_target_killed_that_night_is_announced_only_dead_and_still_speaks():
    t = Table("D M K Dr Lv C1 C2 C3").tie_day("C2", "C3")
    t.night({"Lv": "C1", "D": "C1", "Dr": "Dr", "K": "M"})
    assert t.dead(2) == {"C1"} and not t.events("silenced", 2)
    t.day(execute="C3")
    last = [p["seat"] for p in t.events("speech", 2) if p["kind"] == "last_word"]
    assert last == [t["C3"], t["C1"]]


def test_immortal_survives_every_attack_of_a_night():
    t = Table("D M X Sh I K Dr C1 C2 C3", votes=False)
    t.night({"D": "I", "X": "I", "Sh": "I", "Dr": "C1"})
    assert t.alive("I") and t.dead() == set()
    assert {"trait": "night_immune", "seat": t["I"]} in t.events("trigger")


def test_werewolf_becomes_mafia_when_both_clans_fall_at_once():
    t = Table("D S W Sh Dt C1 C2 C3 C4", votes=False)
    t.night({"Sh": "D", "Dt": "kill:S", "D": "C1", "S": "C2"})
    assert {"D", "S"} <= t.dead(2)
    assert t.role("W") == "mafia" and not t.game.over


def test_sergeant_observes_the_check_unless_robbed_and_succeeds_an_executed_commissar():
    t = Table("T K Sg D M Dr C1 C2 C3 C4").tie_day("C3", "C4")
    t.night({"T": "C1", "K": "M", "D": "C1", "Dr": "C1"})
    assert t.result("Sg", 2) == "mafia"
    t.tie_day("C3", "C4")
    t.night({"T": "Sg", "K": "D", "D": "C2", "Dr": "C2"})
    assert t.result("K", 3) == "innocent" and not t.seen_by("Sg", "night_result", 3)
    assert t.blocked("Sg", 3) == ["commissar_check"]
    t.day(execute="K")
    assert t.role("Sg") == "commissar"


def test_detective_is_a_killer_so_a_clan_at_parity_plays_on():
    t = Table("D M Dt C1", votes=False)
    assert outcome(t.game) is None


def test_sheriff_may_decline_but_never_shoot_himself():
    t = Table("Sh D M Dr C1 C2 C3 C4", votes=False)
    request = t.until("Sh", "night:sheriff_shoot", {"D": "C1", "Dr": "C1"})
    assert PASS in request.choices and t["Sh"] not in choices_of(request)


def test_sleepwalker_does_not_see_retaliation():
    t = Table("D M Kz Sw Dr C1 C2 C3", votes=False)
    t.night({"D": "Kz", "Sw": "D", "Dr": "C1"})
    assert "Kz" in t.dead(2) and t.result("Sw", 2) == []


def test_journalist_answer_is_private_and_two_town_players_are_the_same():
    t = Table("J D M K Dr C1 C2 C3", votes=False)
    t.night({"J": ["C1", "C2"], "D": "C3", "Dr": "C3", "K": "M"})
    assert t.result("J", 2) == "same"
    assert [
        e.visibility.seats
        for e in t.game.events
        if e.kind == "night_result" and e.fact.to_payload()["action"] == "compare"
    ] == [frozenset({t["J"]})]


def test_cardsharp_copied_compare_takes_two_targets():
    t = Table("Cs J D M K Dr C1 C2 C3", votes=False)
    t.night({"Cs": ["J", "D", "M"], "J": ["C1", "C2"], "D": "C3", "Dr": "C3", "K": "M"})
    assert t.result("Cs", 2, "copy") == "compare" and t.result("Cs", 2, "compare") == "same"


def test_cardsharp_copied_watch_is_answered_at_dawn_with_the_whole_night():
    t = Table("Cs Sw D M K Dr C1 C2 C3", votes=False)
    t.night({"Cs": ["Sw", "C1"], "Sw": "C2", "D": "C1", "Dr": "Dr", "K": "M"})
    assert t.result("Cs", 2, "watch") == sorted([t["D"], t["M"]])


def test_kamikaze_retaliation_takes_the_leader_when_the_switch_says_so():
    t = Table("D M Kz Dr C1 C2 C3 C4", votes=False, retaliation="leader")
    t.night({"D": "Kz", "Dr": "C1"})
    assert t.dead(2) == {"Kz", "D"}


def test_thief_robbing_the_captain_changes_nothing():
    t = Table("Cp T D M K Dr C1 C2 C3 C4", votes=False)
    t.night({"Cp": "C1", "T": "Cp", "D": "C1", "Dr": "C2", "K": "M"})
    assert t.alive("C1") and not t.blocked("Cp", 2)


def test_captain_may_arrest_the_same_player_again_but_never_himself():
    t = Table("Cp D M K Dr C1 C2 C3", votes=False)
    t.night({"Cp": "C1", "D": "C2", "Dr": "C2", "K": "M"})
    request = t.until("Cp", "night:captain_arrest")
    assert t["C1"] in choices_of(request) and t["Cp"] not in choices_of(request)


def test_lawyer_meets_the_mafia_on_night_one_and_may_protect_himself():
    t = Table("D M L K Dr C1 C2 C3", votes=False)
    assert t.seen_by("L", "allies")[0]["allies"] == {str(t["D"]): "don", str(t["M"]): "mafia"}
    assert t.seen_by("D", "allies")[0]["allies"][str(t["L"])] == "lawyer"
    request = t.until("L", "night:lawyer_defend")
    assert t["L"] in choices_of(request)


def test_yakuza_clan_spares_the_framer_and_the_sensei_decides():
    t = Table("S Y F K Dr C1 C2 C3", votes=False)
    request = t.until("Y", "night:yakuza_kill", {"S": "C1", "F": "C3"})
    assert not choices_of(request) & {t["S"], t["Y"], t["F"]}
    t.game.submit(t["Y"], Choice("target", t["C2"]))
    t.night({"S": "C1", "Dr": "Dr", "K": "Y"})
    assert t.dead(2) == {"C1"}


def test_sensei_checks_innocent_unless_framed():
    t = Table("S Y F K Dr C1 C2 C3", votes=False)
    t.night({"F": "C1", "K": "S", "S": "C2", "Dr": "C2"})
    assert t.result("K", 2) == "innocent"
    t.night({"F": "S", "K": "S", "S": "C3", "Dr": "C3"})
    assert t.result("K", 3) == "mafia"


def test_framer_meets_the_yakuza_and_checks_as_mafia():
    t = Table("S Y F K Dr C1 C2 C3", votes=False)
    assert t.seen_by("F", "allies")[0]["allies"] == {str(t["S"]): "sensei", str(t["Y"]): "yakuza"}
    t.night({"F": "C1", "K": "F", "S": "C2", "Dr": "C2"})
    assert t.result("K", 2) == "mafia"


def test_psychopath_saved_by_the_lawyer_still_activates():
    t = Table("P D L M K Dr C1 C2 C3 C4").tie_day("C3", "C4")
    t.night({"L": "P", "D": "C1", "Dr": "C1", "K": "M"})
    t.day(votes={"P": "M"}, execute="P")
    assert t.events("protected", 2)[0]["seat"] == t["P"]
    assert t.role("P") == "active_psychopath"
    assert t.seen_by("P", "role_change")[-1]["faction"] == "psychopath"


def test_psychopath_not_accused_stays_latent():
    t = Table("P D M K Dr C1 C2 C3").tie_day("C2", "C3")
    assert t.role("P") == "psychopath"


def test_deputy_who_inherits_a_clan_role_meets_the_clan_the_next_night():
    t = Table("Dp D M1 M2 Sh K Dr C1 C2 C3", votes=False)
    t.night({"Sh": "M1", "D": "C1", "Dr": "Dr", "K": "M2"})
    assert t.dead(2) == {"M1", "C1"} and t.role("Dp") == "mafia"
    assert not t.seen_by("Dp", "allies")
    request = t.until("Dp", "night:mafia_kill", {"D": "C2"})
    assert t.seen_by("Dp", "allies")[0]["allies"] == {str(t["D"]): "don", str(t["M2"]): "mafia"}
    assert {str(t["Dp"]): "mafia"} in [p["allies"] for p in t.seen_by("D", "allies")]
    assert t["D"] not in choices_of(request)
