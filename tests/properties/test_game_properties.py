"""Property tests over random games of every bundled variant.

- a seat's view does not change when the hidden roles of two other seats are swapped in
  a way consistent with what that seat knows (their night decisions swap with them),
  nor does its ``history`` observation (plain and egocentric), while the omniscient
  `state()` encoding does;
- the dead never act (except the classic "last dead" tie-breaker and club's last word);
- every game ends within the variant's declared maximum length;
- replaying a log gives the same final state;
- the same seed and decisions give a byte-identical log.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mafia_arena.engine import Game
from mafia_arena.engine.catalogue import (
    Allies,
    Death,
    GameEnded,
    GameMasterNotice,
    NightResult,
    OracleAnswer,
    Reveal,
    RoleChange,
    Runoff,
    StateChanged,
    StatusShown,
)
from mafia_arena.engine.palermo.state import of as palermo_state
from mafia_arena.engine.player_states import PlayerState
from mafia_arena.rules import available_variants, load_variant
from mafia_arena.runner import GameLog, replay
from mafia_arena.views import SeatTracker
from mafia_arena.views.encode_history import HistoryEncoder, ObservationSpec, StateEncoder
from mafia_arena.views.text import render_transcript, render_view

VARIANTS = available_variants()
PRIVATE_KINDS = ("night:", "night_chat", "describe")
DEAD_MAY = {"last_dead", "last_word"}
GHOST_MAY = {"turn", "speak", "change_vote", "runoff", "last_words"}
"""Palermo: a ghost (not a permanently out player) acts by rule — echo voters post and
vote, today's victim may play Failed Assassination, a voted-out player speaks last
words."""
OUTCOME = {"death", "no_death", "protected", "silenced", "game_over", "no_execution", "phase"}
SETTINGS = settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def games(draw):
    name = draw(st.sampled_from(VARIANTS))
    variant = load_variant(name)
    if "reveal_on_death" in variant.params and draw(st.booleans()):
        variant = load_variant(name, {"reveal_on_death": False})
    low = max(variant.min_players, 5)
    high = min(variant.max_players or low + 9, low + 9)
    players = draw(st.integers(low, high))
    seed = draw(st.integers(0, 2**31 - 1))
    return variant, players, seed


def play_random(game: Game, policy_seed: int, check=None) -> Game:
    rng = random.Random(policy_seed)
    while not game.over:
        for seat, request in sorted(game.pending().items()):
            if check:
                check(game, seat, request)
            game.submit(seat, rng.choice(request.choices))
    return game


@SETTINGS
@given(games(), st.integers(0, 2**31 - 1))
def test_the_dead_never_act_and_games_end_within_the_maximum_length(setup, policy_seed):
    variant, players, seed = setup

    def check(game, seat, request):
        # the rules ask the dead only for the classic tie-break and club's last word
        if game.state.alive(seat) or request.kind in DEAD_MAY:
            return
        assert game.variant.palermo is not None, request.kind
        assert palermo_state(game).states.of(seat) is not PlayerState.OUT, request.kind
        assert request.kind in GHOST_MAY, request.kind

    game = play_random(Game(variant, players, seed), policy_seed, check)
    assert game.over
    assert game.state.day <= game.max_rounds + 1
    closing = [e.kind for e in game.events[-2:]]
    # Palermo shows the cards still held right after the result
    assert closing[-1] == "game_over" or closing == ["game_over", "cards_shown"]


@SETTINGS
@given(games(), st.integers(0, 2**31 - 1))
def test_same_seed_and_decisions_give_a_byte_identical_log_that_replays(setup, policy_seed):
    variant, players, seed = setup
    first = play_random(Game(variant, players, seed), policy_seed)
    second = play_random(Game(variant, players, seed), policy_seed)
    log = GameLog.from_game(first).to_jsonl()
    assert log == GameLog.from_game(second).to_jsonl()
    rebuilt = replay(GameLog.from_game(first))
    assert GameLog.from_game(rebuilt).to_jsonl() == log
    assert rebuilt.state == first.state


def _mentions(event, seats: set[int]) -> bool:
    """Does a visible event legitimately tell the observer something about `seats`?"""
    f = event.fact
    if isinstance(f, Death | Reveal) and f.seat in seats:
        return True  # a death can depend on a hidden role (immortal, kamikaze, ...)
    if isinstance(f, NightResult):
        return bool(seats & set(f.targets)) or f.attackers is not None
    if isinstance(f, Allies):
        return bool(seats & set(f.allies))
    # the forum game: an announced status (a disguise, a question mark's copy) and a
    # game master's result follow hidden roles; Palermo: a state change (a snitch, the
    # Rival Mafioso's killer, a card), Pythia's answer and a runoff (or the Mayor's
    # tie-break instead) follow hidden roles too
    return isinstance(f, RULE_GIVEN)


RULE_GIVEN = (
    GameEnded | RoleChange | StatusShown | GameMasterNotice | StateChanged | OracleAnswer | Runoff
)


@settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(games(), st.integers(0, 2**31 - 1), st.data())
def test_view_is_unchanged_when_hidden_roles_of_others_are_swapped(setup, policy_seed, data):
    variant, players, seed = setup
    game_a = Game(variant, players, seed)
    cards = [s.card for s in game_a.state.seats]
    observer = data.draw(st.integers(0, players - 1), label="observer")
    tracker_a = SeatTracker(observer)
    knowledge = tracker_a.update(game_a)
    known = set(knowledge.allies) | {observer}
    candidates = [s for s in range(players) if s not in known]
    pairs = [(a, b) for a in candidates for b in candidates if a < b and cards[a] != cards[b]]
    assume(pairs)
    a, b = data.draw(st.sampled_from(pairs), label="swap")
    swapped = list(cards)
    swapped[a], swapped[b] = swapped[b], swapped[a]
    # Palermo deals the intrigue cards by team (2.3), so a seat's own card follows the
    # hidden deal: both worlds hold the first world's hands, as the differential test does
    hands = dict(palermo_state(game_a).cards) if variant.palermo is not None else None
    if hands is not None:
        game_a = Game(variant, players, seed, hands=hands)
    game_b = Game(variant, players, seed, deal=swapped, hands=hands)
    tracker_b = SeatTracker(observer)
    # the history observation, plain and egocentric: one encoder per game, so nothing
    # cached is shared between the two
    specs = (ObservationSpec("history", 2), ObservationSpec("history", 2, egocentric=True))
    encoders = [
        (HistoryEncoder(variant, players, s), HistoryEncoder(variant, players, s)) for s in specs
    ]
    # the omniscient state is not an observation: it does tell the two deals apart
    states = StateEncoder(variant, players, None), StateEncoder(variant, players, None)
    assert not np.array_equal(states[0].encode(game_a), states[1].encode(game_b))
    sigma = {a: b, b: a}
    # roles with passive traits legitimately change public outcomes (who dies, who is
    # silenced): there the comparison stops at the first such outcome
    traits = bool(variant.roles[cards[a]].traits or variant.roles[cards[b]].traits)
    rng = random.Random(policy_seed)
    compared = 0
    while not game_a.over:
        before_a, before_b = len(tracker_a.knowledge.events), len(tracker_b.knowledge.events)
        view_a, view_b = tracker_a.view(game_a), tracker_b.view(game_b)
        new = [*view_a.knowledge.events[before_a:], *view_b.knowledge.events[before_b:]]
        if any(_mentions(e, {a, b}) for e in new):
            break
        # The seat's own streams, compared as they are (seat-local numbers, day, phase,
        # fact, private flag, channel): nothing is stripped. The games may run at
        # different paces, so they must agree entry by entry as far as both go, and the
        # observer's own decision, when both ask it, must be identical.
        seen_a, seen_b = list(view_a.knowledge.events), list(view_b.knowledge.events)
        common = min(len(seen_a), len(seen_b))
        differ = next((i for i in range(common) if seen_a[i] != seen_b[i]), None)
        if differ is not None and traits and {seen_a[differ].kind, seen_b[differ].kind} & OUTCOME:
            break  # a passive trait (immortal, kamikaze, ...) changed a public outcome
        assert seen_a[:common] == seen_b[:common]
        lines_a = render_transcript(view_a.knowledge).splitlines()
        lines_b = render_transcript(view_b.knowledge).splitlines()
        common = min(len(lines_a), len(lines_b))
        assert lines_a[:common] == lines_b[:common]
        if view_a.request is not None and view_b.request is not None:
            assert render_view(view_a) == render_view(view_b)
        if len(seen_a) == len(seen_b) and (view_a.request is None) == (view_b.request is None):
            for encoder_a, encoder_b in encoders:  # the same stream gives the same vector
                assert np.array_equal(encoder_a.encode(view_a), encoder_b.encode(view_b))
        compared += 1
        pending_a, pending_b = game_a.pending(), game_b.pending()
        mapped = {}
        for seat, request in pending_a.items():
            private = request.kind.startswith(PRIVATE_KINDS)
            mapped[seat] = sigma.get(seat, seat) if private else seat
        if set(mapped.values()) != set(pending_b):
            break  # the swapped seats' hidden actions diverged legitimately
        # a choice legal in both games (e.g. the mafia cannot target the seat that now
        # holds the other mafia card), so the two games stay comparable
        legal_in_both = {
            seat: sorted(set(r.choices) & set(pending_b[mapped[seat]].choices))
            for seat, r in pending_a.items()
        }
        if not all(legal_in_both.values()):
            break
        for seat in sorted(pending_a):
            decision = rng.choice(legal_in_both[seat])
            game_a.submit(seat, decision)
            game_b.submit(mapped[seat], decision)
    assert compared >= 1
