"""Detection, deception and outcome metrics of a game played by the engine itself, with
a forced deal and scripted decisions, against values worked out by hand.

The hand-built logs of `known_game.py` fix what the metrics read; this game checks that
the engine's own events (who is asked to vote, how an abstention is published, when a
death is announced) give the same numbers.

standard, 7 players, abstention allowed, one discussion round. Seats: P1 (0) and P2 (1)
mafiosi; P3 (2) doctor; P4 (3) detective; P5-P7 (4-6) villagers.

    night 1  the mafia kill P7; the doctor protects herself; the detective checks P1.
    day 1    P1->P4 P2->P4 P3->P1 P4->P1 P5 abstains P6->P4      => P4 executed
    night 2  the mafia attack P6, whom the doctor protects: nobody dies.
    day 2    P1->P3 P2->P5 P3->P1 P5->P1 P6 abstains             => P1 executed
    night 3  the mafia kill P5; the doctor protects herself.
    day 3    P2->P3 P3->P2 P6->P2                                 => P2 executed: town wins
"""

from __future__ import annotations

import pytest

from mafia_arena.engine.choices import Choice
from mafia_arena.engine.game import Game
from mafia_arena.metrics import compute_metrics
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import GameLog

DEAL = ["mafioso", "mafioso", "doctor", "detective", "villager", "villager", "villager"]
OVERRIDES = {"abstain": True, "discussion_rounds": 1}
#: (day, request kind, seat) -> choice; anything else passes (speech, abstention)
SCRIPT = {
    (1, "night:mafia_kill", 0): "target:6",
    (1, "night:mafia_kill", 1): "target:6",
    (1, "night:doctor_protect", 2): "target:2",
    (1, "night:detective_check", 3): "target:0",
    (1, "vote", 0): "target:3",
    (1, "vote", 1): "target:3",
    (1, "vote", 2): "target:0",
    (1, "vote", 3): "target:0",
    (1, "vote", 5): "target:3",
    (2, "night:mafia_kill", 0): "target:5",
    (2, "night:mafia_kill", 1): "target:5",
    (2, "night:doctor_protect", 2): "target:5",
    (2, "vote", 0): "target:2",
    (2, "vote", 1): "target:4",
    (2, "vote", 2): "target:0",
    (2, "vote", 4): "target:0",
    (3, "night:mafia_kill", 1): "target:4",
    (3, "night:doctor_protect", 2): "target:2",
    (3, "vote", 1): "target:2",
    (3, "vote", 2): "target:1",
    (3, "vote", 5): "target:1",
}


def play() -> GameLog:
    rules = load_variant("standard", OVERRIDES)
    game = Game(rules, 7, 1, deal=DEAL)
    while not game.over:
        for seat, request in game.pending().items():
            key = SCRIPT.get((game.state.day, request.kind, seat), "pass")
            game.submit(seat, Choice.parse(key))
    return GameLog.from_game(game, OVERRIDES)


GAME = {
    "town_win": 1.0,
    "length_days": 3,
    "executions": 3,
    "night_kills": 2,
    "town_survival": 2 / 5,  # P3, P6 of P3-P7
    "mafia_survival": 0.0,
    # town votes: day 1 P3, P4 on P1, P6 on P4; day 2 P3, P5 on P1; day 3 P3, P6 on P2
    "irp": 6 / 7,
    # mafia executions: day 2 (living town P3, P5, P6; P6 abstains), day 3 (P3, P6)
    "vss": 4 / 5,
    "vss_cast": 4 / 4,
    "mafia_elim_share": 2 / 3,
    "investigator_hit_rate": 1.0,
    # exposures: mafia 2 + 2 + 1 drawing 2 + 2 + 2 town votes; town 4 + 3 + 2 drawing 1
    "votes_per_mafia": 6 / 5,
    "votes_per_town": 1 / 9,
    "votes_drawn_ratio": (6 / 5) / (1 / 9),
    "bus_rate": 0.0,
    # P4's execution: one non-mafia vote on him against two on P1
    "town_elims_carried_by_mafia": 1.0,
}

PER_SEAT: dict[int, dict[str, float | int | None]] = {
    0: {"days_survived": 2, "irp": None, "vss": None, "votes_received": 4 / 2, "bus_rate": 0.0},
    1: {"days_survived": 3, "votes_received": 2 / 3, "bus_rate": 0.0},
    2: {"days_survived": 3, "irp": 1.0, "vss": 1.0, "votes_received": 0.0},
    3: {"days_survived": 1, "irp": 1.0, "vss": None, "check_hit_rate": 1.0},
    4: {"days_survived": 3, "irp": 1.0, "vss": 1.0},
    # abstained on day 2 (counts 0 in vss, nothing in vss_cast), voted P2 on day 3
    5: {"days_survived": 3, "irp": 1 / 2, "vss": 1 / 2, "vss_cast": 1.0},
    6: {"days_survived": 1, "irp": None, "votes_received": None},
}


@pytest.fixture(scope="module")
def metrics() -> dict[str, dict]:
    return compute_metrics(play())


@pytest.mark.parametrize("name", sorted(GAME))
def test_game_metric(metrics: dict[str, dict], name: str) -> None:
    assert metrics["game"][name] == pytest.approx(GAME[name])


@pytest.mark.parametrize(
    ("seat", "name"), [(s, n) for s, values in PER_SEAT.items() for n in sorted(values)]
)
def test_seat_metric(metrics: dict[str, dict], seat: int, name: str) -> None:
    expected = PER_SEAT[seat][name]
    value = metrics["per_seat"][str(seat)][name]
    assert value == (None if expected is None else pytest.approx(expected))
