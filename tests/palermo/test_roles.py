"""One test per Palermo role (5): its three attributes (2.1) and what it does."""

from __future__ import annotations

import pytest
from tests.palermo.table import S16, S20, P, Table

from mafia_arena.engine import Choice, Speech
from mafia_arena.engine.catalogue import Allies, NightResult, SpeechMade
from mafia_arena.engine.player_states import PlayerState
from mafia_arena.rules import load_variant

VARIANT = load_variant("palermo")
GHOST, ACTIVE, OUT = PlayerState.GHOST, PlayerState.ACTIVE, PlayerState.OUT
ATTRIBUTES = {  # role: (formal team, camp at start, killer)
    "known_a": ("mafia", "mafia", True),
    "known_b": ("mafia", "mafia", True),
    "hidden": ("mafia", "mafia", True),
    "archmafioso": ("mafia", "mafia", True),
    "corrupt_cop": ("innocent", "mafia", False),
    "prostitute": ("innocent", "mafia", False),
    "rival": ("mafia", "town", False),
    "detective": ("innocent", "town", False),
    "medium": ("innocent", "town", False),
    "informant": ("innocent", "town", False),
    "mayor": ("innocent", "town", False),
    "lawyer": ("innocent", "town", False),
    "roommate": ("innocent", "town", False),
    "citizen": ("innocent", "town", False),
}


@pytest.mark.parametrize("role", sorted(ATTRIBUTES))
def test_every_role_has_its_formal_team_camp_and_killer_flag(role: str) -> None:
    spec = VARIANT.roles[role]
    formal, camp, killer = ATTRIBUTES[role]
    assert VARIANT.appearance(role) == formal and spec.faction == camp
    assert bool(spec.typed_traits.killer) is killer


def allies_of(t: Table, number: int) -> dict[int, str]:
    return next(
        (
            dict(e.fact.allies)
            for e in t.game.events
            if isinstance(e.fact, Allies) and e.fact.seat == P(number)
        ),
        {},
    )


def test_role_known_a_is_known_to_the_informant_and_assassinates() -> None:
    t = Table(keep={1, 9, 14})
    assert allies_of(t, 9) == {P(1): "known_a"}
    t.until(2, "night_early")
    t.step({1: "assassinate:13:0"})
    t.until(2, "afternoon")
    assert t.state(14) is GHOST


def test_role_known_b_is_known_to_the_rival_mafioso() -> None:
    t = Table()
    assert allies_of(t, 6) == {P(2): "known_b"}


def test_role_hidden_snitches_before_a_known_mafioso() -> None:
    t = Table(keep={1, 3, 9})
    t.until(2, "night_early")
    assert t.offers(3, "snitch:8:simple") and not t.offers(1, "snitch:8:simple")


def test_a_snitch_may_name_any_active_player_who_is_not_a_snitcher() -> None:
    """8.1: named targets are Active players who are not snitchers; a fellow mafioso is
    one (a sure miss, but the rules leave it to the snitcher)."""
    t = Table(keep={1, 3, 9})
    t.until(2, "night_early")
    assert t.offers(3, "snitch:0:simple") and t.offers(3, "snitch:8:simple")
    assert not t.offers(3, "snitch:2:simple")


def test_role_archmafioso_choice_overrides_and_he_may_snitch() -> None:
    t = Table(keep={1, 4, 14, 15})
    t.until(2, "night_early")
    assert t.offers(4, "snitch:8:simple")
    t.step({4: "assassinate:13:0"})
    request = t.game.request(P(1))
    assert request is not None
    assert not any(c.verb == "assassinate" for c in request.choices)
    t.until(2, "afternoon")
    assert t.state(14) is GHOST


def test_an_imprisoned_archmafiosos_choice_no_longer_locks_the_assassination() -> None:
    """5.5: his choice overrides only while he is Active; once imprisoned the same night,
    another mafioso may set the assassination again, and his choice is what happens."""
    t = Table(hands={16: "immediate_imprisonment"}, keep={1, 4, 14, 15, 16})
    t.until(2, "night_early")
    t.step({4: "assassinate:13:3", 16: "immediate_imprisonment:3"})
    assert t.state(4) is PlayerState.IMPRISONED
    assert t.offers(1, "assassinate:14:0")
    t.step({1: "assassinate:14:0"})
    t.until(2, "afternoon")
    assert t.state(15) is GHOST and t.state(14) is ACTIVE


def test_role_corrupt_cop_looks_innocent_to_the_detective() -> None:
    t = Table(keep={5, 7})
    t.until(2, "night_early")
    t.step({7: "investigate:4"})
    t.until(2, "dead_time")
    results = [e.fact for e in t.game.events if isinstance(e.fact, NightResult)]
    assert results[-1].result == "innocent"


def test_role_prostitute_blocks_only_before_midnight() -> None:
    t = Table(S20, keep={7, 9})
    t.until(2, "night_early")
    assert t.offers(7, "block:8")
    t.until(2, "night_late")
    assert not t.offers(7, "block:8")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_block_on_the_designated_assassin_holds_when_he_is_replaced_at_noon(seed: int) -> None:
    """5.6 / OP-38: a Prostitute block on the designated assassin cancels the kill, even
    when he is imprisoned before NOON and another mafioso is drawn in his place."""
    t = Table(S20, hands={20: "immediate_imprisonment"}, keep={1, 7, 16, 20}, seed=seed)
    t.until(2, "night_early")
    t.step({7: "block:0", 1: "assassinate:15:0"})
    t.until(2, "morning")
    t.step({20: "immediate_imprisonment:0"})
    t.until(2, "afternoon")
    assert t.state(1) is PlayerState.IMPRISONED and t.state(16) is ACTIVE


def test_role_rival_mafioso_has_no_latent_action() -> None:
    t = Table(keep={6})
    t.until(2, "night_early")
    request = t.game.request(P(6))
    assert request is not None
    verbs = {c.verb for c in request.choices}
    assert verbs <= {"pass", "vote", "post"}


def test_role_detective_investigates_active_players_only() -> None:
    t = Table(keep={7})
    t.until(2, "night_early")
    ghost = t.ps.states.in_state(GHOST)[0]
    assert t.offers(7, "investigate:0") and not t.offers(7, f"investigate:{ghost}")


def test_role_medium_investigates_ghosts_only() -> None:
    t = Table(keep={8})
    t.until(2, "night_early")
    ghost = t.ps.states.in_state(GHOST)[0]
    assert t.offers(8, f"investigate:{ghost}") and not t.offers(8, "investigate:0")


@pytest.mark.parametrize("named", [9, 14])
def test_role_informant_is_the_simple_snitch_target(named: int) -> None:
    t = Table(keep={3, 9, 14})
    t.until(2, "night_early")
    t.step({3: f"snitch:{P(named)}:simple"})
    t.until(2, "afternoon")
    if named == 9:
        assert t.state(9) is GHOST and t.state(3) is ACTIVE
    else:
        assert t.state(14) is ACTIVE and t.state(3) is OUT


def test_role_mayor_has_no_mark_as_an_echo_ghost() -> None:
    t = Table(hands={16: "echo"}, keep={3, 10, 14, 16})
    t.until(2, "night_early")
    t.step({1: "assassinate:9:0"})
    t.until(2, "afternoon")
    t.step({16: "echo"})
    assert t.ps.states.is_echo_voter(P(10)) and t.offers(10, "vote:2")


def test_role_lawyer_may_defend_himself_once() -> None:
    t = Table(keep={11})
    t.until(1, "vote_end")
    assert t.offers(11, f"defend:{P(11)}")
    t.step({11: f"defend:{P(11)}"})
    t.finish_round(1)
    t.until(2, "vote_end")
    request = t.game.request(P(11))
    assert request is not None
    assert request.choices == (Choice("pass"),)


def test_role_roommates_know_each_other() -> None:
    t = Table()
    assert allies_of(t, 12) == {P(13): "roommate"} and allies_of(t, 13) == {P(12): "roommate"}


def test_role_citizen_has_nothing_but_votes_posts_and_cards() -> None:
    t = Table(S16, keep={14})
    t.until(2, "night_early")
    request = t.game.request(P(14))
    assert request is not None
    verbs = {c.verb for c in request.choices}
    assert verbs <= {"pass", "vote", "post"}


@pytest.mark.parametrize(("poster", "members"), [(3, {1, 2, 3, 4}), (12, {12, 13})])
def test_private_channels_reach_their_members_only(poster: int, members: set[int]) -> None:
    t = Table(keep=members)
    t.until(1, "morning")
    assert not t.offers(14, "post_channel")
    t.step({poster: "post_channel"})
    t.step({poster: Speech("meet me tonight")})
    said = next(e for e in t.game.events if isinstance(e.fact, SpeechMade))
    assert said.visibility.seats == {P(m) for m in members}
