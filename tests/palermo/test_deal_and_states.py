"""Palermo setup (2.2–2.4), the card deal (2.3) and the player-state machine (4.1–4.3)."""

from __future__ import annotations

from collections import Counter

import pytest
from tests.palermo.table import S16, P

from mafia_arena.engine import Game
from mafia_arena.engine.catalogue import Allies, CardDealt
from mafia_arena.engine.palermo.deal import card_counts
from mafia_arena.engine.palermo.state import of
from mafia_arena.engine.player_states import (
    CAPABILITIES,
    TRANSITIONS,
    Capability,
    IllegalTransition,
    PlayerState,
    StateBook,
    reveals,
)
from mafia_arena.rules import load_variant
from mafia_arena.rules.composition import deck_counts

VARIANT = load_variant("palermo")


@pytest.mark.parametrize("seed", range(5))
def test_T01_card_deal_16_players(seed: int) -> None:
    game = Game(VARIANT, 16, seed, deal=S16)
    cards = of(game).cards
    assert Counter(cards.values()) == {
        "resurrection": 2, "grave_robbing": 2, "extra_vote": 1, "vote_cancellation": 1,
        "immediate_imprisonment": 1, "cancel_imprisonment": 1, "echo": 2, "pythia": 2,
        "failed_assassination": 1, "vote_exemption": 2,
    }  # fmt: skip
    holders = sorted(s for s, c in cards.items() if c == "resurrection")
    assert holders[0] in range(P(1), P(5) + 1) and holders[1] in range(P(6), P(16) + 1)
    assert next(s for s, c in cards.items() if c == "failed_assassination") in range(6, 16)
    assert len(cards) == 15  # one card each at most, exactly one player without
    dealt = [e for e in game.events if isinstance(e.fact, CardDealt)]
    assert all(isinstance(e.fact, CardDealt) and e.visibility.seats == {e.fact.seat} for e in dealt)


@pytest.mark.parametrize("seed", range(5))
def test_T02_card_deal_12_players(seed: int) -> None:
    game = Game(VARIANT, 12, seed)
    cards = of(game).cards
    assert Counter(cards.values()) == Counter(set(cards.values())) and len(cards) == 10
    seat = next(s for s, c in cards.items() if c == "failed_assassination")
    assert game.state.seats[seat].faction == "town" and game.state.seats[seat].role != "rival"


def test_card_counts_follow_the_ratios() -> None:
    spec = VARIANT.palermo
    assert spec is not None
    totals = {n: sum(card_counts(spec, n).values()) for n in (12, 16, 20, 24)}
    assert totals == {12: 10, 16: 15, 20: 17, 24: 22}


@pytest.mark.parametrize("n", range(12, 41))
def test_role_counts_and_fill_rule(n: int) -> None:
    counts = deck_counts(VARIANT, n)
    assert sum(counts.values()) == n
    killers = sum(counts.get(r, 0) for r in ("known_a", "known_b", "hidden", "archmafioso"))
    assert killers == n // 4 and counts["rival"] == 1
    assert counts.get("archmafioso", 0) == (1 if n >= 16 else 0)
    assert counts.get("prostitute", 0) == (1 if n >= 20 else 0)


def test_who_knows_whom() -> None:
    game = Game(VARIANT, 16, 0, deal=S16)
    known = {e.fact.seat: dict(e.fact.allies) for e in game.events if isinstance(e.fact, Allies)}
    assert known[P(6)] == {P(2): "known_b"}  # the Rival Mafioso knows Known B
    assert known[P(9)] == {P(1): "known_a"}  # the Informant knows Known A
    assert known[P(12)] == {P(13): "roommate"}
    assert set(known[P(5)]) == {P(1), P(2), P(3), P(4)}  # the Corrupt Cop knows the mafia
    assert P(5) not in known[P(1)]  # ... one way only
    assert P(7) not in known and P(14) not in known


_A, _G, _I, _O = PlayerState.ACTIVE, PlayerState.GHOST, PlayerState.IMPRISONED, PlayerState.OUT
DIGEST_TRANSITIONS: list[tuple[PlayerState, PlayerState, str]] = [
    # 4.3, in its order, with the engine's cause names
    (_A, _G, "assassination"),  # noon assassination
    (_A, _G, "vote"),  # vote exit, with last words
    (_A, _G, "rival_killer"),  # dying together with the Rival Mafioso
    (_A, _G, "snitch"),  # a simple-snitch hit
    (_A, _I, "imprisonment"),  # Immediate Imprisonment
    (_I, _A, "cancel_imprisonment"),
    (_I, _G, "imprisonment_final"),  # the Cancel window ends without a cancel
    (_G, _A, "resurrection"),
    (_G, _A, "failed_assassination"),  # today's victim only
    (_G, _O, "grave_robbing"),  # revealed, no last words
    (_A, _O, "absences"),  # revealed
    (_A, _O, "penalty"),  # moderator penalty (and expulsion, 4.4), revealed
    (_A, _O, "snitch"),  # snitch consequences, unrevealed
    # 4.4: a sanction imprisonment, which only the moderator lifts
    (_A, _I, "sanction"),
    (_I, _A, "sanction_lifted"),
]
"""The transitions of digest 4.3 (and the moderator's sanction of 4.4), written out
here rather than read from the module, so a move the table lacks is noticed."""


def test_the_transition_table_is_the_digests() -> None:
    written: dict[tuple[PlayerState, PlayerState], set[str]] = {}
    for before, after, cause in DIGEST_TRANSITIONS:
        written.setdefault((before, after), set()).add(cause)
    assert {move: set(causes) for move, causes in TRANSITIONS.items()} == written


@pytest.mark.parametrize(("before", "after", "cause"), DIGEST_TRANSITIONS)
def test_every_state_transition(before: PlayerState, after: PlayerState, cause: str) -> None:
    book = StateBook([before])
    assert book.move(0, after, cause) is before and book.of(0) is after
    assert reveals(after, cause) == (after is PlayerState.OUT and cause != "snitch")
    book = StateBook([before])
    with pytest.raises(IllegalTransition):
        book.move(0, after, "voluntary")


def test_moves_outside_the_table_are_refused() -> None:
    for before in PlayerState:
        for after in PlayerState:
            if (before, after) not in TRANSITIONS:
                with pytest.raises(IllegalTransition):
                    StateBook([before]).move(0, after, "resurrection")


def test_capability_table() -> None:
    active = CAPABILITIES[(PlayerState.ACTIVE, False)]
    ghost = CAPABILITIES[(PlayerState.GHOST, False)]
    echo = CAPABILITIES[(PlayerState.GHOST, True)]
    assert Capability.VOTE in active and Capability.ABSENCES in active
    assert Capability.VOTE not in ghost and Capability.RESURRECTABLE in ghost
    assert Capability.VOTE in echo and Capability.VOTED_FOR not in echo
    assert Capability.PLAY_CARDS not in echo and Capability.COUNTED not in echo
    assert CAPABILITIES[(PlayerState.IMPRISONED, False)] == frozenset()
    assert CAPABILITIES[(PlayerState.OUT, False)] == frozenset()
    book = StateBook([PlayerState.GHOST, PlayerState.ACTIVE])
    assert not book.can(0, Capability.VOTE)
    book.echo = True
    assert book.can(0, Capability.VOTE) and book.is_echo_voter(0) and not book.is_echo_voter(1)
