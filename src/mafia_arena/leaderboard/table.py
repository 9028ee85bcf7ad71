"""Leaderboard tables as pandas DataFrames: one row per agent, per (agent, role), per LLM agent.

``leaderboard_table`` gives one row per agent and ``roles_table`` one row per
(agent, role). Both return numeric DataFrames for analysis; ``render.py`` turns them into
deterministic text (CSV, Markdown). Games are put in canonical order first, so the same
set of games gives the same table in any input order. Each row's counts, rates and means
come from a ``seat_totals.SeatTotals`` (win rates count seats, intervals clustered by
game); its ratings come from ``compute_ratings``, whose intervals come from a bootstrap
over whole games and the fit's Laplace interval. ``model_cards`` lists the cards of
the LLM agents and trained policies. Which columns exist, in what order, and when one is dropped:
``columns.py``. Column meanings and formulas: ``docs/leaderboard.md``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mafia_arena.results_file import CARD_DESCRIPTION_KEYS, card_build

from .columns import (
    AGENT_COLUMNS,
    INTERVAL_COLUMNS,
    OPTIONAL_COLUMNS,
    PER_SEAT_MEANS,
    ROLE_COLUMNS,
    ZERO_OPTIONAL_COLUMNS,
    has_llm_agent,
    kept_columns,
    side_sort_key,
)
from .ratings import DEFAULT_N_BOOT, compute_ratings
from .records import GameResult, prepare_games
from .seat_totals import SeatTotals

__all__ = ["CARD_COLUMNS", "leaderboard_table", "model_cards", "roles_table"]


def _put_interval(row: dict[str, Any], column: str, estimate: tuple[float, ...]) -> None:
    """`column`, `column_low` and `column_high` from (value, low, high)."""
    row[column], row[f"{column}_low"], row[f"{column}_high"] = estimate


def _ratio(num: float, den: float) -> float:
    return num / den if den else math.nan


def _ratings_or_compute(
    games: list[GameResult],
    ratings: Mapping[str, pd.DataFrame] | None,
    n_boot: int,
    seed: int,
    confidence: float,
) -> Mapping[str, pd.DataFrame]:
    if ratings is not None:
        return ratings
    return compute_ratings(games, n_boot=n_boot, seed=seed, confidence=confidence)


def _lookup(frame: pd.DataFrame, keys: Sequence[str]) -> dict[tuple[str, ...], dict[str, Any]]:
    return {tuple(str(row[k]) for k in keys): row for row in frame.to_dict(orient="records")}


def leaderboard_table(
    records: Iterable[Mapping[str, Any] | GameResult],
    *,
    ratings: Mapping[str, pd.DataFrame] | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """One row per agent; sorted by ``bt_rating`` desc (unrated last), then agent name.

    ``ratings`` is the output of :func:`compute_ratings` for the same records (computed
    here with ``n_boot``/``seed``/``confidence`` when omitted). Optional metric columns
    with no value for any agent are dropped (see :data:`.columns.OPTIONAL_COLUMNS`),
    but for those the agents' kinds keep (:func:`.columns.kept_columns`).
    """
    games = prepare_games(records)
    ratings = _ratings_or_compute(games, ratings, n_boot, seed, confidence)
    acc: dict[str, SeatTotals] = defaultdict(SeatTotals)
    for game_no, game in enumerate(games):
        for seat in game.seats:
            acc[seat.agent].add(game_no, game, seat)
    agent_r = _lookup(ratings["agent"], ["agent"]) if "agent" in ratings else {}
    side_r = _lookup(ratings["side"], ["agent", "side"]) if "side" in ratings else {}
    rows = []
    for agent in sorted(acc):
        a = acc[agent]
        low, high = a.win_rate_interval(confidence)
        r = agent_r.get((agent,), {})
        row: dict[str, Any] = {
            "agent": agent,
            "kind": "+".join(sorted(a.kinds)),
            "games": len(a.games),
            "seats": a.seats,
            "wins": a.wins,
            "draws": len(a.drawn_games),
            "win_rate": _ratio(a.wins, a.seats),
            "win_rate_low": low,
            "win_rate_high": high,
            "seats_town": a.side_seats.get("town", 0),
            "seats_mafia": a.side_seats.get("mafia", 0),
            "seats_solo": a.side_seats.get("solo", 0) or math.nan,
            "bt_rating": r.get("bt_rating", math.nan),
            "bt_low": r.get("bt_low", math.nan),
            "bt_high": r.get("bt_high", math.nan),
            "bt_town": side_r.get((agent, "town"), {}).get("bt_rating", math.nan),
            "bt_mafia": side_r.get((agent, "mafia"), {}).get("bt_rating", math.nan),
            "bt_solo": side_r.get((agent, "solo"), {}).get("bt_rating", math.nan),
            "os_mu": r.get("os_mu", math.nan),
            "os_sigma": r.get("os_sigma", math.nan),
            "os_ordinal": r.get("os_ordinal", math.nan),
            "fallback_rate": _ratio(a.fallbacks, a.decisions),
            "infra_fallback_rate": _ratio(a.infra_fallbacks, a.decisions),
            "model_fallback_rate": _ratio(a.model_fallbacks, a.decisions),
            "void_games": len(a.void_games),
            "tokens_per_game": _ratio(a.tokens, len(a.all_games)),
            "cost_per_game": _ratio(a.cost, len(a.all_games)),
            "policy_share": _ratio(a.policy_decisions, a.policy_decisions + a.delegated_decisions),
        }
        for side in ("town", "mafia", "solo"):
            _put_interval(row, f"win_rate_{side}", a.rate(side, confidence))
        _put_interval(row, "mafia_survival", a.mafia_survival(confidence))
        for name in PER_SEAT_MEANS:
            _put_interval(row, name, a.mean(name, confidence))
        _put_interval(row, "false_claim_survival", a.false_claim_survival(confidence))
        rows.append(row)
    frame = pd.DataFrame(rows, columns=AGENT_COLUMNS)
    frame = _sort_and_rank(frame, ["agent"])
    if not has_llm_agent(frame):  # no void game and no split to report: not measured
        frame["void_games"] = frame["void_games"].where(frame["void_games"] > 0)
    keep = kept_columns(frame)
    drop = [c for c in OPTIONAL_COLUMNS if c in frame and frame[c].isna().all()]
    drop += [f"{c}_{end}" for c in drop if c in INTERVAL_COLUMNS for end in ("low", "high")]
    drop += [c for c in ZERO_OPTIONAL_COLUMNS if c in frame and not (frame[c] > 0).any()]
    return frame.drop(columns=[c for c in drop if c not in keep])


def _sort_and_rank(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    frame = frame.sort_values(
        ["bt_rating", *keys], ascending=[False] + [True] * len(keys), na_position="last"
    ).reset_index(drop=True)
    frame.insert(0, "rank", np.arange(1, len(frame) + 1))
    return frame


def roles_table(
    records: Iterable[Mapping[str, Any] | GameResult],
    *,
    ratings: Mapping[str, pd.DataFrame] | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """One row per (agent, role), grouped by role and ranked within each role.

    Rows are sorted by side (town, mafia, solo, other), role name, ``bt_rating`` desc
    (per-role Bradley–Terry rating; comparable *within* a role), then agent. ``rank`` is
    the rank within the role. A pair held only in void games has no row: every column
    here leaves void games out, so it would be an empty row without a side, ranked
    apart from its role's other rows.
    """
    games = prepare_games(records)
    ratings = _ratings_or_compute(games, ratings, n_boot, seed, confidence)
    acc: dict[tuple[str, str], SeatTotals] = defaultdict(SeatTotals)
    for game_no, game in enumerate(games):
        for seat in game.seats:
            acc[(seat.agent, seat.role)].add(game_no, game, seat)
    role_r = _lookup(ratings["role"], ["agent", "role"]) if "role" in ratings else {}
    rows = []
    for agent, role in sorted(acc):
        a = acc[(agent, role)]
        if not a.seats:  # held only in void games: nothing of this table counts them
            continue
        low, high = a.win_rate_interval(confidence)
        r = role_r.get((agent, role), {})
        rows.append(
            {
                "role": role,
                "side": "+".join(sorted(a.sides, key=side_sort_key)),
                "agent": agent,
                "kind": "+".join(sorted(a.kinds)),
                "games": len(a.games),
                "seats": a.seats,
                "wins": a.wins,
                "win_rate": _ratio(a.wins, a.seats),
                "win_rate_low": low,
                "win_rate_high": high,
                "bt_rating": r.get("bt_rating", math.nan),
                "bt_low": r.get("bt_low", math.nan),
                "bt_high": r.get("bt_high", math.nan),
                "os_mu": r.get("os_mu", math.nan),
                "os_sigma": r.get("os_sigma", math.nan),
                "os_ordinal": r.get("os_ordinal", math.nan),
            }
        )
    frame = pd.DataFrame(rows, columns=ROLE_COLUMNS)
    if frame.empty:
        frame.insert(0, "rank", pd.Series(dtype="int64"))
        return frame
    frame["_side_order"] = [side_sort_key(s.split("+")[0])[0] for s in frame["side"]]
    frame = frame.sort_values(
        ["_side_order", "side", "role", "bt_rating", "agent"],
        ascending=[True, True, True, False, True],
        na_position="last",
    ).reset_index(drop=True)
    frame = frame.drop(columns="_side_order")
    frame.insert(0, "rank", frame.groupby("role", sort=False).cumcount() + 1)
    return frame


#: Columns of :func:`model_cards`.
CARD_COLUMNS = ("agent", "model", "endpoint", "sampling", "prompt_hash", "build", "games")


def model_cards(records: Iterable[Mapping[str, Any] | GameResult]) -> pd.DataFrame:
    """One row per agent with a card (LLM players, trained policies): its model,
    endpoint kind, sampling parameters (JSON), prompt-template hash and build (JSON of
    the card's other keys, `results_file.card_build`; "" when it has none), and the
    games it played (void ones included), sorted by agent. A key the card lacks is "" (a policy has
    no model, endpoint, sampling or prompts).

    An agent whose card changed between games (a results folder mixing versions) gets
    each distinct value, joined with `` | ``, so the mix is visible rather than hidden.
    Why the build: a model's name is not the weights that played, so a board must say
    which server, weights file and policy file its games came from.
    """
    import json

    seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    games: dict[str, int] = defaultdict(int)
    for game in prepare_games(records):
        for agent, card in game.cards.items():
            games[agent] += 1
            build = card_build(card)
            values = {key: card.get(key, "") for key in CARD_DESCRIPTION_KEYS}
            values["build"] = build or ""
            for key, value in values.items():
                text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
                seen[agent][key].add(text)
    rows = [
        {
            "agent": agent,
            **{key: " | ".join(sorted(seen[agent][key])) for key in CARD_COLUMNS[1:6]},
            "games": games[agent],
        }
        for agent in sorted(seen)
    ]
    return pd.DataFrame(rows, columns=list(CARD_COLUMNS))
