"""One test per dictator role (rules/dictator.md 4): which forms it is offered when."""

from __future__ import annotations

from tests.dictator.table import C1, C2, C3, DET, DP1, MM, A, B, F, Q, R, T, Table, c, name

from mafia_arena.engine.catalogue import RoleChange, RoleDealt, StatusShown
from mafia_arena.seating import seat_agents
from mafia_arena.views.text import render_event
from mafia_arena.views.view import SeatTracker, View


def verbs(t: Table, seat: int) -> set[str]:
    request = t.game.pending().get(seat)
    assert request is not None
    return {choice.verb for choice in request.choices}


ROLE_FORMS = {"murder", "point", "mark", "passport", "protect", "query", "compare", "attack"}


def test_role_plain_citizen_has_no_special_form() -> None:
    t = Table().to("night", 2)
    assert verbs(t, C2) & ROLE_FORMS == set()
    assert "revolution" in verbs(t, C2)
    t.phase()
    assert verbs(t, C2) & (ROLE_FORMS | {"execute"}) == set()


def test_role_detective_queries_on_even_nights_only() -> None:
    t = Table().to("night", 1)
    assert "query" not in verbs(t, DET)
    t.phase().phase()
    assert "query" in verbs(t, DET)
    request = t.game.pending()[DET]
    assert c("query", DET) not in request.choices  # never himself


def test_role_matchmaker_compares_two_others_on_odd_nights() -> None:
    t = Table().to("night", 1)
    pairs = [x for x in t.game.pending()[MM].choices if x.verb == "compare"]
    assert pairs and all(MM not in (x.target, int(x.value or -1)) for x in pairs)
    t.phase().phase()
    assert "compare" not in verbs(t, MM)


def test_role_guardian_angel_may_protect_himself() -> None:
    t = Table().to("night", 1)
    assert c("protect", A) in t.game.pending()[A].choices


def test_role_dark_past_is_told_he_is_a_plain_citizen() -> None:
    t = Table()
    dealt = [f for f in t.seen(DP1) if isinstance(f, RoleDealt)]
    assert [(f.role, f.faction) for f in dealt] == [("citizen", "citizens")]
    assert t.game.state.seats[DP1].flags["dark_past"]


def test_role_question_mark_points_only_in_night_0() -> None:
    t = Table()
    assert "copy_status" in verbs(t, Q)
    t.phase().phase()
    assert "copy_status" not in verbs(t, Q)


def test_role_question_mark_is_told_no_party_until_his_copy() -> None:
    """OP-D14: no party line, so his dealt role carries no faction; he learns the copied
    party with the status message on Day 2."""
    t = Table()
    dealt = [f for f in t.seen(Q) if isinstance(f, RoleDealt)]
    assert [(f.role, f.faction) for f in dealt] == [("question_mark", None)]
    line = render_event(next(e for e in t.game.stream(Q).pull() if e.fact in dealt))
    assert line == f"You are {name(Q)}; your role is question_mark (your party is not told)."
    t.act(Q, c("copy_status", R)).to("day", 1)
    tracker = SeatTracker(Q)
    assert tracker.update(t.game).faction is None
    t.phase().phase()
    changes = [f for f in t.seen(Q) if isinstance(f, RoleChange)]
    assert [(f.role, f.faction) for f in changes] == [("character_assassin", "mafia")]
    assert tracker.update(t.game).faction == "mafia"


def test_role_mafia_boss_holds_the_kill_authority_and_points_from_night_0() -> None:
    t = Table()
    assert {"point", "successor", "transfer"} <= verbs(t, B) and "murder" not in verbs(t, B)
    t.to("night", 1)
    assert {"murder", "point"} <= verbs(t, B)
    assert "murder" not in verbs(t, R) and "murder" not in verbs(t, F)


def test_4_6_a_boss_who_takes_office_keeps_the_disguise_he_pointed_before() -> None:
    """4.6, "While dictator": he can no longer point, "and his last pointing made before
    taking office stays valid". B points at MM in Night 0 and is elected; killed by the
    terrorist on Day 2 (an elimination that reveals, 3.7), he is shown as MM's status."""
    t = Table()
    t.night0_defaults = False
    for seat in range(18):
        t.act(seat, c("ballot", B))
    t.act(B, c("point", MM)).act(Q, c("copy_status", C3)).phase()
    assert t.game.derived["forum"].dictator == B
    t.to("day", 2).act(T, c("attack", B)).phase()
    assert not t.alive(B)
    shown = [f.status for f in t.facts(StatusShown) if f.seat == B]
    assert shown == ["Bürger – Matchmaker"]


def test_role_character_assassin_marks_anyone_but_himself() -> None:
    t = Table().to("night", 1)
    request = t.game.pending()[R]
    assert c("mark", B) in request.choices and c("mark", R) not in request.choices


def test_role_forger_plants_passports_from_night_1() -> None:
    t = Table()
    assert "passport" not in verbs(t, F)
    t.to("night", 1)
    assert c("passport", B) in t.game.pending()[F].choices


def test_4_8_a_forged_passport_does_not_hide_the_status_of_an_attack_victim() -> None:
    """4.8: the passport is valid only for the execution on Day n+1 and "has no effect on
    the murder, the terrorist attack, deposition or jail"; 3.7 step 4: the victim is
    revealed by 4.13, "attack variant (no passport effect)". F plants a passport on C2 in
    Night 1; the terrorist takes C2 with him on Day 2: C2 shows "Bürger", not "Status
    unbekannt"."""
    t = Table().to("night", 1)
    t.act(F, c("passport", C2)).phase()
    t.act(T, c("attack", C2)).phase()
    assert not t.alive(C2)
    shown = [f.status for f in t.facts(StatusShown) if f.seat == C2]
    assert shown == ["Bürger"]


def test_role_terrorist_attacks_by_day_and_has_no_night_form() -> None:
    t = Table().to("night", 1)
    assert verbs(t, T) & ROLE_FORMS == set()
    t.phase()
    assert "attack" in verbs(t, T)
    t.act(T, c("attack", C3)).phase()
    assert [f.status for f in t.facts(StatusShown) if f.seat == T] == ["Mafia – Terrorist"]


def test_role_dictator_orders_executions_and_loses_his_role() -> None:
    t = Table()
    t.night0_defaults = False
    for seat in range(18):
        t.act(seat, c("ballot", MM))
    t.act(Q, c("copy_status", C1)).phase()
    assert "execute" in verbs(t, MM)
    t.phase()
    assert "compare" not in verbs(t, MM) and "revolution" not in verbs(t, MM)
    assert "revolution" in verbs(t, C2)


def heirs(t: Table, seat: int) -> dict[str, set[int]]:
    """The seats `seat` is offered as successor and as recipient of the authority."""
    request = t.game.pending()[seat]
    return {
        verb: {x.target for x in request.choices if x.verb == verb and x.target is not None}
        for verb in ("successor", "transfer")
    }


def test_role_authority_holder_is_offered_only_comrades_his_own_stream_named() -> None:
    """OP-D14: the mafia is never told of a question mark that copied one of them, so
    the holder's successor and transfer forms name only the comrades he was told; a
    copy who receives the authority names those his own list gave, and the comrade he
    hands it to learns him from the hand-over notice."""
    t = Table(seed=0).to("night", 0)
    t.act(Q, c("copy_status", R)).to("day", 1)
    assert heirs(t, B) == {"successor": {R, F}, "transfer": {R, F}}
    t.act(C1, c("execute", F)).to("day", 2)
    assert t.game.derived["forum"].comrades[Q] == {B, R}  # Day 2: his list names them
    assert heirs(t, B) == {"successor": {R}, "transfer": {R}}  # Q is informed, not named
    t.act(C1, c("execute", B)).phase()
    assert t.game.derived["forum"].authority == Q  # a random informed heir (4.6)
    t.phase()  # Night 2
    assert heirs(t, Q) == {"successor": {R}, "transfer": {R}}
    assert heirs(t, R) == {"successor": set(), "transfer": set()}  # not the holder
    t.act(Q, c("transfer", R)).phase()
    assert t.notices(R, "authority")[-1] == f"{name(Q)} handed you the kill authority."
    assert heirs(t, R) == {"successor": {Q}, "transfer": {Q}}


def test_role_question_mark_is_seated_by_the_side_he_was_dealt_to() -> None:
    """Seated by side (``town=...,mafia=...``), the question mark, told no party, plays
    for the side of his role's faction (the citizens') until he learns his copy."""
    t = Table()
    agents = seat_agents("town=heuristic,mafia=random", 18, t.game.variant)
    tracker = SeatTracker(Q)
    view = View(Q, t.game.variant, tracker.update(t.game), t.game.pending()[Q])
    assert agents[Q].delegate(view).name == "heuristic"  # type: ignore[attr-defined]
