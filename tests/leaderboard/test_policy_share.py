"""`policy_share`: the share of a trained policy's decisions it answered itself.

A seat of an ``rl`` agent carries the policy's own counters (``seats[].extra``:
``policy_decisions``, ``fallback_decisions``); the board shows their split for such
agents, in the CSV and the README, and has no such column without one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from mafia_arena.leaderboard.records import parse_game
from mafia_arena.leaderboard.render import markdown_leaderboard, table_to_csv
from mafia_arena.leaderboard.table import leaderboard_table

GameFactory = Callable[..., dict[str, Any]]

SEATS = [
    ("policy", "villager", "town"),
    ("bot", "villager", "town"),
    ("bot", "detective", "town"),
    ("bot", "mafioso", "mafia"),
]


def _games(game: GameFactory, counters: list[dict[str, int] | None]) -> list[dict[str, Any]]:
    """One game per entry of `counters`, the policy's seat carrying it as ``extra``."""
    games = []
    for index, extra in enumerate(counters):
        record = game(SEATS, "town", game_index=index, kinds={"policy": "rl"})
        if extra is not None:
            record["seats"][0]["extra"] = extra
        games.append(record)
    return games


def _header(csv: str) -> list[str]:
    return csv.splitlines()[0].split(",")


def test_the_board_shows_how_much_of_a_policy_seat_s_play_was_its_own(
    game: GameFactory,
) -> None:
    records = _games(
        game,
        [
            {"fallback_decisions": 7, "policy_decisions": 3},
            {"fallback_decisions": 2, "policy_decisions": 0},
            {"fallback_decisions": 1, "policy_decisions": 5},
        ],
    )
    table = leaderboard_table(records, n_boot=5)
    rows = table.set_index("agent")
    assert rows.loc["policy", "policy_share"] == 8 / 18
    assert math.isnan(rows.loc["bot", "policy_share"])  # no policy, no share
    csv = table_to_csv(table)
    assert "policy_share" in _header(csv)
    column = _header(csv).index("policy_share")
    by_agent = {line.split(",")[1]: line.split(",")[column] for line in csv.splitlines()[1:]}
    assert by_agent == {"policy": "0.4444", "bot": ""}
    readme = markdown_leaderboard(table)
    assert "Policy share" in readme.splitlines()[0]
    assert "| 0.444 |" in next(line for line in readme.splitlines() if "| policy |" in line)
    # the same seating with no agent of kind rl: no such column anywhere
    scripted = [game(SEATS, "town", game_index=i) for i in range(3)]
    table = leaderboard_table(scripted, n_boot=5)
    assert "policy_share" not in table
    assert "policy_share" not in _header(table_to_csv(table))
    assert "Policy share" not in markdown_leaderboard(table)


def test_a_policy_that_never_answered_shows_a_share_of_0(game: GameFactory) -> None:
    """A policy seated where it fits nothing: its 0 is a result, shown in the README
    too (a reliability column of zeros is hidden, this one is not)."""
    records = _games(game, [{"fallback_decisions": 9, "policy_decisions": 0}])
    table = leaderboard_table(records, n_boot=5)
    assert table.set_index("agent").loc["policy", "policy_share"] == 0.0
    readme = markdown_leaderboard(table)
    assert "Policy share" in readme.splitlines()[0]
    assert "| 0.000 |" in next(line for line in readme.splitlines() if "| policy |" in line)


def test_records_without_the_counters_still_load_and_show_no_share(
    game: GameFactory,
) -> None:
    """Records written before the counters were stored: they load as they did; an
    ``rl`` agent on the board keeps the column, empty (not measured), never a 0."""
    records = _games(game, [None, None])
    assert all(seat.extra == {} for seat in parse_game(records[0]).seats)
    table = leaderboard_table(records, n_boot=5)
    assert "policy_share" in table
    assert table["policy_share"].isna().all()
    csv = table_to_csv(table)
    column = _header(csv).index("policy_share")
    assert {line.split(",")[column] for line in csv.splitlines()[1:]} == {""}


def test_a_seat_s_counters_must_be_numbers(game: GameFactory) -> None:
    record = _games(game, [None])[0]
    record["seats"][0]["extra"] = {"policy_decisions": "three"}
    with pytest.raises(ValueError, match=r"^seat #0: extra: policy_decisions: 'three' is not"):
        parse_game(record)
