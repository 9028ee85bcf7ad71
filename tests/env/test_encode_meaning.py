"""What the numeric observation means, decoded block by block and checked against the
seat's knowledge: a death clears the alive flag, ballots fill the vote record, a claim
lights its speaker's row, and so on. Breaking any one encoding rule fails the check.
(The ``history`` layout's pieces are broken the same way in test_encode_history.py.)"""

from __future__ import annotations

import random

import numpy as np
import pytest

from mafia_arena.engine import Game
from mafia_arena.engine.catalogue import Death, Nomination, Votes
from mafia_arena.rules import load_variant
from mafia_arena.views import encode
from mafia_arena.views.encode import PHASES, ObservationEncoder, ObservationLayout, phase_word
from mafia_arena.views.view import SeatTracker, View

CASES = [
    ("simple", 7, 3),
    ("standard", 8, 4),
    ("classic", 9, 5),
    ("club", 12, 6),
    ("club", 16, 1),
    ("palermo", 12, 2),
]


def _ones(block: np.ndarray) -> set[tuple[int, ...]]:
    return {tuple(int(i) for i in index) for index in np.argwhere(block == 1.0)}


def check_meaning(layout: ObservationLayout, vector: np.ndarray, view: View, new) -> None:
    """Assert that every block of `vector` says what the seat knows (see views.encode)."""
    d, k = layout.decode(vector), view.knowledge
    assert _ones(d["seat"]) == {(view.seat,)}
    if k.role in layout.role_index:
        assert _ones(d["role"]) == {(layout.role_index[k.role],)}
    if k.faction in layout.faction_index:
        assert _ones(d["faction"]) == {(layout.faction_index[k.faction],)}
    assert d["alive"].tolist() == [float(a) for a in k.alive]
    for name, roles in (("revealed", k.revealed), ("allies", k.allies)):
        assert _ones(d[name]) == {(s, layout.role_index[r]) for s, r in roles.items()}
    assert _ones(d["checks"]) == {(t, layout.result_index[r]) for t, r in k.checks.items()}
    if "compare" in d:
        same = {
            (a, b, 0 if r.result == "same" else 1)
            for r in k.results
            if r.action == "compare" and r.result in ("same", "different")
            for a, b in (r.targets, r.targets[::-1])
        }
        assert _ones(d["compare"]) == same
    if "watch" in d:
        seen = {
            (r.targets[0], s) for r in k.results if r.action == "watch" for s in r.attackers or ()
        }
        assert _ones(d["watch"]) == seen
    phase = 3 if k.over else PHASES.index(phase_word(k.phase))
    assert _ones(d["phase"]) == {(phase,)}
    assert d["day"][0] == pytest.approx(min(1.0, k.day / layout.max_rounds))
    assert _ones(d["silenced"]) == {(s,) for s in k.silenced}
    last = k.ballots[-1][1].votes if k.ballots else {}
    assert _ones(d["votes"]) == {(v, t) for v, t in last.items() if t is not None}
    assert _ones(d["nominations"]) == set(k.nominations_today)
    claims = {
        "accusations": {(s.seat, s.claim.target) for s in k.said if s.claim.kind == "accuse"},
        "vouches": {(s.seat, s.claim.target) for s in k.said if s.claim.kind == "vouch"},
    }
    for name, cells in claims.items():
        assert _ones(d[name]) == {c for c in cells if c[1] is not None}
    roles_claimed = {
        (s.seat, layout.role_lower[(s.claim.value or "").lower()])
        for s in k.said
        if s.claim.kind == "claim_role" and (s.claim.value or "").lower() in layout.role_lower
    }
    assert _ones(d["role_claims"]) == roles_claimed
    results_claimed = {
        (s.seat, s.claim.target, 0 if s.claim.value == "mafia" else 1)
        for s in k.said
        if s.claim.kind == "claim_result" and s.claim.target is not None
    }
    assert _ones(d["result_claims"]) == results_claimed
    picked = [int(c.split(":")[1]) for c in k.latest_picks.values() if c.split(":")[-1].isdigit()]
    assert {i for i, x in enumerate(d["team_picks"]) if x > 0} == set(picked)
    if "states" in d:  # Palermo: every seat's state, and the seat's own card only
        states = k.states or ("active",) * layout.players
        assert _ones(d["states"]) == {(s, layout.state_index[st]) for s, st in enumerate(states)}
        card = {(layout.card_index[k.card],)} if k.card else set()
        assert _ones(d["card"]) == card
    kind = "none" if view.request is None else view.request.kind
    assert _ones(d["request"]) == {(layout.kind_index.get(kind, len(layout.kinds) - 1),)}
    # the named consequences of this step's events
    for entry in new:
        f = entry.fact
        if isinstance(f, Death):
            assert d["alive"][f.seat] == 0.0, "a death clears the alive flag"
            if f.role is not None:
                assert d["revealed"][f.seat, layout.role_index[f.role]] == 1.0
        elif isinstance(f, Votes) and entry is k.ballots[-1][1]:
            assert d["votes"].sum() == sum(t is not None for t in f.votes.values())
        elif isinstance(f, Nomination) and k.phase == "day":
            assert d["nominations"][f.seat, f.target] == 1.0


def _play(variant_name: str, players: int, seed: int) -> int:
    """Play a random game, checking every seat's observation at every step; the number of
    observations checked."""
    variant = load_variant(variant_name)
    game = Game(variant, players, seed)
    encoder = ObservationEncoder(variant, players)
    trackers = [SeatTracker(s) for s in range(players)]
    rng = random.Random(seed)
    checked = 0
    while True:
        for tracker in trackers:
            before = len(tracker.knowledge.events)
            view = tracker.view(game)
            new = view.knowledge.events[before:]
            check_meaning(encoder.layout, encoder.encode(view), view, new)
            checked += 1
        if game.over:
            return checked
        for seat, request in sorted(game.pending().items()):
            game.submit(seat, rng.choice(request.choices))


@pytest.mark.parametrize(("variant", "players", "seed"), CASES)
def test_every_block_says_what_the_seat_knows(variant, players, seed):
    assert _play(variant, players, seed) > players


def test_decode_names_every_block_and_checks_the_size():
    layout = ObservationLayout(load_variant("club"), 10)
    vector = np.arange(layout.size, dtype=np.float32)
    decoded = layout.decode(vector)
    assert list(decoded) == list(layout.blocks)
    assert sum(block.size for block in decoded.values()) == layout.size
    assert decoded["alive"].shape == (10,) and decoded["votes"].shape == (10, 10)
    with pytest.raises(ValueError):
        layout.decode(vector[:-1])


def _broken(state, knowledge) -> None:
    """An encoding rule that writes nothing."""


@pytest.mark.parametrize("rule", sorted(encode.RULES))
def test_breaking_any_encoding_rule_fails_the_meaning_check(rule, monkeypatch):
    monkeypatch.setitem(encode.RULES, rule, _broken)
    with pytest.raises(AssertionError):
        for case in CASES:
            _play(*case)
