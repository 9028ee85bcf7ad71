"""Palermo's night, snitches (8), the Rival Mafioso and the end conditions (9)."""

from __future__ import annotations

from typing import Any

from tests.palermo.table import S20, P, Table

from mafia_arena.engine import Game
from mafia_arena.engine.catalogue import (
    GameEnded,
    GameMasterNotice,
    Narration,
    NightResult,
    PhaseStart,
    RoleChange,
    StateChanged,
)
from mafia_arena.engine.palermo.changes import change
from mafia_arena.engine.palermo.checks import state_check
from mafia_arena.engine.palermo.snitch import vendetta_open
from mafia_arena.engine.player_states import PlayerState
from mafia_arena.rules import load_variant
from mafia_arena.views import view_of
from mafia_arena.views.text import render_event

GHOST, ACTIVE, OUT = PlayerState.GHOST, PlayerState.ACTIVE, PlayerState.OUT
NO_ABSENCE_LIMIT: dict[str, Any] = {
    "palermo.absences_total": 99,
    "palermo.absences_consecutive": 99,
}


def results(t: Table, number: int) -> list[str]:
    return [
        e.fact.result
        for e in t.game.events
        if isinstance(e.fact, NightResult) and e.visibility.seats == {P(number)}
    ]


def test_T23_the_rival_mafioso_assassinated_by_the_mafia() -> None:
    t = Table(keep={1, 6, 8})
    t.until(3, "night_early")
    t.step({1: "assassinate:5:0"})
    t.until(3, "afternoon")
    assert t.state(6) is GHOST and t.state(1) is GHOST
    texts = [f.text for f in t.facts(StateChanged)[-2:]]
    # two assassination victims in seat order: nothing tells the target from his killer
    assert texts == ["P1 was assassinated.", "P6 was assassinated."]
    t.until(4, "night_early")
    t.step({8: "investigate:0"})
    t.until(4, "dead_time")
    assert results(t, 8) == ["mafia"]
    # had the Medium investigated P6 instead, the answer would also be "Mafioso"
    m = Table(keep={1, 6, 8})
    m.until(3, "night_early")
    m.step({1: "assassinate:5:0"})
    m.until(4, "night_early")
    m.step({8: "investigate:5"})
    m.until(4, "dead_time")
    assert results(m, 8) == ["mafia"]


def test_T24_appearances_and_the_prostitutes_block() -> None:
    t = Table(S20, keep={1, 6, 7, 8, 9})
    t.until(2, "night_early")
    t.step({9: "investigate:7"})
    t.until(3, "night_early")
    t.step({9: "investigate:5"})
    t.until(4, "night_early")
    t.step({7: "block:8", 9: "investigate:0"})
    t.until(4, "dead_time")
    assert results(t, 9) == ["mafia", "innocent", "no result"]


def _ghost(t: Table, *numbers: int) -> None:
    for n in numbers:
        change(t.game, P(n), GHOST, "vote")


def test_T25_rival_activation_and_solo_win() -> None:
    t = Table(keep={1, 5, 6, 11, 14})
    t.until(5, "afternoon")
    _ghost(t, 2, 3, 4)
    t.votes = {s + 1: 1 for s in t.ps.states.active() if s != P(1)}
    t.finish_round(5)
    assert not t.game.over and t.ps.activated
    private = [
        (e.fact, e.visibility.seats) for e in t.game.events if isinstance(e.fact, RoleChange)
    ]
    assert (RoleChange(P(6), "rival", "rival"), {P(6)}) in private
    assert (RoleChange(P(5), "corrupt_cop", "town"), {P(5)}) in private
    t.until(6, "night_early")
    t.step({6: "assassinate:13:5"})
    t.until(6, "afternoon")
    assert t.state(14) is GHOST
    for s in t.ps.states.active():
        if s not in (P(6), P(11)):
            change(t.game, s, GHOST, "vote")
    state_check(t.game)
    end = t.facts(GameEnded)[-1]
    assert end.winner == "rival" and end.winners == (P(6),) and len(end.roles) == 16


def test_T26_a_returning_mafioso_after_activation_is_a_simple_citizen() -> None:
    t = Table(hands={15: "resurrection"}, keep={1, 3, 5, 6, 7, 15})
    t.until(5, "afternoon")
    _ghost(t, 2, 3, 4)
    t.votes = {s + 1: 1 for s in t.ps.states.active() if s != P(1)}
    t.finish_round(5)
    t.until(6, "morning")
    t.step({15: "resurrection:2"})
    assert t.game.state.seats[P(3)].role == "citizen"
    told = [e for e in t.game.events if isinstance(e.fact, GameMasterNotice)]
    assert [
        (e.fact.seat, e.visibility.seats) for e in told if isinstance(e.fact, GameMasterNotice)
    ] == [(P(3), {P(3)})]
    notice = told[0].fact
    assert isinstance(notice, GameMasterNotice)
    assert notice.text.startswith("You are now a Simple Citizen")
    assert "You are now a Simple Citizen" in (render_event(told[0]) or "")
    t.until(7, "night_early")
    t.step({7: "investigate:2"})
    t.until(7, "dead_time")
    assert results(t, 7)[-1] == "innocent"
    t.until(7, "afternoon")
    t.votes = {s + 1: 6 for s in t.ps.states.active() if s != P(6)}
    t.finish_round(7)
    end = t.facts(GameEnded)[-1]
    assert end.winner == "town" and P(3) in end.winners and P(5) in end.winners
    assert P(6) not in end.winners


def test_T27_town_win_with_a_ghost_rival_and_strict_mafia_majority() -> None:
    t = Table(keep={1, 6})
    t.until(2, "afternoon")
    _ghost(t, 2, 3, 4, 6)
    t.votes = {s + 1: 1 for s in t.ps.states.active() if s != P(1)}
    t.finish_round(2)
    end = t.facts(GameEnded)[-1]
    assert end.winner == "town" and P(6) in end.winners
    b = Table()
    b.until(1, "afternoon")
    for s in b.ps.states.active():
        if s + 1 not in (1, 2, 3, 5, 14, 15):
            change(b.game, s, GHOST, "vote")
    state_check(b.game)
    assert not b.game.over  # 3 killers, 3 others: the game goes on
    change(b.game, P(15), GHOST, "vote")
    state_check(b.game)
    end = b.facts(GameEnded)[-1]
    assert end.winner == "mafia" and P(5) in end.winners


def test_T28_vendetta_snitch_succeeds() -> None:
    t = Table(S20, keep=set(range(1, 21)), absent=set(range(1, 21)), **NO_ABSENCE_LIMIT)
    t.until(5, "night_early")
    assert not t.offers(1, "snitch:7:vendetta")
    t.step({3: "snitch:7:vendetta", 2: "assassinate:15:1"})
    t.until(5, "afternoon")
    assert t.state(8) is OUT and t.state(3) is OUT
    outs = t.ps.states.in_state(OUT)
    assert len(outs) == 3
    third = next(s for s in outs if s not in (P(3), P(8)))
    assert third in [P(6), P(7), *range(P(9), P(20) + 1)]
    assert t.state(16) is (OUT if third == P(16) else GHOST)
    assert all(f.role is None for f in t.facts(StateChanged))
    t.until(6, "night_early")
    request = t.game.request(P(4))
    assert request is not None
    assert not any(c.verb == "snitch" for c in request.choices)


def test_T29_vendetta_fails_and_its_window() -> None:
    """Runs (a) and (b); run (c), the exclusivity, has its own test."""
    t = Table(S20, keep={4, 9})
    t.until(3, "night_early")
    t.step({4: "snitch:8:vendetta"})
    t.until(3, "afternoon")
    assert t.state(4) is OUT
    gone = [f for f in t.facts(StateChanged) if f.seat == P(4)][-1]
    assert gone.cause == "assassination" and gone.role is None
    late = Table(S20, keep={3, 4, 8, 1, 2, 5}, **NO_ABSENCE_LIMIT)
    late.until(6, "night_early")
    assert not late.offers(3, "snitch:7:vendetta")


def test_T29_vendetta_and_massacre_exclude_each_other() -> None:
    """Run (c): after a massacre no vendetta, and after a vendetta no massacre (8.3)."""
    # a massacre that hits both (P11 the Informant, P9 the Detective) in NIGHT 1
    m = Table(S20, keep={3, 4, 8, 9, 10, 11})
    m.until(2, "night_early")
    assert m.offers(3, "snitch:7:vendetta")  # open before any snitch
    m.step({3: "snitch:10:massacre_informant"})
    m.step({4: "snitch:8:massacre_detective"})
    m.until(2, "afternoon")
    assert m.state(11) is OUT and m.state(9) is OUT and m.ps.snitch_used is not None
    m.until(3, "night_early")  # NIGHT 2, inside the vendetta window of 20 players
    assert m.state(3) is ACTIVE and m.state(4) is ACTIVE and m.state(8) is ACTIVE
    for number in (1, 2, 3, 4, 5):
        request = m.game.request(P(number))
        assert request is None or not any(c.verb == "snitch" for c in request.choices)
    assert not m.offers(3, "snitch:7:vendetta")
    # a vendetta (failed: P9 is no Rival Mafioso) in NIGHT 1, then no massacre
    v = Table(S20, keep={1, 3, 4, 9, 10, 11})
    v.until(2, "night_early")
    v.step({4: "snitch:8:vendetta"})
    v.until(2, "afternoon")
    assert v.state(4) is OUT and v.ps.snitch_used is not None
    v.until(3, "night_early")
    assert v.state(3) is ACTIVE and v.state(1) is ACTIVE
    assert not v.offers(3, "snitch:10:massacre_informant")
    assert not v.offers(1, "snitch:8:massacre_detective")
    assert not v.offers(3, "snitch:7:vendetta")


def test_T30_massacre_snitch_outcomes() -> None:
    cases = {
        "a": ((9, 7), {9: OUT, 7: OUT, 8: OUT, 3: ACTIVE, 4: ACTIVE}),
        "b": ((9, 14), {4: OUT, 9: GHOST, 3: ACTIVE}),
        "c": ((13, 14), {3: OUT, 4: OUT}),
    }
    for (informant, detective), expected in cases.values():
        t = Table(keep={1, 3, 4, 7, 8, 9, 13, 14, 15})
        t.until(3, "night_early")
        t.step({3: f"snitch:{P(informant)}:massacre_informant", 1: "assassinate:14:0"})
        t.step({4: f"snitch:{P(detective)}:massacre_detective"})
        t.until(3, "afternoon")
        for number, state in expected.items():
            assert t.state(number) is state, (informant, detective, number)
        assert t.state(15) is GHOST
    d = Table(keep={1, 3, 4, 7, 9, 15})
    d.until(3, "night_early")
    change(d.game, P(8), GHOST, "vote")
    d.step({3: "snitch:8:massacre_informant", 1: "assassinate:14:0"})
    d.step({4: "snitch:6:massacre_detective"})
    d.until(3, "afternoon")
    assert d.state(9) is GHOST and d.state(7) is GHOST and not d.ps.states.in_state(OUT)
    e = Table(keep={1, 3, 4})
    e.until(2, "night_early")
    e.step({3: "snitch:8:massacre_informant"})
    assert e.offers(1, "snitch:6:massacre_detective")  # one Hidden only: Known A may fill
    assert not e.offers(1, "assassinate:14:2")  # a snitcher is no assassin
    e.step({1: "snitch:6:massacre_detective"})  # P1 (Known A) is the second snitcher
    for mafioso in (1, 2, 4):
        assert not e.offers(mafioso, "assassinate:14:0")  # P1 may not be the assassin
        assert e.offers(mafioso, "assassinate:14:1") and e.offers(mafioso, "assassinate:14:3")
    f = Table(S20, keep={1, 3, 4})
    f.until(2, "night_early")
    f.step({3: "snitch:10:massacre_informant"})
    assert not f.offers(1, "snitch:8:massacre_detective")


def test_a_snitch_declaration_can_be_withdrawn_until_the_end_of_the_night() -> None:
    """8.1: a declaration "can be withdrawn until the end of NIGHT-LATE"."""
    from mafia_arena.engine.catalogue import Narration

    t = Table(keep={3, 14})
    t.until(3, "night_early")
    t.step({3: "snitch:13:simple"})  # P14 is no Informant: a miss would take P3 out
    assert not t.offers(1, "withdraw_snitch")  # only the declarer withdraws
    t.until(3, "night_late")
    assert t.offers(3, "withdraw_snitch") and not t.offers(3, "snitch:13:vendetta")
    t.step({3: "withdraw_snitch"})
    told = [e for e in t.game.events if isinstance(e.fact, Narration)]
    withdrawn = [
        e for e in told if isinstance(e.fact, Narration) and e.fact.step == "snitch_withdrawn"
    ][-1]
    assert isinstance(withdrawn.fact, Narration)
    assert withdrawn.fact.text == "P3 withdraws the simple snitch (names the Informant): P14."
    assert withdrawn.visibility.seats == {P(1), P(2), P(3), P(4)}  # the mafia channel
    assert t.offers(3, "snitch:13:simple")  # the seat may declare again tonight
    t.until(3, "afternoon")
    assert t.state(3) is ACTIVE and t.state(14) is ACTIVE
    assert t.ps.snitch_used is None and t.ps.used["snitch_withdrawal"] == 1
    t.until(4, "night_early")
    assert t.offers(3, "snitch:13:simple")  # the game's one snitch is still to come


def test_withdrawing_a_massacre_half_leaves_its_partner_alone() -> None:
    t = Table(keep={3, 4, 7, 9})
    t.until(3, "night_early")
    t.step({3: "snitch:8:massacre_informant"})
    t.step({4: "snitch:6:massacre_detective"})
    t.step({3: "withdraw_snitch"})
    assert set(t.ps.declarations) == {P(4)}
    assert t.offers(1, "snitch:8:massacre_informant") is False  # a Hidden is free: no Known
    t.until(3, "afternoon")
    assert t.state(9) is ACTIVE and t.state(7) is ACTIVE and t.state(4) is ACTIVE
    assert t.ps.snitch_used is None  # half a massacre is no snitch


def test_the_vendetta_announcement_does_not_show_the_rival_mafiosos_activation() -> None:
    """8.4: the nightly announcement states the window (public); the activation is told
    to the Rival Mafioso alone (5.1), so after it the window still reads as open, while
    no declaration can be made (no mafioso is left to make one)."""
    t = Table(keep={1, 5, 6, 11, 14})
    t.until(2, "afternoon")
    _ghost(t, 2, 3, 4)
    t.votes = {s + 1: 1 for s in t.ps.states.active() if s != P(1)}
    t.finish_round(2)
    assert t.ps.activated
    t.until(3, "night_early")
    said = [f.text for f in t.facts(Narration) if f.step == "vendetta"]
    assert said[-1] == "The vendetta snitch is accepted tonight."  # Night 2 of 1-3
    assert not vendetta_open(t.game)


def test_a_day_and_a_night_are_announced_in_the_phase_they_open() -> None:
    """The announcements of a day and a night are dated in the morning and the early
    night they open, and so is every seat's fold at the first turn after them: they
    were dated in the phase before (``setup``, ``resolution``, ``dead_time``), so a
    seat's page and observation named that phase while it played the next one."""
    game = Game(load_variant("palermo"), 12, 7)
    firsts: list[tuple[object, str]] = []  # (the turn's phase, the fold's phase)
    seen = 0
    while not game.over:
        announced = [e for e in game.events[seen:] if isinstance(e.fact, PhaseStart)]
        seen = len(game.events)
        seat, request = min(game.pending().items())
        if announced and request.kind == "turn":
            firsts.append((request.info["phase"], view_of(game, seat).knowledge.phase))
        for waiting in sorted(game.pending()):
            if not game.over:
                game.submit_default(waiting)
    starts = [e for e in game.events if isinstance(e.fact, PhaseStart)]
    assert {(e.fact.phase, e.phase) for e in starts if isinstance(e.fact, PhaseStart)} == {
        ("day", "morning"),
        ("night", "night_early"),
    }
    assert ("morning", "morning") in firsts and ("night_early", "night_early") in firsts
    assert all(turn == fold for turn, fold in firsts), firsts


def test_the_activated_rival_mafioso_left_alone_wins() -> None:
    """9.3 with the seed's end rule: the game ends when the killers outnumber everyone
    else. If one resolution leaves the Rival Mafioso as the only Active player (the
    last mafioso and the last other player both removed for absences), he activates
    and wins at that state check; the game does not go on with nobody to play."""
    t = Table(keep={1, 6, 14}, absent={1, 14})
    t.until(2, "afternoon")
    _ghost(t, *(s + 1 for s in t.ps.states.active() if s + 1 not in (1, 6, 14)))
    t.ps.absences_consecutive[P(1)] = t.ps.absences_consecutive[P(14)] = 1
    t.votes = {6: 1}
    t.finish_round(2)
    assert t.state(1) is OUT and t.state(14) is OUT and list(t.ps.states.active()) == [P(6)]
    assert t.game.over
    end = t.facts(GameEnded)[-1]
    assert end.winner == "rival" and end.winners == (P(6),)


S26 = [
    "known_a", "known_b", "hidden", "hidden", "hidden", "archmafioso", "corrupt_cop",
    "prostitute", "rival", "detective", "medium", "informant", "mayor", "lawyer",
    "roommate", "roommate",
] + ["citizen"] * 10  # fmt: skip
"""Above 24 players (the 24 column of 2.2 and two more Simple Citizens): the vendetta
window is the 50% rule of 8.4, not a count of nights."""


def _night_1_above_24(card: str, ghosts: list[int]) -> Table:
    """S26 at NIGHT 1, P17 holding `card`: `ghosts` became ghosts on Day 1, and the Day 1
    vote took the highest seat not kept (the vote driver's fodder)."""
    t = Table(S26, hands={17: card}, keep={3, 9, 12, 17})
    t.until(1, "afternoon")
    _ghost(t, *ghosts)
    t.until(2, "night_early")
    return t


def test_8_4_above_24_players_an_imprisonment_at_night_does_not_close_the_vendetta() -> None:
    """8.4, the row "above 24": "any Night that starts with Active count >= N/2", checked
    at the start of the Night (Decision; OP-17: "the 50% rule checked at the start of each
    Night"), when the window is announced. 13 of 26 are Active when NIGHT 1 starts, so
    the vendetta is accepted; an Immediate Imprisonment played that night leaves 12, and
    the vendetta may still be declared: the declaration follows the announcement."""
    t = _night_1_above_24("immediate_imprisonment", [14, 15, 16, *range(18, 27)])
    assert len(t.ps.states.active()) == 13
    said = [f.text for f in t.facts(Narration) if f.step == "vendetta"]
    assert said == ["The vendetta snitch is accepted tonight."]
    t.step({17: f"immediate_imprisonment:{P(12)}"})
    assert t.ps.phase == "night_early" and len(t.ps.states.active()) == 12
    assert t.offers(3, f"snitch:{P(9)}:vendetta")
    t.step({3: f"snitch:{P(9)}:vendetta"})
    assert t.ps.declarations[P(3)].kind == "vendetta"


def test_8_4_above_24_players_a_resurrection_at_night_does_not_open_the_vendetta() -> None:
    """8.4 and OP-17, the other way round: 12 of 26 are Active when NIGHT 1 starts, so
    the vendetta is not accepted that night; a Resurrection played that night makes 13
    Active, and the vendetta still may not be declared."""
    r = _night_1_above_24("resurrection", [13, 14, 15, 16, *range(18, 27)])
    assert len(r.ps.states.active()) == 12
    said = [f.text for f in r.facts(Narration) if f.step == "vendetta"]
    assert said == ["The vendetta snitch is not accepted tonight."]
    r.step({17: f"resurrection:{P(13)}"})
    assert r.ps.phase == "night_early" and len(r.ps.states.active()) == 13
    assert not r.offers(3, f"snitch:{P(9)}:vendetta")
