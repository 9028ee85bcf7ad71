"""The worked examples V1 … V10 of the voting procedures (rules/dictator.md 5.5), one
test each, with the table's numbers (SD-2, SD-6 and SD-7 in `test_dictator_scenarios.py`
cover the same rules inside longer scenarios)."""

from __future__ import annotations

from tests.dictator.table import (
    C1,
    C2,
    C3,
    C4,
    C5,
    DET,
    MM,
    A,
    B,
    Q,
    T,
    Table,
    c,
    dictator,
    murder,
    name,
    revolt,
    small,
    status,
    texts,
)

from mafia_arena.engine.catalogue import NoExecution, Office


def test_V1_the_plurality_winner_alone_is_published() -> None:
    t = Table()
    t.night0_defaults = False
    ballots = {C1: range(0, 6), C2: range(6, 11), C3: range(11, 15), C4: range(15, 17)}
    for candidate, voters in ballots.items():
        for seat in voters:
            t.act(seat, c("ballot", candidate))
    t.act(Q, c("copy_status", C3)).phase()  # seat 17 abstains
    assert [f.text for f in t.facts(Office)] == [f"{name(C1)} is the dictator."]


def test_V2_a_tie_at_the_top_of_the_election_goes_by_lot_between_the_two() -> None:
    elected = set()
    for seed in range(12):
        t = Table(seed=seed)
        t.night0_defaults = False
        ballots = {C1: range(0, 7), C2: range(7, 14), C3: range(14, 18)}  # 7, 7, 4
        for candidate, voters in ballots.items():
            for seat in voters:
                t.act(seat, c("ballot", candidate))
        t.act(Q, c("copy_status", C3)).phase()
        office = t.facts(Office)
        assert len(office) == 1 and office[0].dictator in (C1, C2)
        elected.add(office[0].dictator)
    assert elected == {C1, C2}


def test_V3_an_empty_ballot_box_goes_by_lot_among_all() -> None:
    elected = set()
    for seed in range(10):
        t = Table(seed=seed)
        t.night0_defaults = False
        t.act(Q, c("copy_status", C3)).phase()
        office = t.facts(Office)
        assert len(office) == 1 and office[0].dictator is not None
        elected.add(office[0].dictator)
    assert len(elected) > 1


def test_V4_nine_of_eighteen_is_no_majority_and_nothing_is_published() -> None:
    t = Table().to("night", 1)
    revolt(t, {C3: list(range(9))}).phase()
    assert dictator(t) == C1 and t.alive(C1) and not t.last_phase_facts(Office)


def test_V5_ten_of_eighteen_depose_the_dictator_with_his_status_hidden() -> None:
    t = Table().to("night", 1)
    revolt(t, {C3: list(range(6)), C4: list(range(6, 10))}).phase()
    assert dictator(t) == C3 and not t.alive(C1) and status(t, C1) is None
    assert texts(t.last_phase_facts(Office)) == [
        f"Dictator {name(C1)} has been overthrown. The new dictator is {name(C3)}."
    ]


def test_V6_six_of_eleven_is_a_majority_and_five_is_not() -> None:
    for count, deposed in ((5, False), (6, True)):
        t = small()
        t.act(10, c("execute", 11)).phase()  # Night 1 starts with 11 players
        revolt(t, {A: list(range(count))}).phase()
        assert (dictator(t) == A) is deposed and t.alive(10) is not deposed


def test_V7_a_tie_between_the_most_named_goes_by_lot() -> None:
    chosen = set()
    for seed in range(10):
        t = small(seed).phase()  # Night 1 with all 12
        revolt(t, {DET: [0, 1, 2], MM: [3, 7, 8], A: [9]}).phase()
        assert not t.alive(10) and dictator(t) in (DET, MM)
        chosen.add(dictator(t))
    assert chosen == {DET, MM}


def test_V8_a_candidate_murdered_the_same_night_still_counts_toward_the_majority() -> None:
    t = Table().to("night", 1)
    revolt(t, {C3: list(range(6)), C4: list(range(6, 10))}).act(B, murder(C3)).phase()
    assert not t.alive(C3) and not t.alive(C1) and dictator(t) == C4


def test_V9_all_named_candidates_gone_leaves_the_office_vacant() -> None:
    t = Table().to("night", 1)
    t.leave_only(C1, B, C2, C3, C4, C5, dictator=C1)  # L = 6
    revolt(t, {C5: [B, C2, C3, C4]}).act(B, c("murder", C5, None)).phase()
    assert not t.alive(C1) and not t.alive(C5) and dictator(t) is None
    assert texts(t.last_phase_facts(Office)) == [
        f"Dictator {name(C1)} has been overthrown. The office is vacant.",
        "The office of dictator is vacant.",
    ]
    t.phase()
    assert texts(t.last_phase_facts(NoExecution), "reason") == ["Nobody was executed today."]
    revolt(t, {C3: [C2, C3]}).phase()
    assert dictator(t) == C3


def test_V10_a_vacancy_election_needs_no_majority() -> None:
    chosen = set()
    for seed in range(10):
        t = Table(seed=seed).to("day", 4)
        t.act(T, c("attack", C1)).phase()
        assert dictator(t) is None
        revolt(t, {C2: [0, 1, 2], C3: [4, 5, 6], C4: [7]}).phase()
        winner = dictator(t)
        assert winner in (C2, C3)
        chosen.add(winner)
        victim = 8
        t.act(winner, c("execute", victim)).phase()  # he executes from Day 5
        assert not t.alive(victim) and not t.last_phase_facts(NoExecution)
    assert chosen == {C2, C3}


def test_5_1_ballots_naming_a_player_murdered_that_night_fall_to_a_lot_among_all() -> None:
    """5.1 steps 2 and 4: a vacancy election discards "ballots naming a player eliminated
    in this night's resolution (R2, R3)", and with no valid ballot left the office goes
    "by lot among all players in the game". The terrorist takes the dictator with him on
    Day 1; in Night 1 every ballot names C5, whom the boss murders: the new dictator is
    drawn from the players still in the game, and not always the same one."""
    elected = set()
    for seed in range(8):
        t = Table(seed=seed).to("day", 1)
        t.act(T, c("attack", C1)).phase()
        assert dictator(t) is None
        for seat in range(18):
            if t.alive(seat):
                t.act(seat, c("revolution", C5))
        t.act(B, murder(C5)).phase()
        assert not t.alive(C5)
        winner = dictator(t)
        assert winner is not None and t.alive(winner)
        elected.add(winner)
    assert len(elected) > 1
