"""What the moderator may do (4.4): the penalty exit (permanently out, revealed, no last
words) and the sanction imprisonment (no card, the vote stands, only the moderator frees)."""

from __future__ import annotations

import pytest
from tests.palermo.table import S16, P, Table

from mafia_arena.engine import PASS, Choice, Game, IllegalDisqualification, IllegalModeration
from mafia_arena.engine.catalogue import Disqualified, RoleChange, StateChanged, Votes
from mafia_arena.engine.player_states import PlayerState


def test_the_moderator_removes_a_player_permanently_and_reveals_the_role() -> None:
    t = Table(hands={14: "pythia"}, keep={14})
    t.until(2, "afternoon")
    waiting = t.game.pending()
    assert P(14) in waiting
    t.game.disqualify(P(14), "disclosed the role")
    assert t.state(14) is PlayerState.OUT
    told = t.facts(Disqualified)[-1]
    assert (told.seat, told.reason) == (P(14), "disclosed the role")
    assert told.text == "The moderator removes P14 from the game: disclosed the role."
    out = t.facts(StateChanged)[-1]
    assert (out.seat, out.state, out.cause) == (P(14), "out", "penalty")
    assert (out.role, out.card) == ("citizen", "pythia")
    assert out.text == "P14 is removed by the moderator: Simple Citizen; held Pythia's Oracle."
    assert P(14) not in t.game.pending()  # the waiting prompt lost the seat
    assert all(c.target != P(14) for r in t.game.pending().values() for c in r.choices)
    assert P(14) not in t.ps.cards
    while not t.game.over and t.ps.round <= 2:
        assert P(14) not in t.game.pending()  # no ballot, no card, no last words
        t.step()
    record = next(d for d in t.game.decisions if d.get("host"))
    assert record == {
        "seat": P(14),
        "kind": "disqualify",
        "host": True,
        "reason": "disclosed the role",
    }


def test_a_penalty_replays_at_the_same_point() -> None:
    t = Table(keep={14})
    t.until(2, "morning")
    t.game.disqualify(P(14), "expelled")
    t.until(3, "afternoon")
    again = Game(t.game.variant, 16, 1, deal=S16, hands={})
    for record in t.game.decisions:
        again.resubmit(record)
    assert [e.fact for e in again.events] == [e.fact for e in t.game.events]


def test_only_an_active_player_can_be_removed() -> None:
    t = Table(keep={14})
    t.until(2, "afternoon")
    ghost = t.ps.states.in_state(PlayerState.GHOST)[0]
    with pytest.raises(IllegalDisqualification):
        t.game.disqualify(ghost)
    assert t.ps.states.of(ghost) is PlayerState.GHOST


def test_removing_the_last_mafioso_runs_the_state_check() -> None:
    t = Table(keep={1, 2, 3, 4, 6})
    t.until(2, "afternoon")
    for number in (1, 2, 3):
        t.game.disqualify(P(number))
    assert not t.ps.activated
    t.game.disqualify(P(4))  # no mafioso is Active: the Rival Mafioso takes over (5.1)
    assert t.ps.activated
    assert any(isinstance(f, RoleChange) and f.seat == P(6) for f in t.facts(RoleChange))


def test_a_sanction_imprisons_without_a_card_or_calling_off_the_vote() -> None:
    t = Table(hands={13: "cancel_imprisonment"}, keep={13, 14})
    t.until(2, "morning")
    t.game.moderate("sanction", P(14), "insulted a player")
    assert t.state(14) is PlayerState.IMPRISONED
    told = [f for f in t.facts(StateChanged) if f.seat == P(14)][-1]
    assert (told.cause, told.role) == ("sanction", None)  # an imprisonment reveals nothing
    assert not t.ps.imprisonment_standing and P(14) not in t.ps.windows
    assert P(14) not in t.game.pending()
    t.until(2, "afternoon")
    assert not t.offers(13, f"cancel_imprisonment:{P(14)}")  # only the moderator frees
    t.finish_round(2)
    assert any(f.kind == "vote" for f in t.facts(Votes))  # the vote was held
    t.until(4, "morning")
    assert t.state(14) is PlayerState.IMPRISONED  # no window ends it
    with pytest.raises(IllegalModeration):
        t.game.moderate("release", P(13))
    with pytest.raises(IllegalModeration):
        t.game.moderate("forfeit", P(14), "a forum ruling")  # not one of Palermo's
    t.game.moderate("release", P(14))
    assert t.state(14) is PlayerState.ACTIVE
    freed = [f for f in t.facts(StateChanged) if f.seat == P(14)][-1]
    assert freed.text == "The moderator releases P14: P14 is back in the game."
    t.step()
    assert P(14) in t.game.pending()  # asked again, its vote obligation back
    again = Game(t.game.variant, 16, 1, deal=S16, hands={P(13): "cancel_imprisonment"})
    for record in t.game.decisions:
        again.resubmit(record)
    assert [e.fact for e in again.events] == [e.fact for e in t.game.events]


@pytest.mark.parametrize("votes", [True, False])
def test_a_player_released_in_the_change_window_may_vote_but_is_not_obliged(votes: bool) -> None:
    """7.1: Imprisoned at VOTE CLOSE, Active during the CHANGE WINDOW: one optional vote
    action there (7.3), offered at once, and no absence when it is not used."""
    t = Table(keep={2, 14})
    t.until(1, "afternoon")
    t.game.moderate("sanction", P(14), "insulted a player")
    t.until(1, "change_window")
    assert P(14) not in t.game.pending()  # imprisoned at VOTE CLOSE: not asked
    t.game.moderate("release", P(14))
    request = t.game.request(P(14))
    assert request is not None and request.kind == "change_vote"
    assert PASS in request.choices and Choice("vote", P(2)) in request.choices
    t.step({14: "vote:1" if votes else "pass"})
    assert t.ps.phase != "change_window"  # the one action was the window's
    t.finish_round(1)
    ballots = next(f for f in t.facts(Votes) if f.kind == "vote").votes
    assert (P(14) in ballots) is votes
    assert all(f.seat != P(14) for f in t.facts_absence())  # may vote, not obliged
    again = Game(t.game.variant, 16, 1, deal=S16, hands={})
    for record in t.game.decisions:
        again.resubmit(record)
    assert [e.fact for e in again.events] == [e.fact for e in t.game.events]


@pytest.mark.parametrize("votes", [True, False])
def test_a_player_sanctioned_and_released_in_the_change_window_is_no_longer_obliged(
    votes: bool,
) -> None:
    """Active at VOTE CLOSE, imprisoned by the moderator in the CHANGE WINDOW (the ballot
    is lost, 4.3) and released in it: a player who becomes Active during the window may
    vote but is not obliged (7.1), so the one action is offered again and leaving it
    unused charges no absence."""
    t = Table(keep={2, 14})
    t.until(1, "change_window")
    assert P(14) in t.game.pending() and P(14) in t.ps.ballots  # voted by VOTE CLOSE
    t.game.moderate("sanction", P(14), "insulted a player")
    assert P(14) not in t.game.pending() and P(14) not in t.ps.ballots
    t.game.moderate("release", P(14))
    request = t.game.request(P(14))
    assert request is not None and request.kind == "change_vote" and PASS in request.choices
    t.step({14: "vote:1" if votes else "pass"})
    t.finish_round(1)
    ballots = next(f for f in t.facts(Votes) if f.kind == "vote").votes
    assert (P(14) in ballots) is votes
    assert all(f.seat != P(14) for f in t.facts_absence())  # may vote, not obliged
    assert t.ps.absences_total[P(14)] == 0


@pytest.mark.parametrize("phase", ["night_early", "morning", "afternoon"])
def test_no_card_imprisonment_is_open_in_a_change_window_that_is_held(phase: str) -> None:
    """The other way to become Active in the CHANGE WINDOW, Cancel Imprisonment, has
    nobody to free there: an imprisonment played this round calls the vote off (7.6),
    and one played in the last afternoon has its window closed with the night (6.6)."""
    hands = {16: "immediate_imprisonment", 13: "cancel_imprisonment"}
    t = Table(hands=hands, keep={8, 13, 16})
    t.until(2, phase)
    t.step({16: "immediate_imprisonment:7"})
    held = []
    while not t.game.over and t.ps.round <= 3:
        if t.ps.phase == "change_window" and t.game.pending():
            held.append(t.ps.round)
            assert not t.ps.windows and not t.offers(13, "cancel_imprisonment:7")
        t.step()
    assert held == [3]  # Vote 2 was called off; Vote 3 was held
    assert t.state(8) is PlayerState.GHOST and t.ps.cards[P(13)] == "cancel_imprisonment"


def test_no_other_variant_has_these_rulings() -> None:
    from mafia_arena.rules import load_variant

    game = Game(load_variant("classic"), 9, 1)
    with pytest.raises(IllegalModeration):
        game.moderate("sanction", 0, "no moderator here")


@pytest.mark.parametrize("voted", [True, False])
def test_taking_part_is_settled_at_the_end_of_the_change_window(voted: bool) -> None:
    """7.2: a voter took part if they hold a ballot at the end of the CHANGE WINDOW. A
    seat sanctioned during VOTE-END ACTIONS loses its ballot (4.3); released before
    RESOLUTION it is Active and obliged again, but whether it took part was settled
    when the window closed: no absence if it held a ballot then, one if it did not."""
    t = Table(keep={2, 14}, absent=set() if voted else {14})
    t.until(1, "vote_end")
    assert (P(14) in t.ps.ballots) is voted
    t.game.moderate("sanction", P(14), "insulted a player")
    assert P(14) not in t.ps.ballots
    t.game.moderate("release", P(14))
    assert t.state(14) is PlayerState.ACTIVE
    t.finish_round(1)
    charged = [f for f in t.facts_absence() if f.seat == P(14)]
    assert len(charged) == (0 if voted else 1)
    assert t.ps.absences_total[P(14)] == (0 if voted else 1)
    assert t.ps.absences_consecutive[P(14)] == (0 if voted else 1)
    assert not t.ps.took_part  # the record lasts one round's vote


def test_taking_part_resets_the_consecutive_count_of_a_player_held_through_resolution() -> None:
    """7.2: the consecutive count is reset to 0 by taking part, settled at the end of the
    CHANGE WINDOW. A voter who took part and is then imprisoned by the moderator during
    VOTE-END ACTIONS, still held at RESOLUTION, took part all the same: the count from an
    earlier absence is reset, and a later absence starts a new run instead of removing."""
    t = Table(keep={2, 14}, absent={14})
    t.finish_round(1)
    assert t.ps.absences_consecutive[P(14)] == 1  # absent in Vote 1
    t.absent = set()
    t.until(2, "vote_end")
    assert P(14) in t.ps.took_part
    t.game.moderate("sanction", P(14), "insulted a player")
    t.until(2, "last_words")
    assert t.state(14) is PlayerState.IMPRISONED  # held through RESOLUTION
    assert t.ps.absences_consecutive[P(14)] == 0
    assert t.ps.absences_total[P(14)] == 1


def test_a_player_held_from_vote_end_through_resolution_is_not_charged() -> None:
    """An obliged voter who held no ballot at the end of the CHANGE WINDOW but is
    Imprisoned at RESOLUTION, where absences are charged (3.3), is not charged: only an
    Active player is (4.2, "Charged with absences"), and a removal for absences is a
    move from Active only (4.3). Both counts stay as they were."""
    t = Table(keep={2, 14}, absent={14})
    t.until(1, "vote_end")
    assert P(14) in t.ps.obliged and P(14) not in t.ps.took_part
    t.game.moderate("sanction", P(14), "insulted a player")
    t.until(1, "last_words")
    assert t.state(14) is PlayerState.IMPRISONED
    assert all(f.seat != P(14) for f in t.facts_absence())
    assert (t.ps.absences_total[P(14)], t.ps.absences_consecutive[P(14)]) == (0, 0)


def test_a_vote_cast_when_not_obliged_leaves_the_consecutive_count_unchanged() -> None:
    """7.2 (Decision): "A vote in which the player was not obliged ... leaves it
    unchanged". Imprisoned at VOTE CLOSE and released in the CHANGE WINDOW, the player may
    vote (7.1); voting there neither charges nor resets, so the run of an earlier absence
    goes on."""
    t = Table(keep={2, 14}, absent={14})
    t.finish_round(1)
    assert t.ps.absences_consecutive[P(14)] == 1  # absent in Vote 1
    t.absent = set()
    t.until(2, "afternoon")
    t.game.moderate("sanction", P(14), "insulted a player")
    t.until(2, "change_window")
    t.game.moderate("release", P(14))
    t.step({14: "vote:1"})
    t.finish_round(2)
    ballots = [f for f in t.facts(Votes) if f.kind == "vote"][-1].votes
    assert ballots.get(P(14)) == P(2)  # voted, not obliged
    assert t.ps.absences_consecutive[P(14)] == 1
    assert t.ps.absences_total[P(14)] == 1
