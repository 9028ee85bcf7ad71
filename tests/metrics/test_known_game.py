"""Every metric of the hand-built game of conftest.py against its value worked by hand."""

from __future__ import annotations

import pytest

from mafia_arena.metrics import compute_metrics
from mafia_arena.runner.log import GameLog

GAME = {
    # outcome
    "win.mafia": 1.0,
    "win.town": 0.0,
    "town_win": 0.0,
    "mafia_win": 1.0,
    "draw": 0.0,
    "length_days": 3,
    "executions": 2,
    "night_kills": 3,
    "town_survival": 1 / 5,
    "mafia_survival": 1 / 2,
    # detection: town votes on mafia 2/4 (day 1) + 2/2 (day 2)
    "irp": 4 / 6,
    "vss": 2 / 2,
    "vss_cast": 2 / 2,
    "nomination_irp": 2 / 2,
    "mafia_elim_share": 1 / 2,
    "investigator_hit_rate": 1.0,
    "brier": (0.01 + 0.16 + 0.01 + 0.04 + 0.09 + 0.49 + 0.25 + 0.25) / 8,
    "auc": (4 + 4 + 2.5 + 3.5) / 16,
    # bins 0.9 |0.9-1|, 0.6 0.4, 0.1 0.1, 0.2 0.2, 0.3 (two, half mafia) 2 x 0.2, 0.5 0
    "calibration_error": (0.1 + 0.4 + 0.1 + 0.2 + 0.4) / 8,
    # mean confidence 5.6/8 - right 6/8 (0.3 on a mafioso wrong, the two 0.5s half)
    "overconfidence": 5.6 / 8 - 6 / 8,
    # no intention polls in this game: every swing is undefined
    "vote_swing_per_message": None,
    "swing_onto_mafia_by_town": None,
    "swing_onto_mafia_by_mafia": None,
    # deception: town votes per exposure, mafia (2+2)/(2+2), town (2+0)/(4+2)
    "votes_per_mafia": 1.0,
    "votes_per_town": 2 / 6,
    "votes_drawn_ratio": 3.0,
    "bus_rate": 1 / 4,
    "town_elims_carried_by_mafia": 1.0,
    "false_role_claims_mafia": 1,
    "false_claim_days_mafia": 1.0,
    "false_role_claims_town": 1,
    "false_claim_days_town": 1.0,
    "false_result_claims_mafia": 0,
    "false_result_claims_town": 1,
    # persuasion
    "intent_change_rate": 1 / 2,
    "intent_off_mafia_rate": 1 / 2,
    # reliability: 3 decisions, 1 fallback; agent stats: 2 re-asks, 1 retry
    "decisions": 3,
    "fallback_rate": 1 / 3,
    "reask_rate": 2 / 3,
    "retry_rate": 1 / 3,
}

PER_SEAT: dict[int, dict[str, float | None]] = {
    0: {
        "days_survived": 2,
        "irp": None,
        "bus_rate": 0.0,
        "votes_received": 2.0,
        "false_role_claims": 1,
        "false_claim_days": 1.0,
        "false_claim_days_sq": 1.0,
        "false_result_claims": 0,
        "fallback_rate": 0.5,
        "reask_rate": 1.0,
        "retry_rate": 0.5,
    },
    1: {"days_survived": 3, "bus_rate": 0.5, "votes_received": 0.0, "irp": None},
    2: {
        "irp": 1.0,
        "vss": 1.0,
        "vss_cast": 1.0,
        "nomination_irp": 1.0,
        "intent_change_rate": 0.0,
        "intent_off_mafia_rate": 0.0,
        "false_role_claims": 0,
        "fallback_rate": 0.0,
    },
    3: {
        "days_survived": 1,
        "irp": 1.0,
        "vss": None,
        "vss_cast": None,
        "check_hit_rate": 1.0,
        "brier": 0.31 / 5,
        "auc": 1.0,
        "calibration_error": (0.1 + 0.4 + 0.1 + 0.2 + 0.3) / 5,
        "overconfidence": 3.9 / 5 - 1.0,
        "vote_swing": None,
        "votes_received": 2.0,
        "false_result_claims": 0,
    },
    4: {
        "irp": 0.5,
        "vss": 1.0,
        "vss_cast": 1.0,
        "nomination_irp": 1.0,
        "brier": 0.99 / 3,
        "auc": 0.25,
        "calibration_error": 0.7 / 3,
        "overconfidence": (1.7 - 1.0) / 3,
        "intent_change_rate": 1.0,
        "intent_off_mafia_rate": 1.0,
        "false_result_claims": 1,
        "days_survived": 3,
    },
    5: {
        "irp": 0.0,
        "false_role_claims": 1,
        "false_claim_days": 1.0,
        "false_claim_days_sq": 1.0,
        "days_survived": 2,
        "votes_received": 0.0,
    },
    6: {
        "irp": None,
        "votes_received": None,
        "days_survived": 1,
        "fallback_rate": None,
        "check_hit_rate": None,
        "brier": None,
        "auc": None,
    },
}


@pytest.mark.parametrize("name", sorted(GAME))
def test_game_metric(known_game: GameLog, name: str) -> None:
    expected = GAME[name]
    value = compute_metrics(known_game)["game"][name]
    assert value == (None if expected is None else pytest.approx(expected))


@pytest.mark.parametrize(
    ("seat", "name"), [(s, n) for s, values in PER_SEAT.items() for n in values]
)
def test_seat_metric(known_game: GameLog, seat: int, name: str) -> None:
    value = compute_metrics(known_game)["per_seat"][str(seat)][name]
    expected = PER_SEAT[seat][name]
    assert value == (None if expected is None else pytest.approx(expected))


def test_every_game_metric_is_checked(known_game: GameLog) -> None:
    assert set(compute_metrics(known_game)["game"]) == set(GAME)


def test_survives_a_round_trip_through_jsonl(known_game: GameLog, tmp_path) -> None:
    path = known_game.save(tmp_path / "game.jsonl")
    assert compute_metrics(GameLog.load(path)) == compute_metrics(known_game)
