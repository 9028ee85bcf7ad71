"""`views.encode`: fixed size, in bounds, incremental = from scratch, and private.

The privacy property (OpenSpiel's social-deduction check, as a hypothesis test): a
seat's observation must not change when the hidden roles of two other seats are
swapped consistently with what that seat knows, as long as everything public stays the
same. The games are driven by a role-blind policy that never targets the two swapped
seats, so both worlds have the same public history until one of them dies.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.env.env_cases import SMALL_CASES

from mafia_arena import env as mafia_env
from mafia_arena.engine import PASS, Choice, Game, Request
from mafia_arena.env.session import GameSession
from mafia_arena.rules import Variant, available_variants, load_variant
from mafia_arena.rules.composition import deck
from mafia_arena.views.encode import ObservationEncoder
from mafia_arena.views.encode_history import ObservationSpec, make_encoder
from mafia_arena.views.knowledge import Knowledge
from mafia_arena.views.text import render_view
from mafia_arena.views.view import SeatTracker, view_of


def blind_choice(request: Request, avoid: set[int]) -> Choice:
    """Pass where possible, else the first choice not aimed at a seat in `avoid`."""
    if PASS in request.choices:
        return PASS
    for choice in request.choices:
        if choice.target not in avoid:
            return choice
    return request.choices[0]


def plain_roles(variant: Variant) -> set[str]:
    """Roles that know nobody and never act at night."""
    actors = {a for step in variant.night for a in (*step.actors, *step.observers)}
    return {r for r, spec in variant.roles.items() if not spec.knows_roles and r not in actors}


@pytest.mark.parametrize(("variant", "players"), SMALL_CASES)
def test_incremental_encoding_equals_encoding_from_scratch(variant: str, players: int) -> None:
    spec = load_variant(variant)
    encoder = ObservationEncoder(spec, players)
    trackers = [SeatTracker(s) for s in range(players)]
    rng = random.Random(0)
    game = Game(spec, players, seed=7)
    while not game.over:
        for seat, request in sorted(game.pending().items()):
            for watcher in rng.sample(range(players), 2):
                fast = encoder.encode(trackers[watcher].view(game))
                slow = ObservationEncoder(spec, players).encode(view_of(game, watcher))
                np.testing.assert_array_equal(fast, slow)
                assert fast.dtype == np.float32 and fast.shape == (encoder.size,)
                assert fast.min() >= 0.0 and fast.max() <= 1.0
            game.submit(seat, rng.choice(request.choices))
    final = encoder.encode(trackers[0].view(game))
    assert final[encoder.layout.blocks["phase"].offset + 3] == 1.0


def _parallel_observations(variant: str, players: int, seed: int) -> int:
    """Play a Parallel game with random legal actions; at every step check that every
    seat's observation equals a fresh encoder's vector for the seat's view, and at the
    end that no array handed out was written afterwards. Returns how many times an
    array came back again although the seat's view had new entries."""
    env = mafia_env.raw_parallel_env(variant, players)
    observations, _ = env.reset(seed=seed)
    session, rng = env.session, random.Random(seed)
    handed: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    reused = 0
    counts = [len(session.view(seat).knowledge.events) for seat in range(players)]
    while True:
        for seat in range(players):
            observation = observations[f"player_{seat}"]["observation"]
            fresh = ObservationEncoder(session.variant, players).encode(session.view(seat))
            np.testing.assert_array_equal(observation, fresh)
            count = len(session.view(seat).knowledge.events)
            if id(observation) in handed and count > counts[seat]:
                reused += 1
            handed.setdefault(id(observation), (observation, observation.copy()))
            counts[seat] = count
        if not env.agents:
            break
        actions = dict.fromkeys(env.agents, 0)
        for seat in session.pending_seats():
            request = session.view(seat).request
            assert request is not None
            actions[f"player_{seat}"] = rng.choice(session.table.ids(request))
        observations, *_ = env.step(actions)
    for array, copy in handed.values():
        np.testing.assert_array_equal(array, copy)
    return reused


@pytest.mark.parametrize(("variant", "players"), SMALL_CASES)
def test_every_parallel_observation_equals_a_fresh_encoding_of_the_seat(
    variant: str, players: int
) -> None:
    _parallel_observations(variant, players, seed=5)


def test_entries_the_encoding_does_not_show_hand_back_the_same_array() -> None:
    """Club's narrations and its ballots (shown only once tallied) run no encoding
    rule: the seat's last array comes back without another copy, still equal to a
    fresh encoding, and never written afterwards."""
    assert _parallel_observations("club", 10, seed=5) > 0


def _worlds(variant: str, seed: int, pick_observer: str) -> tuple | None:
    spec = load_variant(variant)
    players = max(spec.min_players, 7)
    cards = deck(spec, players)
    random.Random(seed).shuffle(cards)
    plain = plain_roles(spec)
    mafia = {r for r, s in spec.roles.items() if spec.factions[s.faction].side == "mafia"}
    if pick_observer == "villager":
        observer = next(i for i, c in enumerate(cards) if c in plain)
        a: int | None = next(i for i, c in enumerate(cards) if c in mafia)
        b = next((i for i, c in enumerate(cards) if i != observer and c not in mafia), None)
    else:  # a mafioso: swap two town seats with different roles
        observer = next(i for i, c in enumerate(cards) if c in mafia)
        town = [i for i, c in enumerate(cards) if c not in mafia]
        a = next((i for i in town if cards[i] not in plain), None)
        b = next((i for i in town if a is not None and cards[i] != cards[a]), None)
    if a is None or b is None:
        return None
    swapped = list(cards)
    swapped[a], swapped[b] = swapped[b], swapped[a]
    games = [Game(spec, players, seed, deal=d) for d in (cards, swapped)]
    return spec, players, observer, {a, b}, games


PRIVACY_VARIANTS = [
    v for v in ("simple", "standard", "classic", "club") if v in available_variants()
]


@settings(max_examples=16, deadline=None)
@given(
    variant=st.sampled_from(PRIVACY_VARIANTS),
    seed=st.integers(0, 10_000),
    observer=st.sampled_from(["villager", "mafioso"]),
)
def test_observation_ignores_hidden_roles_of_others(variant: str, seed: int, observer: str) -> None:
    worlds = _worlds(variant, seed, observer)
    if worlds is None:
        return
    spec, players, seat, swapped, games = worlds
    encoders = [ObservationEncoder(spec, players) for _ in games]
    trackers = [SeatTracker(seat) for _ in games]
    compared = 0
    while not any(g.over for g in games) and all(g.state.alive(s) for g in games for s in swapped):
        views = [t.view(g) for t, g in zip(trackers, games, strict=True)]
        np.testing.assert_array_equal(encoders[0].encode(views[0]), encoders[1].encode(views[1]))
        assert render_view(views[0]) == render_view(views[1])
        compared += 1
        for game in games:
            for s, request in sorted(game.pending().items()):
                game.submit(s, blind_choice(request, swapped))
    assert compared > 0


def test_swapping_a_known_ally_changes_the_observation() -> None:
    """The negative control of the privacy test: what a seat knows does show."""
    spec = load_variant("standard")
    cards = ["mafioso", "mafioso", "villager", "villager", "villager", "doctor", "detective"]
    swapped = ["mafioso", "villager", "mafioso", "villager", "villager", "doctor", "detective"]
    encoders = [ObservationEncoder(spec, 7) for _ in range(2)]
    observations = [
        e.encode(view_of(Game(spec, 7, 0, deal=d), 0))
        for e, d in zip(encoders, (cards, swapped), strict=True)
    ]
    allies = encoders[0].layout.blocks["allies"]
    differs = np.flatnonzero(observations[0] != observations[1])
    assert differs.size and all(allies.offset <= i < allies.offset + allies.size for i in differs)


def test_own_check_results_are_encoded() -> None:
    spec = load_variant("standard")
    game = Game(spec, 7, seed=0)
    detective = next(s.seat for s in game.state.seats if s.role == "detective")
    encoder = ObservationEncoder(spec, 7)
    tracker = SeatTracker(detective)
    rng = random.Random(1)
    while not game.over and not tracker.update(game).results:
        for seat, request in sorted(game.pending().items()):
            game.submit(seat, rng.choice(request.choices))
    knowledge = tracker.update(game)
    if not knowledge.results:
        pytest.skip("the detective died before checking")
    result = knowledge.results[0]
    checks = encoder.encode(tracker.view(game))[encoder.layout.blocks["checks"].offset :]
    row = checks[result.targets[0] * len(encoder.layout.results) :][: len(encoder.layout.results)]
    assert row[encoder.layout.result_index[result.result]] == 1.0


@pytest.mark.parametrize(("variant", "players"), SMALL_CASES)
def test_each_fact_kind_replaces_only_the_knowledge_fields_it_declares(
    variant: str, players: int
) -> None:
    """`knowledge.CHANGES` is what the encoder trusts to skip rules: a handler that
    replaced an undeclared field would leave a stale block in every observation."""
    from dataclasses import fields

    from mafia_arena.views.knowledge import CHANGES

    spec = load_variant(variant)
    free = {"day", "phase", "events", "transcript", "seat"}
    names = [f.name for f in fields(Knowledge) if f.name not in free]
    rng = random.Random(3)
    game = Game(spec, players, seed=11)
    trackers = [SeatTracker(s) for s in range(players)]
    seen_kinds: set[type] = set()
    while True:
        for tracker in trackers:
            tracker._bind(game)
            assert tracker.stream is not None
            for entry in tracker.stream.pull():
                before = tracker.fold.snapshot()
                tracker.fold.apply(entry)
                after = tracker.fold.snapshot()
                changed = {n for n in names if getattr(before, n) is not getattr(after, n)}
                kind = type(entry.fact)
                seen_kinds.add(kind)
                assert changed <= CHANGES.get(kind, frozenset()), (kind.__name__, changed)
        if game.over:
            break
        for seat, request in sorted(game.pending().items()):
            game.submit(seat, rng.choice(request.choices))
    assert seen_kinds & set(CHANGES)


@pytest.mark.parametrize("layout", ["v0", "history"])
@pytest.mark.parametrize(("variant", "players"), SMALL_CASES)
def test_observing_from_the_live_fold_equals_encoding_a_view(
    variant: str, players: int, layout: str
) -> None:
    """`GameSession.observe` encodes each seat from its live fold, not a snapshot: at
    every step, for every seat (asked or waiting), it must equal a fresh encoder's
    vector for a view built from the whole log, and its mask the request's."""
    observation = ObservationSpec(layout=layout)
    session = GameSession(variant, players, observation=observation, fixed_nights=False)
    game = session.new_game(11)
    rng = random.Random(3)
    steps = 0
    while not game.over:
        for seat in range(players):
            observed = session.observe(seat)
            view = view_of(game, seat)
            fresh = make_encoder(session.variant, players, observation).encode(view)
            np.testing.assert_array_equal(observed["observation"], fresh)
            mask = session.table.shared_mask(view.request)
            np.testing.assert_array_equal(observed["action_mask"], mask)
        seat, request = min(game.pending().items())
        session.submit(seat, rng.choice(request.choices))
        session.close_turn()
        steps += 1
    assert steps > 0
