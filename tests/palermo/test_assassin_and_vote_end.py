"""Palermo's designated assassin against the night's snitches (5.6, 8, 3.3 NOON) and the
vote-end roles (5.7, 5.12, 5.13, 7.4-7.6): one test per clause the scenario tests leave
open. Players are P1..Pn as in the digest; `P(n)` is the seat."""

from __future__ import annotations

from tests.palermo.table import S20, P, Table

from mafia_arena.engine.catalogue import Narration, NoExecution, RandomDraw, StateChanged, Votes
from mafia_arena.engine.palermo.changes import change
from mafia_arena.engine.player_states import PlayerState

GHOST, ACTIVE, OUT, JAIL = (
    PlayerState.GHOST,
    PlayerState.ACTIVE,
    PlayerState.OUT,
    PlayerState.IMPRISONED,
)


def assassin_draws(t: Table) -> list[RandomDraw]:
    return [f for f in t.facts(RandomDraw) if f.purpose == "assassin"]


def noon_announcements(t: Table, day: int) -> list[StateChanged]:
    return [
        e.fact
        for e in t.game.events
        if isinstance(e.fact, StateChanged) and e.day == day and e.phase == "noon"
    ]


def plan(t: Table, targets: dict[int, list[int]]) -> None:
    """Planned afternoon ballots (target → voters); every other Active player stays away."""
    t.votes = {v: target for target, voters in targets.items() for v in voters}
    t.absent = {s for s in t.ps.states.active() if s + 1 not in t.votes}


# ------------------------------------------------------------ the designated assassin


def test_5_6_the_target_is_an_active_non_mafioso_and_the_assassin_an_active_mafioso() -> None:
    t = Table(keep={1, 3, 14})
    t.until(2, "night_early")
    ghost = t.ps.states.in_state(GHOST)[0]
    assert t.offers(1, "assassinate:13:0")
    assert not t.offers(1, "assassinate:2:0")  # P3 is a mafioso
    assert not t.offers(1, f"assassinate:{ghost}:0")  # a ghost
    assert not t.offers(1, "assassinate:13:5")  # P6, the latent Rival Mafioso, kills nobody


def test_5_6_the_designated_assassin_may_not_snitch_until_another_is_designated() -> None:
    """8.1: the assassination is carried out by a mafioso not involved in the snitch; the
    other way round from T30 (a snitcher is offered as no assassin)."""
    t = Table(keep={1, 3, 14})
    t.until(2, "night_early")
    t.step({1: "assassinate:13:2"})  # P3 designated
    assert not t.offers(3, "snitch:8:simple")
    t.step({1: "assassinate:13:0"})  # P1 designated instead
    assert t.offers(3, "snitch:8:simple")


def _massacre_with_the_medium_a_ghost(extra_ghosts: tuple[int, ...]) -> Table:
    """S16, NIGHT 2: P3 and P4 both hit (P9 Informant, P7 Detective) while the Medium is
    a ghost, so both snitchers stay Active (8.3 outcome 4); P1, designated to kill P14,
    is imprisoned in MORNING of Day 3."""
    t = Table(hands={16: "immediate_imprisonment"}, keep={1, 2, 3, 4, 7, 9, 14, 16})
    t.until(3, "night_early")
    for number in (8, *extra_ghosts):
        change(t.game, P(number), GHOST, "vote")
    t.step({3: "snitch:8:massacre_informant", 1: "assassinate:13:0"})
    t.step({4: "snitch:6:massacre_detective"})
    t.until(3, "morning")
    t.step({16: "immediate_imprisonment:0"})
    t.until(3, "afternoon")
    assert t.state(1) is JAIL and t.state(9) is GHOST and t.state(7) is GHOST
    assert t.state(3) is ACTIVE and t.state(4) is ACTIVE  # snitchers, still Active
    return t


def test_5_6_an_absent_designated_assassin_is_replaced_by_a_mafioso_not_snitching() -> None:
    """5.6: "a uniformly random other eligible mafioso becomes the assassin"; eligible is
    Active and not a snitcher this Night, so the two massacre snitchers still Active at
    NOON are not drawn (seed: "the remaining mafioso who is not involved in the snitch")."""
    t = _massacre_with_the_medium_a_ghost(())
    draws = assassin_draws(t)
    assert [d.options for d in draws] == [[P(2)]]
    assert t.state(14) is GHOST


def test_5_6_with_no_eligible_mafioso_there_is_no_assassination() -> None:
    t = _massacre_with_the_medium_a_ghost((2,))  # P2, the only other mafioso, a ghost
    assert not assassin_draws(t)
    assert t.state(14) is ACTIVE and t.ps.used.get("assassination") is None


def test_6_5_an_imprisoned_target_is_not_assassinated() -> None:
    t = Table(hands={16: "immediate_imprisonment"}, keep={1, 14, 16})
    t.until(2, "night_early")
    t.step({1: "assassinate:13:0"})
    t.until(2, "morning")
    t.step({16: "immediate_imprisonment:13"})
    t.until(2, "afternoon")
    assert t.state(14) is JAIL and t.ps.todays_victim is None
    assert t.ps.used.get("assassination") is None


def test_OP_38_the_rival_mafioso_takes_the_drawn_assassin_with_him() -> None:
    """5.1 and OP-38: the trigger kills the actual assassin, the one drawn when the
    designated assassin is not Active at NOON."""
    t = Table(hands={16: "immediate_imprisonment"}, keep={1, 2, 3, 4, 6, 16})
    t.until(2, "night_early")
    t.step({1: "assassinate:5:0"})
    t.until(2, "morning")
    t.step({16: "immediate_imprisonment:0"})
    t.until(2, "afternoon")
    (draw,) = assassin_draws(t)
    assert sorted(draw.options) == [P(2), P(3), P(4)]
    assert t.state(6) is GHOST and t.ps.states.of(draw.result) is GHOST
    assert t.state(1) is JAIL


def test_5_8_a_block_on_a_snitcher_does_not_stop_the_snitch() -> None:
    """5.8: snitches and intrigue cards are not blocked."""
    t = Table(S20, keep={3, 7, 11})
    t.until(2, "night_early")
    t.step({7: "block:2", 3: "snitch:10:simple"})
    t.until(2, "afternoon")
    assert t.state(11) is GHOST and t.state(3) is ACTIVE


def test_noon_order_a_snitch_hit_on_the_kill_target_leaves_nothing_to_assassinate() -> None:
    """3.3 step 5 and 8.1: the snitch resolves first; the Informant named by the simple
    snitch and chosen for the kill becomes a ghost by the snitch, so the assassination
    has nothing to do and he is not today's victim: his Failed Assassination cannot undo
    a snitch consequence (6.9)."""
    t = Table(hands={9: "failed_assassination"}, keep={1, 3, 9})
    t.until(2, "night_early")
    t.step({3: "snitch:8:simple", 1: "assassinate:8:0"})
    t.until(2, "afternoon")
    assert t.state(9) is GHOST and t.ps.todays_victim is None
    assert t.ps.used.get("assassination") is None
    assert not t.offers(9, "failed_assassination")


def test_noon_order_a_vendetta_hit_on_the_kill_target_spares_the_assassin() -> None:
    """8.4 then 5.1: the vendetta takes the Rival Mafioso out before the assassination,
    so the mafia did not assassinate him and his trigger does not take P2 with him."""
    t = Table(S20, keep={2, 3, 8})
    t.until(2, "night_early")
    t.step({3: "snitch:7:vendetta", 2: "assassinate:7:1"})
    t.until(2, "afternoon")
    assert t.state(8) is OUT and t.state(3) is OUT and t.state(2) is ACTIVE
    assert t.ps.used.get("rival_takes_killer") is None


def test_8_1_a_vendetta_announces_its_permanent_exits_in_seat_order() -> None:
    """8.1 (Stated): the exits are presented as assassinations and players must work out
    the victims' roles. Listed in the order they happen, the first would be the Rival
    Mafioso and the second the mafioso who snitched; NOON lists the permanent exits in
    seat order, then the ghosts."""
    t = Table(S20, keep={2, 3, 8, 16})
    t.until(2, "night_early")
    t.step({3: "snitch:7:vendetta", 2: "assassinate:15:1"})
    t.until(2, "afternoon")
    told = noon_announcements(t, 2)
    outs = [f.seat for f in told if f.state == "out"]
    ghosts = [f.seat for f in told if f.state == "ghost"]
    assert len(outs) == 3 and {P(3), P(8)} <= set(outs)
    assert [f.seat for f in told] == sorted(outs) + sorted(ghosts)
    assert all(f.cause == "assassination" and f.role is None for f in told)


def test_8_1_a_snitch_ghost_and_the_kill_victim_are_announced_in_seat_order() -> None:
    """A massacre with one hit (P9, the Informant, a ghost; P4 missed, out) and the kill
    of P8: the two ghosts are listed by seat, not snitch first, which would tell the
    snitch's victim (the Informant) from the assassination's."""
    t = Table(keep={1, 3, 4, 8, 9, 14})
    t.until(2, "night_early")
    t.step({3: "snitch:8:massacre_informant", 1: "assassinate:7:0"})
    t.step({4: "snitch:13:massacre_detective"})
    t.until(2, "afternoon")
    told = [(f.seat, f.state) for f in noon_announcements(t, 2)]
    assert told == [(P(4), "out"), (P(8), "ghost"), (P(9), "ghost")]
    # one announcement: the snitchers' private result follows it, not inside it
    result = next(e for e in t.game.events if getattr(e.fact, "step", "") == "snitch_result")
    told_at = [e.seq for e in t.game.events if e.fact in noon_announcements(t, 2)]
    assert max(told_at) < result.seq


# ------------------------------------------------------------------ vote-end roles


def test_5_12_an_echo_mayor_votes_but_breaks_no_tie() -> None:
    """5.12 and 6.7: a Mayor voting as an echo ghost has no mark; the tie goes to a runoff."""
    t = Table(hands={16: "echo"}, keep={3, 10, 14, 16})
    t.until(2, "night_early")
    t.step({1: "assassinate:9:0"})
    t.until(2, "afternoon")
    plan(t, {3: [10, 1, 2, 4], 14: [5, 6, 7, 8]})
    t.step({16: "echo"})
    t.until(2, "runoff")
    final = [f for f in t.facts(Votes) if f.kind == "vote"][-1]
    assert final.votes[P(10)] == P(3) and final.tally == {P(3): 4, P(14): 4}
    assert not [f for f in t.facts(Narration) if f.step == "mayor"]


def test_5_12_a_cancelled_mayor_ballot_carries_no_mark() -> None:
    """5.12 and 6.4: Vote Cancellation on the Mayor voids his ballot and its mark."""
    t = Table(hands={16: "vote_cancellation"}, keep={3, 10, 14, 16})
    t.until(1, "afternoon")
    plan(t, {3: [10, 1, 2, 4, 11], 14: [5, 6, 7, 8]})
    t.step({16: "vote_cancellation:9"})
    t.until(1, "runoff")
    final = [f for f in t.facts(Votes) if f.kind == "vote"][-1]
    assert final.tally == {P(3): 4, P(14): 4}


def test_5_13_the_lawyer_removes_the_mark_from_his_client_before_the_cop_moves_votes() -> None:
    """7.4 steps 4-6: the Mayor marks P3; the Lawyer annuls the votes on P3 and the mark;
    the Corrupt Cop then moves P15's votes onto P3, which still count (5.13), but
    without the mark: P3 and P14 tie, and a runoff decides."""
    t = Table(keep={3, 5, 11, 14, 15})
    t.until(1, "afternoon")
    plan(t, {3: [10, 1, 2], 14: [4, 6, 7, 8], 15: [9, 12, 13, 16]})
    t.until(1, "vote_end")
    t.step({11: "defend:2", 5: "transfer:14:2"})
    assert t.at(1, "runoff")
    final = [f for f in t.facts(Votes) if f.kind == "vote"][-1]
    assert final.tally == {P(3): 4, P(14): 4}


def test_5_13_the_lawyer_cannot_save_his_client_from_an_absence_exit() -> None:
    t = Table(keep={11, 16}, absent={16})
    t.finish_round(1)
    assert t.ps.absences_consecutive[P(16)] == 1
    t.until(2, "vote_end")
    t.step({11: "defend:15"})
    t.finish_round(2)
    assert t.ps.lawyer_used and t.state(16) is OUT
    exit_ = [f for f in t.facts(StateChanged) if f.seat == P(16)][-1]
    assert exit_.cause == "absences"


def test_7_5_a_defence_that_leaves_no_counted_vote_means_no_exit_and_uses_the_power() -> None:
    t = Table(keep={3, 11})
    t.until(1, "afternoon")
    plan(t, {3: [1, 2]})
    t.until(1, "vote_end")
    t.step({11: "defend:2"})
    t.finish_round(1)
    assert t.facts(NoExecution)[-1].reason == "nobody received a counted vote"
    assert t.ps.lawyer_used and t.state(3) is ACTIVE
    assert not [f for f in t.facts(StateChanged) if f.cause == "vote"]


def test_7_6_a_called_off_vote_asks_no_vote_end_action_and_keeps_both_powers() -> None:
    t = Table(hands={16: "immediate_imprisonment"}, keep={5, 11, 14, 16})
    t.until(2, "morning")
    asked = [d for d in t.game.decisions if d["kind"] == "vote_end"]  # in Vote 1
    t.step({16: "immediate_imprisonment:13"})
    t.finish_round(2)
    assert t.facts(NoExecution)[-1].reason.startswith("an Immediate Imprisonment stands")
    assert [d for d in t.game.decisions if d["kind"] == "vote_end"] == asked
    assert not t.ps.lawyer_used and not t.ps.cop_used
    t.until(3, "vote_end")
    assert t.offers(11, "defend:2")
    request = t.game.request(P(5))
    assert request is not None and any(c.verb == "transfer" for c in request.choices)


def test_3_3_a_ghost_lawyer_and_an_imprisoned_cop_are_not_asked_and_keep_their_powers() -> None:
    """3.3 step 9: the Lawyer and the Corrupt Cop act only if Active (4.2: neither a
    ghost nor the imprisoned uses a role ability); the vote goes on without them."""
    t = Table(keep={5, 11})
    t.until(2, "night_early")
    t.step({1: "assassinate:10:0"})
    t.until(2, "afternoon")
    assert t.state(11) is GHOST
    t.game.moderate("sanction", P(5), "insulted a player")
    t.until(2, "vote_end")
    assert t.game.request(P(11)) is None and t.game.request(P(5)) is None
    assert t.game.request(P(14)) is not None  # the Active are asked, with only a pass
    t.finish_round(2)
    assert not t.ps.lawyer_used and not t.ps.cop_used
    assert [
        e for e in t.game.events if isinstance(e.fact, StateChanged) and e.fact.cause == "vote"
    ][-1].day == 2


def test_5_7_the_cop_moves_votes_from_a_player_who_received_a_ballot_from_anyone() -> None:
    """5.7 (the engine's reading): the source is a player holding at least one ballot at
    the end of the CHANGE WINDOW, cast by any voter, an echo ghost included; a player
    nobody voted for has no votes to move and is not offered."""
    t = Table(hands={16: "echo"}, keep={5, 14, 15, 16})
    t.until(2, "afternoon")
    assert t.state(13) is GHOST  # the Day 1 vote's exit
    plan(t, {3: [1, 2, 4, 6], 14: [13]})
    t.step({16: "echo"})
    t.until(2, "vote_end")
    assert t.offers(5, "transfer:13:2")  # P14: one ballot, an echo ghost's
    assert not t.offers(5, "transfer:14:2")  # P15: none
