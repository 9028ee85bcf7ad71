"""Night actions are simultaneous (rules/dictator.md 3.1, 4.4, OP-D24): every form a
player in the game handed in when the night's resolution starts is resolved, even when
that player is jailed (R2) or murdered (R3) earlier in the same resolution."""

from __future__ import annotations

from tests.dictator.table import C1, C3, C5, C6, C7, DET, MM, B, F, R, Table, c, name, status, w

from mafia_arena.engine.catalogue import Office

REVOLUTIONARIES = [DET, MM, 6, 7, 8, 9, 11, 12, 13, 14]
"""Ten senders other than the dictator C1: a strict majority of 18."""


def test_a_murdered_character_assassins_mark_still_falsifies_that_nights_query() -> None:
    t = Table().to("night", 2)
    t.act(R, c("mark", C5)).act(B, w("Gone.", "murder", R)).act(DET, c("query", C5)).phase()
    assert not t.alive(R)
    assert t.notices(DET, "result") == [f"{name(C5)} ist Mafioso."]


def test_a_murdered_forgers_passport_still_covers_the_next_days_execution() -> None:
    t = Table().to("night", 2)
    t.act(F, c("passport", C6)).act(B, w("Gone.", "murder", F)).phase()
    assert not t.alive(F)
    t.act(C1, c("execute", C6)).phase()
    assert status(t, C6) == "Status unbekannt"


def test_a_revolution_pn_of_a_player_murdered_that_night_still_counts() -> None:
    t = Table().to("night", 1)
    for seat in REVOLUTIONARIES:
        t.act(seat, c("revolution", C3))
    t.act(B, w("Gone.", "murder", 13)).phase()
    assert not t.alive(13) and not t.alive(C1)
    office = [f.text for f in t.last_phase_facts(Office)]
    assert office == [f"Dictator {name(C1)} has been overthrown. The new dictator is {name(C3)}."]


def test_a_revolution_pn_of_an_investigator_jailed_that_night_still_counts() -> None:
    t = Table().to("night", 2)
    for seat in REVOLUTIONARIES:
        t.act(seat, c("revolution", C3))
    t.act(DET, c("query", C1)).phase()
    assert not t.alive(DET)
    assert t.game.derived["forum"].dictator == C3


def test_a_boss_murdered_in_the_night_he_points_shows_that_nights_pointing() -> None:
    t = Table().to("night", 1)
    t.act(B, c("point", MM)).phase()
    t.act(B, c("transfer", R)).phase()
    t.act(B, c("point", C7)).act(R, w("Gone.", "murder", B)).phase()
    assert not t.alive(B) and not t.refusals
    assert status(t, B) == "Bürger"
