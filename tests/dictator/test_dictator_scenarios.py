"""The scenario tests SD-1 … SD-20 of the dictator specification (rules/dictator.md 10)."""

from __future__ import annotations

from tests.dictator.table import (
    C1,
    C2,
    C3,
    C4,
    C5,
    C6,
    C7,
    C8,
    DET,
    DP1,
    DP2,
    MM,
    A,
    B,
    F,
    Q,
    R,
    T,
    Table,
    c,
    murder,
    name,
    status,
    texts,
    w,
)

from mafia_arena.engine import PUBLIC
from mafia_arena.engine.catalogue import (
    Allies,
    Death,
    DeliveredTestament,
    Disqualified,
    FormNoted,
    GameEnded,
    Narration,
    Newspaper,
    NoDeath,
    NoExecution,
    Office,
    PhaseStart,
    Setup,
    SpeechMade,
    StatusMessage,
    StatusShown,
    Trigger,
)
from mafia_arena.views import SeatTracker
from mafia_arena.views.text import render_event


def status_message(t: Table, seat: int) -> tuple[str, ...]:
    return [f for f in t.seen(seat) if isinstance(f, StatusMessage)][-1].lines


def transcript(t: Table, seat: int) -> str:
    return SeatTracker(seat).update(t.game).text()


# ----------------------------------------------------------------- SD-1
def test_SD_1_status_messages_and_night_0_restrictions() -> None:
    t = Table()
    assert status_message(t, DP1) == ("Du gehörst zu den Bürgern.",)
    assert status_message(t, B) == (
        "Du gehörst zur Mafia.",
        f"Du bist der Mafia-Boss. Deine Mitstreiter sind {name(R)}, {name(F)}.",
    )
    assert status_message(t, T) == ("Du gehörst zur Mafia.", "Du bist der Terrorist.")
    assert status_message(t, Q) == ("Du bist das Fragezeichen.",)
    assert status_message(t, DET) == (
        "Du gehörst zu den Bürgern.",
        "Du bist der Detektiv in der Stadt.",
    )
    t.refused(B, murder(C2))
    t.refused(DET, c("query", C2))
    t.refused(A, c("protect", C2))
    t.refused(C3, c("revolution", C2))
    t.act(B, c("point", MM)).act(C3, c("ballot", C2))
    t.phase()
    assert t.where == ("day", 1) and not t.refusals
    assert t.game.derived["forum"].pointing == {B: "Bürger – Matchmaker"}
    assert t.game.derived["forum"].dictator == C1  # C3's revised ballot is one of 18


# ----------------------------------------------------------------- SD-2
def test_SD_2_the_election_names_only_the_winner_and_ties_go_by_lot() -> None:
    winners = set()
    for seed in range(12):
        t = Table(seed=seed)
        t.night0_defaults = False
        for seat in range(7):
            t.act(seat, c("ballot", C1))
        for seat in range(7, 14):
            t.act(seat, c("ballot", C2))
        for seat in range(14, 18):
            t.act(seat, c("ballot", C3))
        t.act(Q, c("copy_status", C8))
        t.phase()
        office = t.facts(Office)
        assert len(office) == 1 and office[0].dictator in (C1, C2)
        assert office[0].text == f"{name(office[0].dictator)} is the dictator."
        winners.add(office[0].dictator)
        public = {type(e.fact) for e in t.game.events if e.visibility == PUBLIC}
        assert public == {Setup, PhaseStart, Office, Newspaper, SpeechMade}  # no counts
        for seat in range(18):  # a seat is told of its own ballot alone
            noted = [f for f in t.seen(seat) if isinstance(f, FormNoted) and f.form == "ballot"]
            assert len(noted) == 1, name(seat)
    assert winners == {C1, C2}


# ----------------------------------------------------------------- SD-3
def test_SD_3_the_dictator_orders_the_execution_and_may_revise_it() -> None:
    t = Table().to("day", 1)
    t.refused(C1, c("execute", C1))
    t.act(C1, c("execute", C5), c("execute", R)).phase()
    assert [f.seat for f in t.facts(Death)] == [R]
    assert status(t, R) == "Mafia – Rufmörder"
    quiet = Table().to("day", 1).phase()
    assert texts(quiet.facts(NoExecution), "reason") == ["Nobody was executed today."]


# ----------------------------------------------------------------- SD-4
def test_SD_4_the_dictator_cannot_be_murdered_but_the_terrorist_can_kill_him() -> None:
    t = Table().to("night", 1)
    t.act(B, murder(C1, "The dictator falls.")).phase()
    assert texts(t.last_phase_facts(NoDeath)) == ["Nobody was murdered tonight."]
    assert t.alive(C1)
    assert all("dictator falls" not in (f.manner or "") for f in t.facts(Death))
    t.act(C1, c("execute", C6)).act(T, c("attack", C1)).phase()
    assert not t.alive(C1) and not t.alive(T) and t.alive(C6)
    day = t.game.events[t.marks[-1] :]
    at = [i for i, e in enumerate(day) if isinstance(e.fact, (Death, NoExecution))]
    assert [type(day[i].fact) for i in at] == [Death, Death, NoExecution]  # at once, not at E1
    assert texts(t.last_phase_facts(Office)) == ["The office of dictator is vacant."]
    assert status(t, T) == "Mafia – Terrorist" and status(t, C1) == "Bürger"
    assert texts(t.last_phase_facts(NoExecution), "reason") == ["Nobody was executed today."]
    for seat in (B, R, F, DP1):
        t.act(seat, c("revolution", C2))
    for seat in (DET, MM, A):
        t.act(seat, c("revolution", C3))
    t.phase()
    assert t.game.derived["forum"].dictator == C2
    assert any(f.dictator == C2 for f in t.last_phase_facts(Office))
    t.act(C2, c("execute", C7)).phase()
    assert not t.alive(C7)


# ----------------------------------------------------------------- SD-5
def test_SD_5_the_terrorist_is_immune_invisible_and_learns_the_investigations() -> None:
    t = Table().to("night", 1)
    t.act(B, murder(T)).act(MM, c("compare", C2, C3)).phase()
    assert t.alive(T) and texts(t.last_phase_facts(NoDeath)) == ["Nobody was murdered tonight."]
    assert t.notices(T, "investigations") == [f"Matchmaker compared: {name(C2)} and {name(C3)}"]
    t.phase()  # day 2
    t.act(DET, c("query", T))
    t.refused(T, c("attack", C2))  # no attack at night
    t.phase()
    assert t.notices(DET, "result")[-1] == f"{name(T)} ist kein Mafioso."
    assert t.notices(T, "investigations")[-1] == f"Detective queried: {name(T)}"
    t.phase()  # day 3 ends: the deadline
    t.refused(T, c("attack", C2))


# ----------------------------------------------------------------- SD-6
def test_SD_6_a_revolution_needs_a_strict_majority_and_hides_the_status() -> None:
    t = Table().to("night", 1)
    for seat in range(9):
        t.act(seat, c("revolution", C3))
    t.phase()
    assert t.game.derived["forum"].dictator == C1
    assert not t.last_phase_facts(Office)
    t.phase()  # day 2
    for seat in range(6):
        t.act(seat, c("revolution", C3))
    for seat in range(6, 10):
        t.act(seat, c("revolution", C4))
    t.phase()
    office = t.last_phase_facts(Office)
    assert (
        office[0].text
        == f"Dictator {name(C1)} has been overthrown. The new dictator is {name(C3)}."
    )
    assert not t.alive(C1) and status(t, C1) is None


# ----------------------------------------------------------------- SD-7
def test_SD_7_a_revolution_candidate_murdered_the_same_night() -> None:
    t = Table().to("night", 1)
    for seat in range(6):
        t.act(seat, c("revolution", C3))
    for seat in range(6, 10):
        t.act(seat, c("revolution", C4))
    t.act(B, murder(C3)).phase()
    assert not t.alive(C3) and status(t, C3) == "Bürger"
    assert t.game.derived["forum"].dictator == C4
    v = Table().to("night", 1)
    for seat in range(10):
        v.act(seat, c("revolution", C3))
    v.act(B, murder(C3)).phase()
    assert v.game.derived["forum"].dictator is None
    assert not v.alive(C1)
    v.phase()
    assert texts(v.last_phase_facts(NoExecution), "reason") == ["Nobody was executed today."]
    for seat in (C5, C6, C7):
        v.act(seat, c("revolution", C5))
    v.act(C8, c("revolution", C6)).phase()
    assert v.game.derived["forum"].dictator == C5
    assert texts(v.last_phase_facts(Office)) == [f"{name(C5)} is the dictator."]


# ----------------------------------------------------------------- SD-8
def test_SD_8_the_guardian_angel_never_twice_in_a_row() -> None:
    t = Table().to("night", 1)
    t.act(A, c("protect", C2)).act(B, murder(C2)).phase()
    assert t.alive(C2) and not t.notices(A)
    t.phase()
    t.refused(A, c("protect", C2))
    t.act(A, c("protect", C3)).phase().phase()
    t.act(A, c("protect", C2)).phase()
    v = Table().to("night", 1)
    v.act(A, c("protect", C2)).phase().phase().phase().phase()
    v.act(A, c("protect", C2)).phase()
    assert not t.refusals and not v.refusals  # C3 in Night 2, C2 in Night 3: accepted
    s = Table().to("night", 1)
    s.act(A, c("protect", A)).act(B, murder(A)).phase()
    assert s.alive(A)


def test_SD_8_protection_stops_neither_an_execution_nor_an_attack() -> None:
    t = Table().to("night", 1)
    t.act(A, c("protect", C2)).phase()
    t.act(C1, c("execute", C2)).phase()
    assert not t.alive(C2)
    t.act(A, c("protect", C3)).phase()
    t.act(T, c("attack", C3)).phase()
    assert not t.alive(C3)


# ----------------------------------------------------------------- SD-9
def test_SD_9_investigation_parity_and_the_dictators_suspension() -> None:
    t = Table().to("night", 1)
    t.refused(DET, c("query", B))
    t.act(MM, c("compare", B, R)).phase()
    assert t.notices(MM, "result") == [f"{name(B)} und {name(R)} gehören zur gleichen Partei."]
    t.phase()
    t.refused(MM, c("compare", B, C2))
    t.act(DET, c("query", B)).act(B, c("point", C7)).phase()
    assert t.notices(DET, "result") == [f"{name(B)} ist Mafioso."]
    t.phase()
    t.refused(DET, c("query", B))
    t.act(MM, c("compare", B, C2)).phase()
    assert (
        t.notices(MM, "result")[-1]
        == f"{name(B)} und {name(C2)} gehören zu verschiedenen Parteien."
    )
    d = Table()
    d.night0_defaults = False
    for seat in range(18):
        d.act(seat, c("ballot", DET))
    d.act(Q, c("copy_status", C8))
    d.to("night", 2)
    d.refused(DET, c("query", B))


def test_SD_9_the_detective_murdered_while_querying_gets_nothing_but_the_terrorist_learns() -> None:
    t = Table().to("night", 4)
    t.act(B, murder(DET)).act(DET, c("query", R)).phase()
    assert not t.alive(DET) and status(t, DET) == "Bürger – Detektiv"
    assert not t.notices(DET, "result")
    assert t.notices(T, "investigations") == [f"Detective queried: {name(R)}"]


# ----------------------------------------------------------------- SD-10
def test_SD_10_the_character_assassin_inverts_results() -> None:
    t = Table().to("night", 2)
    t.act(R, c("mark", B)).act(DET, c("query", B)).phase()
    assert t.notices(DET, "result") == [f"{name(B)} ist kein Mafioso."]
    t.phase()
    t.refused(R, c("mark", R))
    t.act(R, c("mark", C2)).act(MM, c("compare", C2, C3)).phase()
    assert t.notices(MM, "result")[-1].endswith("gehören zu verschiedenen Parteien.")
    t.phase()
    t.act(R, c("mark", C5)).act(DET, c("query", C6)).phase()
    assert t.notices(DET, "result")[-1] == f"{name(C6)} ist kein Mafioso."
    t.phase()
    t.act(R, c("mark", T)).act(MM, c("compare", B, T)).phase()
    assert t.notices(MM, "result")[-1].endswith("gehören zur gleichen Partei.")


def test_SD_10_a_marked_citizen_looks_guilty_to_the_detective() -> None:
    t = Table().to("night", 4)
    t.act(R, c("mark", C5)).act(DET, c("query", C5)).phase()
    assert t.notices(DET, "result") == [f"{name(C5)} ist Mafioso."]


# ----------------------------------------------------------------- SD-11
def test_SD_11_the_dark_past() -> None:
    t = Table().to("night", 1)
    t.act(MM, c("compare", B, DP1)).phase()
    assert t.notices(MM, "result") == [f"{name(B)} und {name(DP1)} gehören zur gleichen Partei."]
    t.phase()
    t.act(DET, c("query", DP1)).phase()
    assert t.notices(DET, "result") == [f"{name(DP1)} ist Mafioso."]
    t.act(C1, c("execute", DP1)).phase()
    assert status(t, DP1) == "hatte eine dunkle Vergangenheit"
    v = Table().to("night", 2)
    v.act(F, c("passport", DP1)).phase()
    v.act(C1, c("execute", DP1)).phase()
    assert status(v, DP1) == "Status unbekannt"


# ----------------------------------------------------------------- SD-12
def test_SD_12_the_dark_past_moves_on_after_a_murder() -> None:
    t = Table().to("night", 1)
    t.act(B, murder(DP2)).act(MM, c("compare", B, DP2)).phase()
    assert status(t, DP2) == "Bürger"
    # the Day 2 report: the death message and the status, with no mention of a dark past
    report = [e for e in t.game.events[t.marks[-1] :] if isinstance(e.fact, (Death, StatusShown))]
    lines = [render_event(e) or "" for e in report]
    assert [e.fact for e in report] == [
        Death(DP2, "murder", "Found in the river."),
        StatusShown(DP2, "Bürger"),
    ]
    assert lines[1].endswith(f"{name(DP2)}: Bürger.")
    assert not any(word in line.lower() for line in lines for word in ("dunkle", "dark"))
    assert t.notices(MM, "result") == [
        f"{name(B)} und {name(DP2)} gehören zu verschiedenen Parteien."
    ]
    flags = t.game.state.seats
    heirs = [s.seat for s in flags if s.flags.get("dark_past") and s.alive and s.card == "citizen"]
    assert len(heirs) == 1 and heirs[0] != C1
    heir = heirs[0]
    t.phase()
    t.act(DET, c("query", heir)).phase()
    assert t.notices(DET, "result") == [f"{name(heir)} ist Mafioso."]
    t.phase().phase().phase()  # day 3, night 3, day 4
    t.act(DET, c("query", heir)).phase()
    assert t.notices(DET, "result")[-1] == f"{name(heir)} ist kein Mafioso."
    t.act(C1, c("execute", heir)).phase()
    assert status(t, heir) == "hatte eine dunkle Vergangenheit"
    f = Table().to("night", 2)
    f.act(B, murder(DP1)).act(DET, c("query", DP1)).phase()
    assert f.notices(DET, "result") == [f"{name(DP1)} ist kein Mafioso."]


def test_SD_12g_no_conversion_without_a_plain_citizen() -> None:
    deal = ["mafia_boss", "character_assassin", "forger", "terrorist", "detective",
            "matchmaker", "guardian_angel", "dark_past", "dark_past", "question_mark",
            "citizen", "citizen"]  # fmt: skip
    t = Table(deal)
    t.night0_defaults = False
    for seat in range(12):
        t.act(seat, c("ballot", 10))
    t.act(Q, c("copy_status", 6))
    t.phase()
    t.act(10, c("execute", 11)).phase()
    t.act(B, murder(DP2)).phase()
    assert not t.alive(DP2)
    assert [s.seat for s in t.game.state.seats if s.flags.get("dark_past") and s.alive] == [DP1]


HEIR_SEED = 22
"""A seed at which the dark past of DP2, murdered in Night 1 or 3, moves on to C4."""


def dp2_murdered(night: int) -> Table:
    """The SD-12 starting point: B is to murder DP2 (unprotected) in `night`."""
    t = Table(seed=HEIR_SEED).to("night", night)
    return t.act(B, murder(DP2))


def dark_pasts(t: Table) -> list[int]:
    return [s.seat for s in t.game.state.seats if s.alive and s.flags.get("dark_past")]


def test_SD_12_the_conversion_is_told_to_nobody() -> None:
    t = dp2_murdered(1).phase()
    assert dark_pasts(t) == [DP1, C4], "the seeded draw is to pick C4"
    night = t.marks[-1]

    def tonight(seat: int) -> list:
        stream = t.game.stream(seat)
        stream.pull(upto=night)
        return [e.fact for e in stream.pull()]

    assert tonight(C4) == tonight(C5)  # the new holder is told exactly what a citizen is
    for seat in range(18):
        assert not any(isinstance(f, Trigger) for f in t.seen(seat)), name(seat)


def test_SD_12b_the_new_holder_looks_guilty_in_night_1() -> None:
    t = dp2_murdered(1).act(MM, c("compare", C4, B)).phase()
    assert dark_pasts(t) == [DP1, C4]
    assert t.notices(MM, "result") == [f"{name(B)} und {name(C4)} gehören zur gleichen Partei."]


def test_SD_12e_the_new_holder_executed_on_day_7_had_a_dark_past() -> None:
    t = dp2_murdered(1).phase().to("day", 7)
    t.act(C1, c("execute", C4)).phase()
    assert status(t, C4) == "hatte eine dunkle Vergangenheit"


def test_SD_12h_a_holder_converted_in_night_3_never_looks_guilty() -> None:
    t = dp2_murdered(3).act(MM, c("compare", C4, B)).phase()
    assert dark_pasts(t) == [DP1, C4]
    assert t.notices(MM, "result") == [
        f"{name(B)} und {name(C4)} gehören zu verschiedenen Parteien."
    ]


# ----------------------------------------------------------------- SD-13
def test_SD_13_investigating_the_dictator_means_jail() -> None:
    t = Table().to("night", 2)
    t.act(DET, c("query", C1)).phase()
    assert not t.alive(DET) and status(t, DET) == "Bürger – Detektiv"
    jail = [f.text for f in t.last_phase_facts(Narration) if f.step == "jail"]
    assert jail == [f"{name(DET)} was thrown into jail by the dictator."]
    assert not t.notices(DET, "result")
    assert t.notices(T, "investigations")[-1] == f"Detective queried: {name(C1)}"
    v = Table().to("night", 2)
    for seat in range(11, 18):
        v.act(seat, c("revolution", C4))
    for seat in (B, R, F):
        v.act(seat, c("revolution", C4))
    v.act(DET, c("query", C1)).phase()
    assert not v.alive(DET) and not v.alive(C1)
    m = Table().to("night", 3)
    m.act(MM, c("compare", C5, C1)).phase()
    assert not m.alive(MM)


def test_SD_13_a_new_dictator_by_revolution_does_not_jail() -> None:
    t = Table().to("night", 2)
    for seat in [*range(11, 18), B, R, F]:
        if seat != C4:
            t.act(seat, c("revolution", C4))
    t.act(C4, c("revolution", C4))
    t.act(DET, c("query", C4)).phase()
    assert t.alive(DET)
    assert t.notices(DET, "result") == [f"{name(C4)} ist kein Mafioso."]


# ----------------------------------------------------------------- SD-14
def test_SD_14_the_forger() -> None:
    t = Table().to("night", 2)
    t.refused(F, c("passport", F))
    t.act(F, c("passport", B)).act(B, c("point", C7)).phase()
    t.act(C1, c("execute", B)).phase()
    assert status(t, B) == "Status unbekannt"
    v = Table().to("night", 2)
    v.act(F, c("passport", C6)).phase().act(C1, c("execute", C2)).phase()
    v.act(F, c("passport", C7)).phase().act(C1, c("execute", C6)).phase()
    assert status(v, C6) == "Bürger"
    m = Table().to("night", 4)
    m.act(F, c("passport", C8)).act(B, murder(C8)).phase()
    assert status(m, C8) == "Bürger"


# ----------------------------------------------------------------- SD-15
def test_SD_15_the_boss_disguise_and_the_death_message() -> None:
    t = Table().to("night", 1)
    t.act(B, c("point", MM)).phase().phase()
    t.act(B, c("point", C7)).phase().phase().phase()
    t.act(C1, c("execute", B)).phase()
    assert status(t, B) == "Bürger"
    v = Table().to("day", 1)
    v.act(C1, c("execute", B)).phase()
    assert status(v, B) == "Mafia – Mafiaboss"
    e = Table().to("night", 1)
    e.act(B, w("", "murder", C2)).phase()
    assert e.alive(C2) and texts(e.last_phase_facts(NoDeath)) == ["Nobody was murdered tonight."]


# ----------------------------------------------------------------- SD-16
def test_SD_16_boss_succession_and_transfer() -> None:
    t = Table().to("night", 1)
    t.act(B, c("successor", R)).phase()
    t.act(C1, c("execute", B)).phase()
    assert t.notices(R, "authority")[-1] == "You now hold the kill authority."
    t.refused(F, murder(C5))
    t.act(R, murder(C5)).phase()
    assert not t.alive(C5)
    v = Table().to("day", 1)
    v.act(C1, c("execute", B)).phase()
    holder = v.game.derived["forum"].authority
    assert holder in (R, F) and v.notices(holder, "authority")
    assert not v.notices(R + F - holder, "authority")  # the other one is told nothing
    x = Table().to("day", 3)
    x.act(B, c("transfer", F)).phase()
    x.refused(B, murder(C5))
    x.act(F, murder(C5)).phase()
    assert not x.alive(C5)
    d = Table()
    d.night0_defaults = False
    for seat in range(18):
        d.act(seat, c("ballot", B))
    d.act(B, c("successor", F)).act(Q, c("copy_status", C8)).phase()
    assert d.game.derived["forum"].authority == F
    d.phase()
    d.refused(B, murder(C5))
    d.refused(B, c("point", C5))


def test_SD_16_no_murders_once_only_the_terrorist_is_left_of_the_mafia() -> None:
    t = Table().to("day", 1)
    for day, boss_side in enumerate((B, R, F), start=1):
        t.to("day", day)
        t.act(C1, c("execute", boss_side)).phase()
    assert t.game.derived["forum"].authority is None
    assert t.where == ("night", 3) and t.alive(T)
    for seat, request in t.game.pending().items():
        assert all(choice.verb != "murder" for choice in request.choices), name(seat)
    t.refused(T, murder(C5))
    t.phase()
    assert texts(t.last_phase_facts(NoDeath)) == ["Nobody was murdered tonight."]
    t.phase().phase()
    assert texts(t.last_phase_facts(NoDeath)) == ["Nobody was murdered tonight."]


# ----------------------------------------------------------------- SD-17
def test_SD_17_the_question_mark() -> None:
    t = Table().to("night", 0)
    t.act(Q, c("copy_status", R)).phase().phase()
    t.refused(Q, c("mark", C2))
    t.act(MM, c("compare", Q, B)).phase()
    assert t.notices(MM, "result") == [f"{name(B)} und {name(Q)} gehören zur gleichen Partei."]
    assert status_message(t, Q) == (
        "Du gehörst zur Mafia.",
        f"Du bist der Rufmörder. Deine Mitstreiter sind {name(B)}, {name(R)}, {name(F)}.",
    )
    for seat in (B, R, F):
        assert len([f for f in t.seen(seat) if isinstance(f, StatusMessage)]) == 1
        assert all(Q not in f.allies for f in t.seen(seat) if isinstance(f, Allies))
    gs = t.game.state
    assert [s for s in range(18) if gs.faction(s) == "mafia"] == [B, R, F, T, Q]
    t.phase()
    t.act(Q, c("mark", C2)).phase()
    assert not t.refusals[1:]  # only the Night 1 mark was refused
    t.act(C1, c("execute", Q)).phase()
    assert status(t, Q) == "Mafia – Rufmörder (Fragezeichen)"
    v = Table().to("night", 0)
    v.act(Q, c("copy_status", T)).phase()
    v.refused(Q, c("attack", C3))  # Day 1: he does not know his copy yet
    v.phase().phase()
    assert status_message(v, Q) == ("Du gehörst zur Mafia.", "Du bist der Terrorist.")
    v.act(Q, c("attack", C3)).phase()
    assert not v.alive(C3)
    m = Table().to("night", 0)
    m.act(Q, c("copy_status", T)).phase().phase()
    m.act(B, murder(Q)).phase()
    assert m.alive(Q) and texts(m.last_phase_facts(NoDeath)) == ["Nobody was murdered tonight."]
    d = Table().to("night", 0)
    d.act(Q, c("copy_status", DP1)).phase().phase().phase()
    assert status_message(d, Q) == ("Du gehörst zu den Bürgern.",)


def test_SD_17_a_copied_dark_past_looks_guilty_in_nights_1_and_2_only() -> None:
    t = Table().to("night", 0)
    t.act(Q, c("copy_status", DP1)).to("night", 1)
    t.act(MM, c("compare", Q, C2)).to("night", 2)
    assert t.notices(MM, "result") == [
        f"{name(Q)} und {name(C2)} gehören zu verschiedenen Parteien."
    ]
    t.act(DET, c("query", Q)).to("night", 3)
    assert t.notices(DET, "result") == [f"{name(Q)} ist Mafioso."]
    t.act(MM, c("compare", Q, C2)).to("night", 4)
    assert t.notices(MM, "result")[-1] == f"{name(Q)} und {name(C2)} gehören zur gleichen Partei."
    t.act(DET, c("query", Q)).phase()
    assert t.notices(DET, "result")[-1] == f"{name(Q)} ist kein Mafioso."
    assert not t.refusals


# ----------------------------------------------------------------- SD-18
def test_SD_18_inactivity_and_hidden_disqualification() -> None:
    t = Table().to("day", 1)
    t.act(C8, w("My testament.", "testament", None, "public"), w("hi", "ad", None, "Ghost"))
    t.silent.add(C8)
    t.phase()
    assert t.notices(C8, "warning") == ["Inactivity warning 1 of 3."]
    t.phase()
    assert t.notices(C8, "warning")[-1] == "Inactivity warning 2 of 3."
    t.silent.discard(C8)
    t.phase()
    t.silent.add(C8)
    t.phase()
    assert len(t.notices(C8, "warning")) == 2
    t.phase()
    assert texts(t.last_phase_facts(Disqualified)) == [f"{name(C8)} has been disqualified."]
    assert status(t, C8) is None and not t.alive(C8)
    assert not any(f.author == C8 for f in t.facts(DeliveredTestament))
    assert "ghost" in t.game.derived["forum"].retired
    for seat in range(17):
        lines = transcript(t, seat).splitlines()
        assert not any("Ghost" in line and name(C8) in line for line in lines), name(seat)


# ----------------------------------------------------------------- SD-19
def test_SD_19_win_conditions() -> None:
    t = Table().to("day", 1)
    t.act(T, c("attack", C1)).phase()
    assert not t.game.over
    for seat in range(18):
        if t.alive(seat):
            t.act(seat, c("revolution", R))
    t.phase()
    assert t.game.derived["forum"].dictator == R
    # the mafia dictator executes citizens until they are no more than the mafia
    while not t.game.over:
        if t.where[0] == "day":
            victim = next(s for s in range(4, 18) if t.alive(s))
            t.act(R, c("execute", victim))
        t.phase()
    ended = t.facts(GameEnded)[0]
    assert ended.winner == "mafia" and T in ended.winners and F in ended.winners
    gs = t.game.state
    town = [s for s in gs.living_seats() if gs.faction(s) == "citizens"]
    mafia = [s for s in gs.living_seats() if gs.faction(s) == "mafia"]
    assert len(town) <= len(mafia)


def test_SD_19a_a_mafia_dictator_with_no_fewer_mafiosi_than_citizens_wins() -> None:
    t = Table().to("day", 1)
    t.leave_only(R, B, T, C2, C3, A, dictator=R)
    t.phase()
    ended = t.facts(GameEnded)
    assert [f.winner for f in ended] == ["mafia"]
    assert set(ended[0].winners) == {B, R, F, T} and not t.alive(F)


def test_SD_19b_with_a_citizen_dictator_the_game_goes_on() -> None:
    t = Table().to("day", 1)
    t.leave_only(R, B, T, C2, C3, A, dictator=C2)
    t.phase()
    assert not t.game.over and t.where == ("night", 1)


def test_SD_19e_the_mafia_murdering_the_last_citizen_wins_at_the_night_end() -> None:
    t = Table().to("night", 1)
    t.leave_only(B, R, C2, dictator=None)
    t.act(B, murder(C2)).phase()
    report = [e.fact for e in t.game.events[t.marks[-1] :]]
    assert [type(f) for f in report if isinstance(f, (Death, GameEnded))] == [Death, GameEnded]
    ended = report[-1]
    assert isinstance(ended, GameEnded)
    assert ended.winner == "mafia"


def test_SD_19d_the_citizens_win_when_the_last_mafioso_is_executed() -> None:
    t = Table().to("day", 1)
    t.act(T, c("attack", C2)).act(C1, c("execute", B)).phase()
    for target in (R, F):
        t.phase()
        t.act(C1, c("execute", target)).phase()
    ended = t.facts(GameEnded)[0]
    assert ended.winner == "citizens" and C2 in ended.winners


def test_SD_19c_the_terrorist_taking_the_last_citizen_is_a_draw() -> None:
    # a hand-made table: one mafioso left against one citizen
    t = Table()
    t.to("day", 1)
    gs = t.game.state
    for seat in range(18):
        if seat not in (T, C1):
            gs.mark_dead(seat)
    t.act(T, c("attack", C1)).phase()
    assert t.facts(GameEnded)[0].winner is None


# ----------------------------------------------------------------- SD-20
def test_SD_20_newspaper_and_testaments() -> None:
    t = Table().to("day", 2)
    for pseudonym in ("Phantom", "Raven2", "Owl2", "Fox2", "Wolf2", "Sixth"):
        t.act(C2, w(f"ad by {pseudonym}", "ad", None, pseudonym))
    t.act(C2, w("again", "ad", None, "Phantom"))
    t.act(C5, w("C5's will", "testament", None, "public"), w("no", "testament", None, "public"))
    t.phase()
    assert sorted(t.refusals) == [
        (C2, "at most 5 pseudonyms per player and edition"),
        (C2, "one ad per pseudonym and edition: 'Phantom' already has one"),
        (C5, "a testament may be changed once per round"),
    ]
    edition = t.last_phase_facts(Newspaper)[0]
    assert edition.edition == "Day 2" and sorted(edition.pseudonyms) == sorted(
        ["Phantom", "Raven2", "Owl2", "Fox2", "Wolf2"]
    )
    assert all(name(C2) not in text for text in edition.texts)
    t.refused(C5, w("again", "testament", None, "public"))
    t.refused(C3, w("mine?", "ad", None, "Phantom"))
    t.act(C2, w("", "give", C3, "Phantom")).phase()
    t.refused(C2, w("mine", "ad", None, "Phantom"))
    t.act(C3, w("now mine", "ad", None, "Phantom"))
    t.act(C5, w("C5's last will", "testament", None, "public"))
    t.refused(C4, w("me", "ad", None, name(C4)))
    t.phase()
    assert t.last_phase_facts(Newspaper)[0].texts == ("now mine",)
    t.act(B, murder(C5)).phase()
    wills = [f for f in t.last_phase_facts(DeliveredTestament) if f.author == C5]
    assert [f.text for f in wills] == ["C5's last will"] and wills[0].public
    report = [e.fact for e in t.game.events[t.marks[-1] :]]
    death = next(i for i, f in enumerate(report) if isinstance(f, Death) and f.seat == C5)
    assert report.index(wills[0]) > death
