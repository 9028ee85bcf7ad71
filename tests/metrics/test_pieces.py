"""Calibration, aggregation, absent data, side changes, and real played games."""

from __future__ import annotations

import math

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.metrics.known_game import LogBuilder, build_known_game

from mafia_arena.agents import make_agent
from mafia_arena.metrics import compute_metrics
from mafia_arena.metrics.aggregate import mean_ci, wilson
from mafia_arena.metrics.calibration import auc, brier
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match_sync
from mafia_arena.runner.log import GameLog


def test_brier_and_auc_known_values() -> None:
    assert brier([(1.0, 1), (0.0, 0)]) == 0.0
    assert brier([(0.5, 1), (0.5, 0)]) == pytest.approx(0.25)
    assert auc([(0.9, 1), (0.1, 0)]) == 1.0
    assert auc([(0.1, 1), (0.9, 0)]) == 0.0
    assert auc([(0.5, 1), (0.5, 0)]) == 0.5
    assert brier([]) is None
    assert auc([(0.3, 1), (0.4, 1)]) is None  # one class only


def test_wilson_interval_known_value() -> None:
    estimate = wilson(5, 10)
    assert estimate is not None
    assert (estimate.low, estimate.high) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson(0, 0) is None
    top = wilson(9, 9)
    assert top is not None and top.high == 1.0 and top.low < 1.0


def test_mean_ci_skips_undefined_values() -> None:
    estimate = mean_ci([1.0, None, 3.0, float("nan")])
    assert estimate is not None
    assert estimate.value == 2.0 and estimate.n == 2
    half = 12.706204736174698 * math.sqrt(2) / math.sqrt(2)  # Student's t(1), two values
    assert (estimate.low, estimate.high) == pytest.approx((2 - half, 2 + half))
    assert mean_ci([None]) is None


def test_metrics_without_beliefs_intents_or_checks_are_none() -> None:
    known = build_known_game()
    stripped = [
        e for e in known.events if e.kind not in ("belief", "intent", "night_result", "nomination")
    ]
    log = GameLog("standard", {}, 7, 1, stripped, [], {})
    game = compute_metrics(log)["game"]
    for name in (
        "brier",
        "auc",
        "intent_change_rate",
        "intent_off_mafia_rate",
        "investigator_hit_rate",
        "nomination_irp",
    ):
        assert game[name] is None, name
    assert game["reask_rate"] == 0.0  # no agent stats: nothing re-asked


def test_sides_follow_role_changes_at_the_time_of_each_vote() -> None:
    b = LogBuilder()
    b.add("setup", {"variant": "simple", "players": 4, "composition": {}})
    for seat, faction in enumerate(["mafia", "town", "town", "town"]):
        b.add(
            "role",
            {
                "seat": seat,
                "role": "mafioso" if faction == "mafia" else "villager",
                "faction": faction,
            },
            "seats",
            (seat,),
        )
    b.at(1, "day")
    b.votes({1: 0, 2: 0, 3: 1})  # town: 2 of 3 on the mafioso
    b.add("role_change", {"seat": 1, "role": "mafioso", "faction": "mafia"}, "host")
    b.votes({2: 1, 3: 1})  # P2 is mafia now: 2 more town hits
    log = GameLog("simple", {}, 4, 1, b.events, [], {})
    assert compute_metrics(log)["game"]["irp"] == pytest.approx(4 / 5)


def _four_player_day(votes: dict[int, int | None], executed: int) -> GameLog:
    """A 4-player `simple` game (P1 the mafioso) whose first day's ballot is `votes`
    and executes `executed`, a town player."""
    b = LogBuilder()
    b.add("setup", {"variant": "simple", "players": 4, "composition": {}})
    for seat, faction in enumerate(["mafia", "town", "town", "town"]):
        role = "mafioso" if faction == "mafia" else "villager"
        b.add("role", {"seat": seat, "role": role, "faction": faction}, "seats", (seat,))
    b.at(1, "day")
    b.votes(votes)
    b.add("death", {"seat": executed, "cause": "execution", "role": "villager"})
    return GameLog("simple", {}, 4, 1, b.events, [], {})


@pytest.mark.parametrize(
    ("votes", "carried"),
    [
        ({0: None, 1: 2, 2: 1, 3: None}, 0.0),  # town tied 1-1, a draw: no mafia ballot
        ({0: 2, 1: 2, 2: 1, 3: 1}, 1.0),  # the mafioso's ballot made the tie P3 lost
        ({0: 2, 1: 2, 2: 1, 3: 2}, 0.0),  # P3 had a strict plurality without it
    ],
)
def test_an_execution_the_mafia_cast_no_ballot_for_is_not_carried_by_it(
    votes: dict[int, int | None], carried: float
) -> None:
    """Before, a town execution decided by a random tie-break counted as carried by the
    mafia even when no mafioso voted for it: the others' votes alone lacked a strict
    plurality."""
    game = compute_metrics(_four_player_day(votes, executed=2))["game"]
    assert game["town_elims_carried_by_mafia"] == carried


def test_unknown_variant_falls_back_to_faction_names() -> None:
    known = build_known_game()
    log = GameLog("no-such-variant", {}, 7, 1, known.events, [], known.meta)
    assert compute_metrics(log)["game"]["irp"] == pytest.approx(4 / 6)


RATES = (
    "irp",
    "vss",
    "mafia_elim_share",
    "investigator_hit_rate",
    "bus_rate",
    "town_elims_carried_by_mafia",
    "fallback_rate",
    "town_survival",
    "mafia_survival",
)


@pytest.mark.parametrize(("variant", "players"), [("simple", 6), ("standard", 7), ("classic", 9)])
def test_played_games_give_rates_in_range(variant: str, players: int) -> None:
    rules = load_variant(variant)
    for seed in range(15):
        result = play_match_sync(
            rules, [make_agent("random") for _ in range(players)], seed, host_key=FIXED_HOST_KEY
        )
        metrics = compute_metrics(result.log, rules)
        game = metrics["game"]
        assert game["length_days"] == result.game_length
        assert game["town_win"] + game["mafia_win"] + game["draw"] == 1.0
        for name in RATES:
            assert game[name] is None or 0.0 <= game[name] <= 1.0, (name, game[name])
        assert len(metrics["per_seat"]) == players
        assert metrics == compute_metrics(result.log)  # same without the Variant object
