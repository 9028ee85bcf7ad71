"""Issue 18 item 9: `vss` is Kaggle's Voting Success Score (divided by the living village
players, an abstention counting 0); the share of votes cast is `vss_cast`."""

from __future__ import annotations

import pytest

from mafia_arena.metrics.detection import detection
from mafia_arena.metrics.facts import MAFIA, TOWN, Ballot, Execution, GameFacts


def facts_with_one_mafia_execution() -> GameFacts:
    """Seat 0 (mafia) is executed by P2 and P3; P4 (town, alive) abstains; P5 is dead."""
    sides = {0: MAFIA, 1: MAFIA, 2: TOWN, 3: TOWN, 4: TOWN, 5: TOWN}
    ballot = Ballot(
        seq=10,
        day=1,
        kind="vote",
        votes={0: 2, 1: 2, 2: 0, 3: 0, 4: None},
        sides=sides,
        alive=frozenset({0, 1, 2, 3, 4}),
    )
    facts = GameFacts(players=6, sides={"mafia": MAFIA, "town": TOWN})
    facts.ballots.append(ballot)
    facts.executions.append(Execution(seq=11, day=1, seat=0, side=MAFIA, ballot=ballot))
    return facts


def test_item9_vss_divides_by_living_village_players_as_kaggle_does() -> None:
    per_seat, game = detection(facts_with_one_mafia_execution())
    assert game["vss"] == pytest.approx(2 / 3)  # P2, P3 of the living P2, P3, P4
    assert game["vss_cast"] == pytest.approx(2 / 2)  # of the town votes cast
    assert per_seat[4]["vss"] == 0.0 and per_seat[4]["vss_cast"] is None
    assert per_seat[2]["vss"] == per_seat[2]["vss_cast"] == 1.0
    assert per_seat[5]["vss"] is None  # dead: not a living village player
    assert per_seat[0]["vss"] is None  # mafia: not a village player
