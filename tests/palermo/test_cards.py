"""Palermo's intrigue cards (6) in their timing windows, with their effects."""

from __future__ import annotations

import pytest
from tests.palermo.table import S20, P, Table

from mafia_arena.engine import IllegalDecision
from mafia_arena.engine.catalogue import (
    CardPlayed,
    Narration,
    NoExecution,
    OracleAnswer,
    StateChanged,
    Votes,
)
from mafia_arena.engine.player_states import PlayerState

GHOST, ACTIVE, OUT, JAIL = (
    PlayerState.GHOST,
    PlayerState.ACTIVE,
    PlayerState.OUT,
    PlayerState.IMPRISONED,
)


def test_T04_echo_lets_ghosts_vote_but_not_be_voted_for() -> None:
    t = Table(hands={16: "echo", 8: "pythia"}, keep={3, 8, 14, 16})
    t.until(2, "night_early")
    t.step({1: "assassinate:7:0"})
    t.until(3, "morning")
    assert t.state(8) is GHOST and t.state(15) is GHOST
    assert not t.offers(16, "echo")  # Echo only in the afternoon
    t.until(3, "afternoon")
    t.step({16: "echo"})
    assert t.ps.echo and t.offers(8, "vote:2")
    assert not t.offers(14, "vote:14") and not t.offers(8, "pythia:2:mafia")
    t.step({8: "vote:2"})
    t.finish_round(3)
    final = [f for f in t.facts(Votes) if f.kind == "vote"][-1]
    assert final.votes[P(8)] == P(3) and final.tally[P(3)] >= 1
    assert t.ps.cards[P(8)] == "pythia"
    assert t.state(8) is GHOST and not any(f.seat == P(15) for f in t.facts_absence())


def test_T16_immediate_imprisonment() -> None:
    hands = {16: "immediate_imprisonment", 15: "immediate_imprisonment", 14: "resurrection",
             13: "grave_robbing", 12: "pythia"}  # fmt: skip
    t = Table(hands=hands, keep={7, 12, 13, 14, 15, 16})
    t.until(3, "night_early")
    t.step({16: "immediate_imprisonment:6"})
    assert t.state(7) is JAIL
    announced = [f for f in t.facts(StateChanged) if f.seat == P(7)][-1]
    assert "P16" not in announced.text
    assert not t.offers(14, "resurrection:6") and not t.offers(13, "grave_robbing:6")
    assert not t.offers(12, "pythia:6:mafia") and not t.offers(8, "investigate:6")
    assert not t.offers(7, "vote:1") and not t.offers(15, "immediate_imprisonment:2")
    t.until(3, "dead_time")
    assert t.state(7) is JAIL
    t.until(3, "morning")
    assert t.state(7) is GHOST
    moves = [f for f in t.facts(StateChanged) if f.seat == P(7)]
    assert [f.state for f in moves] == ["imprisoned", "ghost"]
    assert all(f.role is None and f.card is None for f in moves)  # not revealed
    assert not t.offers(15, "immediate_imprisonment:2")
    assert {c for c in t.ps.cards.values()} >= {"resurrection", "grave_robbing", "pythia"}
    before = len(t.facts_absence())
    t.finish_round(3)
    assert t.facts(NoExecution)[-1].reason.startswith("an Immediate Imprisonment stands")
    assert len(t.facts_absence()) == before


def test_T17_cancel_imprisonment_in_dead_time() -> None:
    hands = {16: "immediate_imprisonment", 14: "resurrection", 13: "cancel_imprisonment",
             12: "immediate_imprisonment"}  # fmt: skip
    t = Table(hands=hands, keep={9, 10, 12, 13, 14, 16})
    t.until(4, "night_early")
    t.step({16: "immediate_imprisonment:8"})
    t.until(4, "dead_time")
    ghost = t.ps.states.in_state(GHOST)[0]
    assert not t.offers(14, f"resurrection:{ghost}")
    t.step({13: "cancel_imprisonment:8"})
    assert t.state(9) is ACTIVE and not t.ps.imprisonment_standing
    assert t.ps.cards[P(14)] == "resurrection"
    # with no further imprisonment, Vote 4 goes ahead normally
    called_off, votes = len(t.facts(NoExecution)), len(t.facts(Votes))
    exits = len([f for f in t.facts(StateChanged) if f.cause == "vote"])
    t.finish_round(4)
    assert len(t.facts(NoExecution)) == called_off and len(t.facts(Votes)) > votes
    vote4 = [f for f in t.facts(Votes) if f.kind == "vote"][-1]
    leaving = [f for f in t.facts(StateChanged) if f.cause == "vote"][exits:]
    assert len(leaving) == 1 and leaving[0].seat in vote4.tally
    assert t.state(12) is ACTIVE and t.ps.cards[P(12)] == "immediate_imprisonment"


def test_T17_a_second_imprisonment_after_the_cancel_calls_vote_4_off() -> None:
    """The alternative run: the first imprisonment was cancelled, so a second one in
    MORNING of Day 4 is accepted and, still standing at VOTE CLOSE 4, calls Vote 4 off."""
    hands = {16: "immediate_imprisonment", 13: "cancel_imprisonment",
             12: "immediate_imprisonment"}  # fmt: skip
    t = Table(hands=hands, keep={9, 10, 12, 13, 16})
    t.until(4, "night_early")
    t.step({16: "immediate_imprisonment:8"})
    t.until(4, "dead_time")
    t.step({13: "cancel_imprisonment:8"})
    t.until(4, "morning")
    t.step({12: "immediate_imprisonment:9"})
    assert t.state(10) is JAIL
    t.finish_round(4)
    assert t.facts(NoExecution)[-1].reason.startswith("an Immediate Imprisonment stands")


def test_T18_an_imprisonment_that_ends_after_the_vote() -> None:
    t = Table(hands={16: "immediate_imprisonment", 14: "resurrection"}, keep={8, 14, 16})
    t.until(5, "afternoon")
    t.step({16: "immediate_imprisonment:7"})
    t.until(6, "night_late")
    assert t.state(8) is JAIL
    t.until(6, "dead_time")
    assert t.state(8) is GHOST
    assert t.facts(NoExecution)[-1].reason.startswith("an Immediate Imprisonment stands")
    t.until(6, "morning")
    t.step({14: "resurrection:7"})
    assert t.state(8) is ACTIVE


def test_T19_grave_robbing() -> None:
    t = Table(hands={15: "grave_robbing", 16: "immediate_imprisonment"}, keep={3, 4, 14, 15, 16})
    t.until(2, "afternoon")
    t.votes = {v: 4 for v in (1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16)}
    t.finish_round(2)
    assert t.state(4) is GHOST
    t.until(3, "morning")
    t.step({16: "immediate_imprisonment:2"})
    assert t.state(14) is ACTIVE and not t.offers(15, "grave_robbing:13")
    assert not t.offers(15, "grave_robbing:2") and not t.offers(15, "grave_robbing:0")
    activated = t.ps.activated
    t.step({15: "grave_robbing:3"})
    robbed = [f for f in t.facts(StateChanged) if f.seat == P(4)][-1]
    assert t.state(4) is OUT and robbed.role == "archmafioso" and "Archmafioso" in robbed.text
    assert t.ps.activated == activated


def test_T20_failed_assassination() -> None:
    t = Table(hands={12: "failed_assassination"}, keep={12, 14})
    t.until(3, "night_early")
    t.step({1: "assassinate:11:0"})
    t.until(3, "afternoon")
    assert t.state(12) is GHOST and t.offers(12, "failed_assassination")
    t.step({12: "failed_assassination"})
    assert t.state(12) is ACTIVE
    assert any(f.text == "P12 survived the assassination." for f in t.facts(StateChanged))
    moves = [f for f in t.facts(StateChanged) if f.seat == P(12)]
    assert [f.state for f in moves] == ["ghost", "active"]
    assert all(f.role is None and f.card is None for f in moves)  # no role shown
    assert t.offers(12, "vote:0")


def test_T20_failed_assassination_is_refused_after_a_vote_exit_and_for_another() -> None:
    """Runs 3 and 4: voted out, the holder may not play it; nor may it save another."""
    voted = Table(hands={12: "failed_assassination"}, keep={12})
    voted.until(2, "afternoon")
    voted.votes = {s + 1: 12 for s in voted.ps.states.active() if s != P(12)}
    voted.finish_round(2)
    assert voted.state(12) is GHOST and voted.ps.cards[P(12)] == "failed_assassination"
    for _ in range(400):  # every prompt until the next vote closes
        if voted.ps.round == 3 and voted.ps.phase == "change_window":
            break
        request = voted.game.request(P(12))
        assert request is None or not any(c.verb == "failed_assassination" for c in request.choices)
        voted.step()
    else:
        raise AssertionError("never reached the change window of round 3")
    other = Table(hands={12: "failed_assassination"}, keep={12, 14})
    other.until(3, "night_early")
    other.step({1: "assassinate:13:0"})
    other.until(3, "afternoon")
    assert other.state(14) is GHOST and other.state(12) is ACTIVE
    request = other.game.request(P(12))
    assert request is not None and not any(
        c.verb == "failed_assassination" for c in request.choices
    )
    with pytest.raises(IllegalDecision):
        other.game.submit(P(12), "failed_assassination")
    assert other.ps.cards[P(12)] == "failed_assassination" and other.state(14) is GHOST


def test_T20_failed_assassination_is_not_offered_after_vote_close() -> None:
    t = Table(hands={12: "failed_assassination"}, keep={12, 14})
    t.until(3, "night_early")
    t.step({1: "assassinate:11:0"})
    t.until(3, "change_window")
    assert t.game.request(P(12)) is None
    t.finish_round(3)
    t.until(4, "afternoon")
    assert not t.offers(12, "failed_assassination")


def test_T21_vote_exemption() -> None:
    t = Table(hands={14: "vote_exemption", 15: "vote_exemption"}, keep={3, 14, 15})
    t.until(2, "night_early")
    t.step({12: "vote:13", 13: "vote:13"})
    t.until(2, "morning")
    t.step({14: "vote_exemption"})
    assert not t.offers(11, "vote:13") and P(14) in t.ps.exempt
    assert t.ps.ballots[P(12)] == t.ps.ballots[P(13)] == P(14)  # the earlier ballots stay
    t.step({14: "vote:2"})
    t.until(2, "afternoon")
    assert not t.offers(15, "vote_exemption")
    t.finish_round(2)
    final = [f for f in t.facts(Votes) if f.kind == "vote"][-1]
    assert P(14) not in final.tally and final.votes[P(14)] == P(3)
    assert final.votes[P(12)] == final.votes[P(13)] == P(14)  # still on P14, and void
    assert not any(f.seat in (P(12), P(13)) for f in t.facts_absence() if f.total)


def test_T22_extra_vote_and_vote_cancellation() -> None:
    t = Table(hands={15: "extra_vote", 16: "vote_cancellation"}, keep={3, 15, 16})
    t.until(1, "morning")
    t.step({15: "extra_vote:2"})
    assert t.ps.ballots[P(15)] == P(3) and not t.offers(15, "vote:3")
    t.until(1, "afternoon")
    t.step({16: "vote_cancellation:14"})
    t.finish_round(1)
    final = [f for f in t.facts(Votes) if f.kind == "vote"][-1]
    assert final.tally.get(P(3), 0) == 0
    told = [e for e in t.game.events if getattr(e.fact, "step", "") == "vote_cancellation"]
    narrated = [e.fact for e in told if isinstance(e.fact, Narration)]
    assert len(narrated) == len(told)
    assert [f.text for f in narrated] == ["The votes of P15 are cancelled."]
    assert told[0].visibility.scope == "public" and "P16" not in narrated[0].text
    cancel = [f for f in t.facts(CardPlayed) if f.card == "vote_cancellation"]
    assert cancel and all(e.visibility.seats == {P(16)} for e in t.game.events if e.fact in cancel)
    assert not any(f.seat == P(15) for f in t.facts_absence())
    # without the cancellation P3 would receive 2 votes from P15
    u = Table(hands={15: "extra_vote"}, keep={3, 15})
    u.until(1, "morning")
    u.step({15: "extra_vote:2"})
    u.votes = {v: 16 for v in range(1, 17) if v not in (15, 16)}
    u.finish_round(1)
    plain = [f for f in u.facts(Votes) if f.kind == "vote"][-1]
    assert plain.votes[P(15)] == P(3) and plain.tally[P(3)] == 2


def test_an_extra_vote_whose_target_leaves_may_be_retargeted_once_and_counts_double() -> None:
    """OP-36: the Extra Vote lock lifts when its target leaves; the player may choose one
    new target, and that ballot weighs 2."""
    t = Table(hands={15: "extra_vote"}, keep={3, 5, 15})
    t.until(1, "morning")
    t.step({15: "extra_vote:2"})
    assert not t.offers(15, "vote:4")  # locked on P3
    t.game.moderate("sanction", P(3), "abusive language")  # P3 leaves; the vote is kept
    t.step()  # the next prompt (a waiting prompt keeps the offers it was made with)
    assert t.state(3) is JAIL and t.ps.ballots[P(15)] == P(3)  # the ballot stays, void
    assert t.offers(15, "vote:4")
    t.step({15: "vote:4"})
    assert t.ps.ballots[P(15)] == P(5) and not t.offers(15, "vote:5")  # one new target
    t.votes = {v: 16 for v in range(1, 17) if v not in (3, 15, 16)}
    t.finish_round(1)
    final = [f for f in t.facts(Votes) if f.kind == "vote"][-1]
    assert final.votes[P(15)] == P(5) and final.tally[P(5)] == 2


def test_T24_pythia_answers_by_formal_team_and_role() -> None:
    t = Table(S20, hands={16: "pythia"}, keep={16, 7})
    t.until(2, "morning")
    t.step({16: "pythia:6:mafia"})
    answer = t.facts(OracleAnswer)[-1]
    assert answer.answer is False
    event = next(e for e in t.game.events if e.fact is answer)
    assert event.visibility.seats == {P(16)}
    t2 = Table(S20, hands={16: "pythia"}, keep={16, 7})
    t2.until(2, "morning")
    t2.step({16: "pythia:6:prostitute"})
    assert t2.facts(OracleAnswer)[-1].answer is True


WINDOWS = ("night_early", "night_late", "dead_time", "morning", "afternoon", "change_window")
TIMED_CARDS = [
    "resurrection", "grave_robbing", "extra_vote", "vote_cancellation",
    "immediate_imprisonment", "echo", "pythia", "vote_exemption",
]  # fmt: skip


@pytest.mark.parametrize("card", TIMED_CARDS)
def test_card_is_offered_only_in_its_timing_window(card: str) -> None:
    """3.4: each card in exactly the phases its entry lists (the vote block: the change
    window); Failed Assassination and Cancel Imprisonment have scenario tests (T17, T20)."""
    t = Table(hands={14: card}, keep={14})
    spec = t.game.variant.palermo
    assert spec is not None
    allowed = {"vote" if p == "vote" else p for p in spec.cards[card].phases}
    for phase in WINDOWS:
        t.until(2, phase)
        request = t.game.request(P(14))
        offered = request is not None and any(c.verb == card for c in request.choices)
        expected = (phase if phase != "change_window" else "vote") in allowed
        assert offered is expected, phase
