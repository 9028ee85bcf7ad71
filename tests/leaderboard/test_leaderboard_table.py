"""Leaderboard and roles tables: counts, metric formulas, order and formatting."""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest

from mafia_arena.leaderboard.columns import INTERVAL_COLUMNS
from mafia_arena.leaderboard.ratings import compute_ratings
from mafia_arena.leaderboard.render import (
    format_number,
    format_table,
    markdown_leaderboard,
    table_to_csv,
)
from mafia_arena.leaderboard.synthetic import synthetic_records
from mafia_arena.leaderboard.table import leaderboard_table, roles_table

GameFactory = Callable[..., dict[str, Any]]

SEATS = [
    ("hero", "doctor", "town"),
    ("bot", "villager", "town"),
    ("bot", "villager", "town"),
    ("villain", "mafioso", "mafia"),
]


@pytest.fixture()
def small(game: GameFactory) -> list[dict[str, Any]]:
    per_seat = {
        "0": {"irp": 0.5, "vss": 0.2, "brier": 0.1, "false_role_claims": 0},
        "1": {"irp": 1.0, "vss": None, "brier": None},
        "3": {"bus_rate": 0.25, "false_role_claims": 2, "false_claim_days": 1.5, "brier": 0.3},
    }
    g1 = game(SEATS, "town", game_index=0, per_seat=per_seat)
    g2 = game(SEATS, "mafia", game_index=1)
    g3 = game(SEATS, None, game_index=2)
    g2["seats"][3]["survived"] = False
    g1["seats"][0].update(decisions=8, fallbacks=2, tokens_in=100, tokens_out=20, cost=0.5)
    return [g1, g2, g3]


def test_agent_counts_and_win_rates(small: list[dict[str, Any]]) -> None:
    table = leaderboard_table(small, n_boot=5).set_index("agent")
    hero = table.loc["hero"]
    assert (hero["games"], hero["seats"], hero["wins"], hero["draws"]) == (3, 3, 1, 1)
    assert hero["win_rate"] == pytest.approx(1 / 3)
    assert hero["win_rate_town"] == pytest.approx(1 / 3)
    assert math.isnan(hero["win_rate_mafia"])
    bot = table.loc["bot"]
    assert (bot["games"], bot["seats"], bot["wins"]) == (3, 6, 2)
    villain = table.loc["villain"]
    assert villain["win_rate_mafia"] == pytest.approx(1 / 3)
    assert villain["win_rate_low"] < 1 / 3 < villain["win_rate_high"]


def test_metric_columns(small: list[dict[str, Any]]) -> None:
    table = leaderboard_table(small, n_boot=0).set_index("agent")
    assert table.loc["hero", "irp"] == pytest.approx(0.5)
    assert table.loc["bot", "irp"] == pytest.approx(1.0)
    assert table.loc["hero", "vss"] == pytest.approx(0.2)
    assert math.isnan(table.loc["bot", "vss"])
    assert table.loc["hero", "brier"] == pytest.approx(0.1)
    assert table.loc["villain", "bus_rate"] == pytest.approx(0.25)
    assert table.loc["villain", "false_claim_survival"] == pytest.approx(
        1.5
    )  # 2 claims, 1.5 days each
    assert table.loc["villain", "mafia_survival"] == pytest.approx(2 / 3)
    assert table.loc["hero", "fallback_rate"] == pytest.approx(2 / (8 + 10 + 10))
    assert table.loc["hero", "tokens_per_game"] == pytest.approx(120 / 3)
    assert table.loc["hero", "cost_per_game"] == pytest.approx(0.5 / 3)
    # No solo seats anywhere: solo columns are dropped; core columns always present.
    assert "win_rate_solo" not in table and "bt_solo" not in table
    for col in ("bt_rating", "bt_low", "bt_high", "os_mu", "os_sigma", "os_ordinal"):
        assert col in table


def test_metric_columns_dropped_when_absent(game: GameFactory) -> None:
    table = leaderboard_table([game(SEATS, "town")], n_boot=0)
    for col in ("irp", "vss", "bus_rate", "brier", "false_claim_survival"):
        assert col not in table
    assert "fallback_rate" in table


def test_fallback_split_and_void_games_hidden_on_a_scripted_board(game: GameFactory) -> None:
    table = leaderboard_table([game(SEATS, "town")], n_boot=0)
    assert not {"infra_fallback_rate", "model_fallback_rate", "void_games"} & set(table)
    text = markdown_leaderboard(table)
    assert "Infra. fallbacks" not in text and "Void games" not in text


def test_the_readme_shows_a_measured_zero_as_the_csv_does(game: GameFactory) -> None:
    """Every mafioso was caught and none voted against a partner: a mafia survival and a
    bus rate of 0 are results, in the README as in the CSV, not a column left out as if
    nothing had been measured. Scripted boards still leave out the unmeasured fallback
    rate (every agent's 0)."""
    seats = [
        ("hero", "doctor", "town"),
        ("villain", "villager", "town"),
        ("hero", "mafioso", "mafia"),
        ("villain", "mafioso", "mafia"),
    ]
    caught = {"bus_rate": 0.0}
    records = []
    for index in range(3):
        record = game(seats, "town", game_index=index, per_seat={"2": caught, "3": caught})
        for seat in record["seats"][2:]:
            seat["survived"] = False
        records.append(record)
    table = leaderboard_table(records, n_boot=0)
    header = markdown_leaderboard(table).splitlines()[0]
    for column, title in (("mafia_survival", "Mafia surv."), ("bus_rate", "Bus rate")):
        assert column in table_to_csv(table).splitlines()[0].split(",")
        assert table[column].max() == 0.0
        assert f"| {title} [95% CI] |" in header
    assert "0.00 [0.00, " in markdown_leaderboard(table)
    assert "fallback_rate" in table and "Fallback rate" not in header


def test_a_synthetic_board_brackets_every_value_with_its_interval() -> None:
    """Synthetic shares lie in [0, 1] as the real ones do (a VSS below 0 once made a
    board whose interval, clipped to [0, 1], lay above its own value)."""
    records = synthetic_records(40, strengths={"a": 0.5, "b": 0.0, "c": -0.5}, seed=3)
    for record in records:
        for values in record["metrics"]["per_seat"].values():
            for name in ("irp", "vss", "bus_rate", "brier"):
                assert values[name] is None or 0.0 <= values[name] <= 1.0, name
    table = leaderboard_table(records, n_boot=0)
    for column in INTERVAL_COLUMNS:
        if column in table:
            low, value, high = (table[f"{column}_low"], table[column], table[f"{column}_high"])
            assert ((low <= value) & (value <= high)).all(), column


def test_an_llm_board_always_shows_both_fallback_rates_and_void_games(
    game: GameFactory,
) -> None:
    """Nobody fell back and no game was void: on a board with an LLM agent that is a
    measurement, shown as 0 in the table, the CSV and the README."""
    table = leaderboard_table([game(SEATS, "town", kinds={"hero": "llm"})], n_boot=0)
    for column in ("infra_fallback_rate", "model_fallback_rate", "void_games"):
        assert column in table and (table[column] == 0).all(), column
    header = table_to_csv(table).splitlines()[0].split(",")
    assert {"infra_fallback_rate", "model_fallback_rate", "void_games"} <= set(header)
    text = markdown_leaderboard(table)
    lines = text.splitlines()
    columns = [c.strip() for c in lines[0].strip("|").split("|")]
    hero = next(line for line in lines if "| hero |" in line)
    cells = [c.strip() for c in hero.strip("|").split("|")]
    for name in ("Infra. fallbacks", "Model fallbacks", "Void games"):
        assert name in columns, name
        assert cells[columns.index(name)] in {"0", "0.000"}, name


def test_an_llm_board_shows_a_fallback_rate_and_a_cost_of_zero(game: GameFactory) -> None:
    """An LLM agent that never fell back and cost nothing (a local model): the README
    shows the overall fallback rate, tokens and cost per game as 0, as the CSV does. A
    scripted board, where none of them is measured, still leaves them out."""
    table = leaderboard_table([game(SEATS, "town", kinds={"hero": "llm"})], n_boot=0)
    titles = {"Fallback rate": "0.000", "Tokens/game": "0", "Cost/game": "0.0000"}
    for column in ("fallback_rate", "tokens_per_game", "cost_per_game"):
        assert (table[column] == 0).all(), column
    lines = markdown_leaderboard(table).splitlines()
    columns = [c.strip() for c in lines[0].strip("|").split("|")]
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        for title, zero in titles.items():
            assert title in columns, title
            assert cells[columns.index(title)] == zero, (title, line)
    scripted = markdown_leaderboard(leaderboard_table([game(SEATS, "town")], n_boot=0))
    assert not [title for title in titles if title in scripted]


def test_solo_side_columns(game: GameFactory) -> None:
    seats = [*SEATS, ("jester", "jester", "solo")]
    rec = game(seats, "solo")
    assert [s["won"] for s in rec["seats"]] == [False, False, False, False, True]
    table = leaderboard_table([rec], n_boot=0).set_index("agent")
    assert table.loc["jester", "win_rate_solo"] == 1.0
    assert table.loc["jester", "bt_rating"] > table.loc["hero", "bt_rating"]


def test_rows_sorted_by_rating_then_name(graded_records: list[dict[str, Any]]) -> None:
    table = leaderboard_table(graded_records, n_boot=10)
    assert list(table["agent"]) == ["A", "B", "C", "D"]
    assert list(table["rank"]) == [1, 2, 3, 4]
    assert list(table["kind"]) == ["llm", "rl", "scripted", "human"]
    assert table.loc[0, "bt_low"] > table.loc[3, "bt_high"]


def test_ties_broken_by_name(game: GameFactory) -> None:
    seats = [("zed", "villager", "town"), ("amy", "mafioso", "mafia")]
    rows = [game(seats, "town", game_index=0), game(seats, "mafia", game_index=1)]
    table = leaderboard_table(rows, n_boot=0)
    assert list(table["agent"]) == ["amy", "zed"]


def test_roles_table(graded_records: list[dict[str, Any]]) -> None:
    ratings = compute_ratings(graded_records, n_boot=10)
    roles = roles_table(graded_records, ratings=ratings)
    assert list(dict.fromkeys(roles["side"])) == ["town", "mafia"]
    for _, block in roles.groupby("role"):
        assert list(block["rank"]) == list(range(1, len(block) + 1))
        assert block["bt_rating"].is_monotonic_decreasing
    by_key = roles.set_index(["agent", "role"])
    total_seats = by_key["seats"].sum()
    assert total_seats == 7 * len(graded_records)


def test_csv_is_order_independent_and_fixed_format(graded_records: list[dict[str, Any]]) -> None:
    shuffled = list(graded_records)
    random.Random(9).shuffle(shuffled)
    a = table_to_csv(leaderboard_table(graded_records, n_boot=20, seed=3))
    b = table_to_csv(leaderboard_table(shuffled, n_boot=20, seed=3))
    assert a == b
    header, first = a.splitlines()[:2]
    cells = dict(zip(header.split(","), first.split(","), strict=True))
    assert len(cells["win_rate"].split(".")[1]) == 4
    assert len(cells["bt_rating"].split(".")[1]) == 1
    assert "." not in cells["games"]


def test_a_games_seats_listed_in_another_order_give_the_same_bits() -> None:
    """A record is the same game whatever order it lists its seats in: the table (full
    precision, intervals included) and every rating are bit-identical."""
    records = synthetic_records(60, strengths={"a": 0.5, "b": 0.0, "c": -0.5}, seed=3)
    shuffled = copy.deepcopy(records)
    rng = random.Random(0)
    for record in shuffled:
        rng.shuffle(record["seats"])
    assert leaderboard_table(shuffled, n_boot=3).to_csv() == (
        leaderboard_table(records, n_boot=3).to_csv()
    )
    assert roles_table(shuffled, n_boot=3).to_csv() == roles_table(records, n_boot=3).to_csv()


def test_a_role_held_only_in_void_games_has_no_row(game: GameFactory) -> None:
    """The roles table leaves void games out of every column, so a pair held only in a
    void game has nothing to show: no empty row without a side, ranked apart from its
    role's other rows."""
    played = game(
        [("a", "doctor", "town"), ("b", "villager", "town"), ("c", "mafioso", "mafia")],
        "town",
        game_index=0,
    )
    void = game(
        [("b", "doctor", "town"), ("a", "villager", "town"), ("c", "mafioso", "mafia")],
        "mafia",
        game_index=1,
    )
    void["void"] = True
    table = roles_table([played, void], n_boot=0)
    assert list(zip(table["role"], table["agent"], strict=True)) == [
        ("doctor", "a"),
        ("villager", "b"),
        ("mafioso", "c"),
    ]
    assert (table["seats"] > 0).all() and (table["side"] != "").all()


def test_format_helpers() -> None:
    assert format_number(-0.00001, 2) == "0.00"
    assert format_number(float("nan"), 2) == ""
    assert format_number(None, 2) == ""
    frame = pd.DataFrame({"agent": ["a"], "games": [3], "win_rate": [2 / 3]})
    assert format_table(frame).iloc[0].tolist() == ["a", "3", "0.6667"]


def test_markdown_has_header_and_rows(graded_records: list[dict[str, Any]]) -> None:
    text = markdown_leaderboard(leaderboard_table(graded_records, n_boot=5))
    lines = text.strip().splitlines()
    assert lines[0].startswith("| # | Agent |")
    assert len(lines) == 2 + 4
    assert all(line.count("|") == lines[0].count("|") for line in lines)
