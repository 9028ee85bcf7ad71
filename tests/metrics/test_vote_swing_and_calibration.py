"""Issue 16 item 7: vote swing per message and per speaker from the intention polls, and
the calibration of stated beliefs (expected calibration error, overconfidence)."""

from __future__ import annotations

import random

import pytest

from mafia_arena.engine import Game
from mafia_arena.metrics import compute_metrics
from mafia_arena.metrics.calibration import calibration_error, overconfidence
from mafia_arena.metrics.facts import MAFIA, TOWN, Poll
from mafia_arena.metrics.persuasion import vote_swings
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import GameLog

SIDES = {0: TOWN, 1: TOWN, 2: TOWN, 3: MAFIA}


def poll(after: tuple[int, ...], intents: dict[int, int | None], day: int = 1) -> Poll:
    return Poll(day, after, intents, SIDES)


def test_a_message_that_moves_listeners_onto_its_speakers_target() -> None:
    polls = [
        poll((), {0: 1, 1: 0, 2: None, 3: 0}),
        # P1 (seat 0) speaks and intends 3 (mafia): seats 1 and 2 follow, 3 stays
        poll((0,), {0: 3, 1: 3, 2: 3, 3: 0}),
        # P4 (seat 3, mafia) speaks, intends 1: seat 1 follows, off the mafioso
        poll((3,), {0: 3, 1: 1, 2: 3, 3: 1}),
    ]
    swings = vote_swings(polls)
    first = swings.of_speaker(0)
    assert first["vote_swing"] == pytest.approx(2 / 3)  # seats 1, 2 moved; 3 did not
    assert first["vote_pull"] == pytest.approx(2 / 3)  # both now on the speaker's target
    assert first["swing_onto_mafia"] == pytest.approx(2 / 3)
    mafia = swings.of_speaker(3)
    assert mafia["vote_swing"] == pytest.approx(1 / 3)
    assert mafia["vote_pull"] == pytest.approx(1 / 3)
    assert mafia["swing_onto_mafia"] == pytest.approx(-1 / 3)
    assert swings.of_speaker(1) == {"vote_swing": None, "vote_pull": None, "swing_onto_mafia": None}
    totals = swings.totals()
    assert totals["vote_swing_per_message"] == pytest.approx(3 / 6)
    assert totals["swing_onto_mafia_by_town"] == pytest.approx(2 / 3)
    assert totals["swing_onto_mafia_by_mafia"] == pytest.approx(-1 / 3)


def test_polls_of_another_day_and_parallel_rounds_are_not_one_speakers() -> None:
    polls = [
        poll((), {0: 1, 1: 0, 2: 0, 3: 0}),
        poll((0, 1), {0: 2, 1: 2, 2: 1, 3: 1}),  # a parallel round: game level only
        poll((2,), {0: 2, 1: 2, 2: 1, 3: 1}, day=2),  # no poll before it on day 2
    ]
    swings = vote_swings(polls)
    assert all(v is None for s in range(4) for v in swings.of_speaker(s).values())
    assert swings.totals()["vote_swing_per_message"] == pytest.approx(1.0)  # seats 2, 3


def test_swing_metrics_reach_a_played_games_record() -> None:
    variant = load_variant("standard", {"vote_intentions": True, "discussion_rounds": 1})
    game = Game(variant, 7, 4)
    rng = random.Random(4)
    while not game.over:
        for seat, request in sorted(game.pending().items()):
            game.submit(seat, rng.choice(request.choices))
    metrics = compute_metrics(GameLog.from_game(game), variant)
    assert 0.0 <= metrics["game"]["vote_swing_per_message"] <= 1.0
    spoke = [s for s, m in metrics["per_seat"].items() if m["vote_swing"] is not None]
    assert spoke
    plain = compute_metrics(GameLog.from_game(_played(load_variant("standard"))))
    assert plain["game"]["vote_swing_per_message"] is None  # no polls: undefined, not 0


def _played(variant) -> Game:
    game = Game(variant, 7, 4)
    rng = random.Random(4)
    while not game.over:
        for seat, request in sorted(game.pending().items()):
            game.submit(seat, rng.choice(request.choices))
    return game


def test_calibration_error_and_overconfidence() -> None:
    honest = [(0.7, 1)] * 7 + [(0.7, 0)] * 3 + [(0.2, 1)] * 2 + [(0.2, 0)] * 8
    assert calibration_error(honest) == pytest.approx(0.0)
    sure_and_wrong = [(1.0, 0), (0.0, 1)]
    assert calibration_error(sure_and_wrong) == pytest.approx(1.0)
    assert overconfidence(sure_and_wrong) == pytest.approx(1.0)
    assert overconfidence([(0.5, 1), (0.5, 0)]) == pytest.approx(0.0)
    assert overconfidence([(1.0, 1), (0.0, 0)]) == pytest.approx(0.0)  # sure and right
    assert overconfidence([(0.9, 0), (0.9, 1)]) == pytest.approx(0.4)
    assert overconfidence([(0.6, 1), (0.4, 0)]) == pytest.approx(-0.4)
    assert calibration_error([]) is None and overconfidence([]) is None
