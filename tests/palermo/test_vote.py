"""Palermo's vote (7): obligation, absences, change window, tally pipeline, exits."""

from __future__ import annotations

from collections.abc import Set as AbstractSet

import pytest
from tests.palermo.table import P, Table

from mafia_arena.agents.base import AgentStats
from mafia_arena.agents.random_agent import RandomAgent
from mafia_arena.engine import PASS, IllegalDecision
from mafia_arena.engine.catalogue import (
    Absence,
    GameEnded,
    Narration,
    RandomDraw,
    Runoff,
    StateChanged,
    Votes,
    fact_from_payload,
)
from mafia_arena.engine.palermo.changes import change
from mafia_arena.engine.player_states import PlayerState
from mafia_arena.engine.win import end_game
from mafia_arena.experiments.records import build_record
from mafia_arena.runner.log import GameLog
from mafia_arena.runner.match import MatchResult
from mafia_arena.views.text import render_event
from mafia_arena.web.storage import SeatEntry, results_record

GHOST, ACTIVE, OUT = PlayerState.GHOST, PlayerState.ACTIVE, PlayerState.OUT


def absences(t: Table, number: int) -> list[tuple[int, int]]:
    return [(f.total, f.consecutive) for f in t.facts(Absence) if f.seat == P(number)]


def last_words_of(t: Table) -> set[int]:
    return {d["seat"] + 1 for d in t.game.decisions if d["kind"] == "last_words"}


def plan(t: Table, targets: dict[int, list[int]], absent: AbstractSet[int] = frozenset()) -> None:
    """Planned ballots (target → voters); every other Active player stays away."""
    t.votes = {v: target for target, voters in targets.items() for v in voters}
    t.absent = {s for s in t.ps.states.active() if s + 1 not in t.votes} | {P(a) for a in absent}


def test_T03_a_resurrected_ghost_can_vote_again_and_must_vote() -> None:
    t = Table(hands={15: "resurrection"}, keep={14, 15})
    t.until(2, "night_early")
    t.step({1: "assassinate:13:0"})
    t.until(3, "morning")
    assert t.state(14) is GHOST
    t.absent = {P(14)}
    t.step({15: "resurrection:13"})
    assert t.state(14) is ACTIVE
    back = [f for f in t.facts(StateChanged) if f.seat == P(14)][-1]
    assert back.text == "P14 has returned to the game." and back.role is None
    assert t.offers(14, "vote:2")
    t.finish_round(3)
    assert absences(t, 14) == [(1, 1)]
    assert all(f.role is None for f in t.facts(StateChanged) if f.seat == P(14))


def test_T05_three_total_absences_remove_and_reveal() -> None:
    t = Table(hands={14: "vote_exemption"}, keep={14, 3})
    for r in range(1, 5):
        t.absent = {P(14)} if r in (1, 3) else set()
        t.until(r, "afternoon")
        t.finish_round(r)
        if r == 1:
            assert absences(t, 14) == [(1, 1)]
        if r == 3:
            assert absences(t, 14) == [(1, 1), (2, 1)]
    t.until(5, "afternoon")
    voters = [s + 1 for s in t.ps.states.active() if s + 1 not in (3, 14)]
    plan(t, {3: voters[:6]} | {voters[-1]: voters[6:-1]} | {voters[-2]: [voters[-1]]}, {14})
    t.finish_round(5)
    out = [f for f in t.facts(StateChanged) if f.seat == P(14)][-1]
    assert t.state(14) is OUT and out.text.endswith("Simple Citizen; held Vote Exemption.")
    assert t.state(3) is GHOST and 3 in last_words_of(t) and 14 not in last_words_of(t)
    # the platform's next-game ban: on the public removal, and nobody else carries it
    assert out.banned is True and t.game.state.banned == [P(14)]
    assert all(not f.banned for f in t.facts(StateChanged) if f.seat != P(14))
    removal = next(e for e in t.game.events if e.fact is out)
    assert removal.visibility.scope == "public"
    assert "P14 is barred from the next game." in (render_event(removal) or "")
    end_game(t.game, "town")  # the result and the tournament record carry the flag
    ended = t.game.events[-1].fact
    assert isinstance(ended, GameEnded)
    assert ended.banned == (P(14),)
    log = GameLog.from_game(t.game)
    record = build_record(
        experiment="ban",
        spec_hash="0",
        game_index=0,
        seed=1,
        variant=t.game.variant,
        agents=[RandomAgent() for _ in range(16)],
        result=MatchResult(log, "town"),
    )
    assert record["banned"] == [P(14)]
    entries = [SeatEntry(f"p{n}", "human", AgentStats()) for n in range(1, 17)]
    assert results_record(t.game, {}, entries, "g1", None)["banned"] == [P(14)]


def test_logs_without_the_ban_flag_still_read() -> None:
    """Logs written before the next-game-ban flag existed read back with no ban."""
    old = {"seat": 13, "state": "out", "cause": "absences", "text": "P14 is removed."}
    assert fact_from_payload("state", old).banned is None  # type: ignore[attr-defined]
    ended = {"winner": "good", "winners": [0], "reason": "", "roles": {}, "factions": {}}
    assert fact_from_payload("game_over", ended).banned is None  # type: ignore[attr-defined]
    flagged = StateChanged(13, "out", "absences", "P14 is removed.", banned=True)
    assert fact_from_payload("state", flagged.to_payload()) == flagged


def test_7_2_a_voter_with_no_legal_target_keeps_both_absence_counts() -> None:
    """7.1: "An obliged voter with no legal target available is not charged"; 7.2: the
    consecutive count is "reset to 0 by taking part", and a vote that charges nothing
    leaves it unchanged. P6, the Rival Mafioso, misses Vote 1; in round 2 he is Active
    with only P14 and P15, who are both exempt, so he cannot vote: Vote 2 neither
    charges him nor resets his run of one absence."""
    t = Table(hands={14: "vote_exemption", 15: "vote_exemption"}, keep={6, 14, 15}, absent={6})
    t.until(2, "morning")
    assert absences(t, 6) == [(1, 1)]
    _ghost_all_but(t, 6, 14, 15)
    t.step({14: "vote_exemption", 15: "vote_exemption"})
    assert t.ps.activated and t.ps.states.active() == (P(6), P(14), P(15))
    t.until(3, "night_early")
    assert absences(t, 6) == [(1, 1)]  # no new absence
    assert (t.ps.absences_total[P(6)], t.ps.absences_consecutive[P(6)]) == (1, 1)


def _ghost_all_but(t: Table, *numbers: int) -> None:
    """Every Active player but `numbers` becomes a ghost (a hand-made table)."""
    for seat in t.ps.states.active():
        if seat + 1 not in numbers:
            change(t.game, seat, GHOST, "vote")


def test_T06_consecutive_absences_skip_rounds_as_a_ghost() -> None:
    t = Table(hands={16: "resurrection"}, keep={15, 16})
    t.until(2, "afternoon")
    t.absent = {P(15)}
    t.finish_round(2)
    t.absent = set()
    t.until(3, "night_early")
    t.step({1: "assassinate:14:0"})
    t.until(4, "morning")
    t.step({16: "resurrection:14"})
    t.absent = {P(15)}
    t.finish_round(4)
    assert absences(t, 15) == [(1, 1), (2, 2)]
    assert t.state(15) is OUT and 15 not in last_words_of(t)


def test_T07_an_absentee_who_prevails_alone() -> None:
    t = Table(keep={16})
    t.until(3, "afternoon")
    t.absent = {P(16)}
    t.finish_round(3)
    t.until(4, "afternoon")
    ghosts = set(t.ps.states.in_state(GHOST))
    voters = [s + 1 for s in t.ps.states.active() if s + 1 != 16]
    assert len(voters) > 8
    plan(t, {16: voters[:7]}, {16})
    for i, voter in enumerate(voters[7:]):  # everyone else votes, one ballot per target
        t.votes[voter] = voters[i]
    t.absent = {P(16)}
    t.finish_round(4)
    tally = t.facts(Votes)[-1].tally
    assert tally[P(16)] == 7 and all(c < 7 for s, c in tally.items() if s != P(16))
    assert t.state(16) is OUT and 16 in last_words_of(t)
    exit_ = [f for f in t.facts(StateChanged) if f.seat == P(16)][-1]
    assert exit_.role == t.game.state.seats[P(16)].role  # revealed
    assert set(t.ps.states.in_state(GHOST)) == ghosts


def test_T08_an_absentee_tied_with_another_player() -> None:
    t = Table(keep={16, 3, 10})
    for r in (1, 3):
        t.until(r, "afternoon")
        t.absent = {P(16)}
        t.finish_round(r)
        t.absent = set()
    t.until(5, "afternoon")
    voters = [s + 1 for s in t.ps.states.active() if s + 1 not in (3, 16, 10)]
    plan(t, {3: [10, *voters[:4]], 16: [3, *voters[4:8]], voters[-1]: voters[8:-1]})
    t.votes[voters[-1]] = 3 if len(voters) < 9 else t.votes.get(voters[-1], 3)
    t.absent.add(P(16))
    t.finish_round(5)
    tally = t.facts(Votes)[-1].tally
    assert tally[P(16)] == tally[P(3)] == max(tally.values())
    assert t.state(16) is OUT and 16 in last_words_of(t)
    assert t.state(3) is ACTIVE and not t.facts(Runoff)


def test_T09_several_absentees_tied() -> None:
    t = Table(keep={15, 16})
    t.until(2, "afternoon")
    t.absent = {P(15), P(16)}
    t.finish_round(2)
    t.until(3, "afternoon")
    voters = [s + 1 for s in t.ps.states.active() if s + 1 not in (15, 16)]
    plan(t, {15: voters[:4], 16: voters[4:8]}, {15, 16})
    t.finish_round(3)
    tally = t.facts(Votes)[-1].tally
    assert tally[P(15)] == tally[P(16)] == 4 == max(tally.values())
    assert t.state(15) is OUT and t.state(16) is OUT
    exits = {f.seat: f.role for f in t.facts(StateChanged) if f.seat in (P(15), P(16))}
    assert exits == {s: t.game.state.seats[s].role for s in (P(15), P(16))}  # revealed
    assert {15, 16} <= last_words_of(t) and not t.facts(Runoff)


def test_T10_voting_for_a_player_who_is_then_assassinated() -> None:
    t = Table(keep={13, 14})
    t.until(2, "night_early")
    t.step({1: "assassinate:13:0"})
    t.until(2, "morning")
    t.step({13: "vote:13", 14: "vote:2"})
    t.finish_round(2)
    assert not [a for a in t.facts(Absence) if a.seat == P(13)]
    final = t.facts(Votes)[-1]
    assert final.votes[P(13)] == P(14) and P(14) not in final.tally and P(14) not in final.votes


def test_T11_mayor_tie_break() -> None:
    t = Table()
    t.until(1, "afternoon")
    plan(t, {3: [1, 2, 10, 11, 12], 14: [4, 5, 6, 7, 8], 15: [9, 13, 16], 16: [3, 14, 15]})
    t.absent = set()
    t.finish_round(1)
    assert t.state(3) is GHOST and t.state(14) is ACTIVE and 3 in last_words_of(t)
    assert not t.facts(Runoff)
    mayor = [f for f in t.facts(Narration) if f.step == "mayor"]
    assert [f.text for f in mayor] == ["The tie is broken by the Mayor's vote."]  # no P10


def test_T12_the_corrupt_cop_moves_the_mayors_vote() -> None:
    t = Table()
    t.until(1, "afternoon")
    plan(t, {3: [1, 2, 4, 6, 7], 14: [10, 8, 9, 11], 12: [13]})
    t.until(1, "vote_end")
    t.step({5: "transfer:13:11"})
    t.finish_round(1)
    assert t.facts(Votes)[-1].tally == {P(3): 5, P(12): 5}
    assert t.state(12) is GHOST and t.state(3) is ACTIVE and not t.facts(Runoff)
    assert t.ps.cop_used
    t.until(2, "vote_end")
    request = t.game.request(P(5))
    assert request is not None and request.choices == (PASS,)  # a second use is not offered


@pytest.mark.parametrize("source", [14, 3])
def test_T13_lawyer_then_corrupt_cop(source: int) -> None:
    t = Table()
    t.until(1, "afternoon")
    plan(t, {3: [1, 2, 4, 5, 6, 7], 14: [8, 9, 11, 12], 15: [10, 13]})
    t.until(1, "vote_end")
    dest = 2 if source == 14 else 15
    t.step({11: "defend:2", 5: f"transfer:{P(source)}:{dest}"})
    t.finish_round(1)
    if source == 14:
        assert t.facts(Votes)[-1].tally == {P(3): 4, P(15): 2}
        assert t.state(3) is GHOST
    else:
        assert t.facts(Votes)[-1].tally == {P(14): 4, P(15): 2}
        assert t.state(14) is GHOST and t.ps.cop_used


def test_T14_an_ordinary_tie_goes_to_a_runoff() -> None:
    t = Table(hands={16: "pythia", 12: "cancel_imprisonment"})
    t.until(1, "afternoon")
    plan(t, {3: [1, 2, 4, 5], 14: [6, 7, 8, 9], 15: [10]})
    t.until(1, "runoff")
    assert t.facts(Runoff)[-1].candidates == (P(3), P(14))
    # no cards and no role steps in a runoff: every prompt is a bare runoff ballot
    for seat, request in t.game.pending().items():
        assert request.kind == "runoff", seat
        assert {c.verb for c in request.choices} <= {"pass", "vote"}, seat
    charged = len(t.facts(Absence))
    runoff = {v: "vote:13" for v in (10, 1, 2, 4, 5, 11)} | {
        v: "vote:2" for v in (6, 7, 8, 9, 12, 13)
    }
    t.step(runoff)  # P3, P14, P15 and P16 abstain
    phases = set()
    while not t.game.over and t.ps.round <= 1:
        phases.add(t.ps.phase)
        t.step()
    assert not phases & {"vote_end", "change_window", "runoff"}
    assert len(t.facts(Absence)) == charged  # no absences in a runoff
    assert t.state(14) is GHOST and t.state(3) is ACTIVE


def test_T14_a_runoff_tie_is_drawn_by_lot_when_the_mayor_is_a_ghost() -> None:
    t = Table(keep={3, 10, 14})
    t.until(2, "night_early")
    t.step({1: "assassinate:9:0"})
    t.until(2, "afternoon")
    assert t.state(10) is GHOST
    plan(t, {3: [1, 2, 4, 5], 14: [6, 7, 8, 9], 15: [11]})
    t.until(2, "runoff")
    assert t.game.request(P(10)) is None  # a ghost Mayor has no runoff ballot
    t.step(
        {v: "vote:13" for v in (1, 2, 4, 5, 11, 12)} | {v: "vote:2" for v in (6, 7, 8, 9, 13, 15)}
    )
    t.finish_round(2)
    poll = [f for f in t.facts(Votes) if f.kind == "runoff"][-1]
    assert poll.tally == {P(3): 6, P(14): 6}
    draw = [f for f in t.facts(RandomDraw) if f.purpose == "runoff"]
    assert len(draw) == 1 and draw[0].options == [P(3), P(14)]
    chosen, spared = draw[0].result, ({P(3), P(14)} - {draw[0].result}).pop()
    assert t.ps.states.of(chosen) is GHOST and t.ps.states.of(spared) is ACTIVE
    assert not [f for f in t.facts(Narration) if f.step == "mayor"]


def test_T15_change_window() -> None:
    t = Table(hands={15: "extra_vote", 14: "pythia"}, keep={2, 3, 14})
    t.until(1, "afternoon")
    t.votes = {13: 3}
    t.absent = {P(16)}
    t.step({15: "extra_vote:2"})
    t.until(1, "change_window")
    assert t.game.request(P(15)) is None
    assert not t.offers(14, "pythia:2:mafia")
    with pytest.raises(IllegalDecision):
        t.game.submit(P(12), "I object!")
    t.game.submit(P(13), "vote:13")
    with pytest.raises(IllegalDecision):
        t.game.submit(P(13), "vote:1")
    t.game.submit(P(16), "vote:1")
    t.step()
    assert t.ps.ballots[P(13)] == P(14) and t.ps.ballots[P(16)] == P(2)
