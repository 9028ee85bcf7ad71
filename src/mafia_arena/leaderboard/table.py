"""Leaderboard tables (pandas) and their deterministic text renderings (CSV, Markdown).

``leaderboard_table`` gives one row per agent and ``roles_table`` one row per
(agent, role). Both return numeric DataFrames for analysis. ``format_table`` turns them
into strings with fixed decimals per column, so ``table_to_csv`` is byte-identical for
identical games, in any input order. Column meanings and formulas: ``docs/leaderboard.md``.

Win rates count *seats*: an agent holding two seats in one game contributes two trials.
In the usual arena setup (one seat per agent per game) seats equal games. Seats in one
game share an outcome and read the same events, so every rate and mean over seats takes a
game's seats as one cluster for its interval (`stats.clustered_wilson_interval`,
`metrics.aggregate.ClusteredMeanAccumulator`); the rating intervals come from a bootstrap
over whole games and the fit's Laplace interval.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mafia_arena.metrics.aggregate import clustered_mean_ci
from mafia_arena.stats import clustered_wilson_interval, z_value

from .ratings import DEFAULT_N_BOOT, compute_ratings
from .records import SIDE_ORDER, GameResult, SeatResult, prepare_games

__all__ = [
    "COLUMN_DECIMALS",
    "OPTIONAL_COLUMNS",
    "format_table",
    "leaderboard_table",
    "markdown_leaderboard",
    "markdown_model_cards",
    "markdown_roles",
    "model_cards",
    "roles_table",
    "side_sort_key",
    "table_to_csv",
    "table_to_markdown",
]

#: Fixed decimals per float column; anything not listed is an integer or text column.
COLUMN_DECIMALS: dict[str, int] = {
    "win_rate": 4,
    "win_rate_low": 4,
    "win_rate_high": 4,
    "win_rate_town": 4,
    "win_rate_mafia": 4,
    "win_rate_solo": 4,
    "bt_rating": 1,
    "bt_low": 1,
    "bt_high": 1,
    "bt_town": 1,
    "bt_mafia": 1,
    "bt_solo": 1,
    "os_mu": 3,
    "os_sigma": 3,
    "os_ordinal": 3,
    "irp": 4,
    "vss": 4,
    "mafia_survival": 4,
    "bus_rate": 4,
    "false_claim_survival": 3,
    "brier": 4,
    "fallback_rate": 4,
    "infra_fallback_rate": 4,
    "model_fallback_rate": 4,
    "tokens_per_game": 1,
    "cost_per_game": 6,
}


def _with_bounds(column: str) -> tuple[str, str, str]:
    return (column, f"{column}_low", f"{column}_high")


_METRIC_COLUMNS = ("irp", "vss", "mafia_survival", "bus_rate", "false_claim_survival", "brier")
#: The columns with an interval beside them (``<column>_low``, ``<column>_high``).
INTERVAL_COLUMNS: tuple[str, ...] = (
    "win_rate_town",
    "win_rate_mafia",
    "win_rate_solo",
    *_METRIC_COLUMNS,
)
#: An interval's ends take the decimals of the value they bound.
COLUMN_DECIMALS.update(
    {
        f"{column}_{end}": COLUMN_DECIMALS[column]
        for column in INTERVAL_COLUMNS
        for end in ("low", "high")
    }
)


#: Columns dropped from the agent table when no agent has a value for them.
OPTIONAL_COLUMNS: tuple[str, ...] = (
    "seats_solo",
    "win_rate_solo",
    "bt_solo",
    *_METRIC_COLUMNS,
    "void_games",
)
#: Columns dropped from the agent table when no agent has a nonzero value: the split of
#: fallbacks by blame says nothing where nobody fell back (scripted tables).
ZERO_OPTIONAL_COLUMNS: tuple[str, ...] = ("infra_fallback_rate", "model_fallback_rate")
#: Columns always kept (zeros included) on a board with an LLM agent: there a 0 is a
#: measurement (the endpoint and the model never failed), and a missing column would
#: read as "not measured".
LLM_COLUMNS: tuple[str, ...] = ("infra_fallback_rate", "model_fallback_rate", "void_games")


def has_llm_agent(frame: pd.DataFrame) -> bool:
    """Whether some agent of the table is of kind ``llm`` (alone or among its kinds)."""
    if "kind" not in frame:
        return False
    return any("llm" in str(kind).split("+") for kind in frame["kind"])


_PER_SEAT_MEANS = ("irp", "vss", "bus_rate", "brier")
#: Per-seat metrics (``docs/metrics.md``) the false-claim column is built from: the number
#: of distinct false role claims and the mean days they stood.
FALSE_CLAIMS, FALSE_CLAIM_DAYS = "false_role_claims", "false_claim_days"
#: Every per-seat metric a column reads; a test checks that the metrics write each one.
SEAT_METRICS_READ: tuple[str, ...] = (*_PER_SEAT_MEANS, FALSE_CLAIMS, FALSE_CLAIM_DAYS)


def side_sort_key(side: str) -> tuple[int, str]:
    """Sort sides as town, mafia, solo, then anything else alphabetically."""
    return (SIDE_ORDER.index(side), side) if side in SIDE_ORDER else (len(SIDE_ORDER), side)


@dataclass
class _Acc:
    """Per-agent (or per agent-role) running totals over seats, in canonical game order."""

    games: set[int] = field(default_factory=set)
    kinds: set[str] = field(default_factory=set)
    sides: set[str] = field(default_factory=set)
    seats: int = 0
    wins: int = 0
    drawn_games: set[int] = field(default_factory=set)
    side_seats: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    side_wins: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    side_games: dict[str, dict[int, tuple[int, int]]] = field(
        default_factory=lambda: defaultdict(dict)
    )
    """(wins, seats) on each side in each game: the clusters of the per-side intervals."""
    mafia_alive: int = 0
    mafia_known: int = 0
    mafia_games: dict[int, tuple[int, int]] = field(default_factory=dict)
    """(alive, known) mafia seats in each game: the clusters of mafia survival."""
    metric_values: dict[str, dict[int, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    """Each per-seat metric's values by game: a game's values are one cluster."""
    false_claims: int = 0
    false_claim_days: float = 0.0
    decisions: int = 0
    fallbacks: int = 0
    infra_fallbacks: int = 0
    model_fallbacks: int = 0
    tokens: int = 0
    cost: float = 0.0
    void_games: set[int] = field(default_factory=set)
    all_games: set[int] = field(default_factory=set)
    per_game: dict[int, tuple[int, int]] = field(default_factory=dict)
    """(wins, seats) in each game that is not void: the clusters of the win-rate interval."""

    def add(self, game_no: int, game: GameResult, seat: SeatResult) -> None:
        """Count a seat: reliability and cost over every game; results only over games
        that are not void (a void game was decided by infrastructure failures)."""
        self.all_games.add(game_no)
        self.kinds.add(seat.kind)
        self.decisions += seat.decisions
        self.fallbacks += seat.fallbacks
        self.infra_fallbacks += seat.fallbacks_infrastructure
        self.model_fallbacks += seat.fallbacks_model
        self.tokens += seat.tokens_in + seat.tokens_out
        self.cost += seat.cost
        if game.void:
            self.void_games.add(game_no)
            return
        self.games.add(game_no)
        self.sides.add(seat.side)
        self.seats += 1
        self.wins += int(seat.won)
        _count(self.per_game, game_no, int(seat.won))
        if game.is_draw:
            self.drawn_games.add(game_no)
        self.side_seats[seat.side] += 1
        self.side_wins[seat.side] += int(seat.won)
        _count(self.side_games[seat.side], game_no, int(seat.won))
        if seat.side == "mafia" and seat.survived is not None:
            self.mafia_known += 1
            self.mafia_alive += int(seat.survived)
            _count(self.mafia_games, game_no, int(seat.survived))
        for name in _PER_SEAT_MEANS:
            value = seat.metric(name)
            if value is not None:
                self.metric_values[name][game_no].append(value)
        claims = seat.metric(FALSE_CLAIMS)
        if claims is not None and claims > 0:  # false_claim_days is the mean per claim
            days = seat.metric(FALSE_CLAIM_DAYS) or 0.0
            self.false_claims += int(claims)
            self.false_claim_days += claims * days
            self.metric_values[FALSE_CLAIM_DAYS][game_no].extend([days] * int(claims))

    def win_rate_interval(self, confidence: float) -> tuple[float, float]:
        """The win rate's interval with the seats of one game as one cluster (they share
        its outcome: `stats.clustered_wilson_interval`)."""
        return clustered_wilson_interval(self.per_game.values(), confidence)

    def mean(self, name: str, confidence: float) -> tuple[float, float, float]:
        """(mean, low, high) of a per-seat metric over the seats where it is defined, the
        interval clustered by game (`ClusteredMeanAccumulator`) and clipped to the
        metric's range; NaNs where no seat has a value."""
        by_game = self.metric_values.get(name)
        estimate = clustered_mean_ci(by_game.values(), z_value(confidence)) if by_game else None
        if by_game is None or estimate is None:
            return (math.nan, math.nan, math.nan)
        floor, ceiling = _METRIC_RANGE.get(name, (-math.inf, math.inf))
        low, high = max(floor, estimate.low), min(ceiling, estimate.high)
        return (float(math.fsum(_flat(by_game.values())) / estimate.n), low, high)

    def rate(self, side: str, confidence: float) -> tuple[float, float, float]:
        """(win rate, low, high) on one side, clustered by game; NaNs without a seat."""
        n = self.side_seats.get(side, 0)
        if not n:
            return (math.nan, math.nan, math.nan)
        low, high = clustered_wilson_interval(self.side_games[side].values(), confidence)
        return (self.side_wins.get(side, 0) / n, low, high)

    def mafia_survival(self, confidence: float) -> tuple[float, float, float]:
        """(share of mafia seats alive at the end, low, high), clustered by game."""
        if not self.mafia_known:
            return (math.nan, math.nan, math.nan)
        low, high = clustered_wilson_interval(self.mafia_games.values(), confidence)
        return (self.mafia_alive / self.mafia_known, low, high)


def _count(tallies: dict[int, tuple[int, int]], game_no: int, success: int) -> None:
    """One more trial, `success` or not, in the game's (successes, trials)."""
    successes, trials = tallies.get(game_no, (0, 0))
    tallies[game_no] = (successes + success, trials + 1)


def _flat(groups: Iterable[list[float]]) -> Iterable[float]:
    return (value for group in groups for value in group)


#: Value ranges the per-seat metrics' intervals are clipped to (all shares but one).
_METRIC_RANGE: dict[str, tuple[float, float]] = {
    "irp": (0.0, 1.0),
    "vss": (0.0, 1.0),
    "bus_rate": (0.0, 1.0),
    "brier": (0.0, 1.0),
    FALSE_CLAIM_DAYS: (0.0, math.inf),
}


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
    with no value for any agent are dropped (see :data:`OPTIONAL_COLUMNS`).
    """
    games = prepare_games(records)
    ratings = _ratings_or_compute(games, ratings, n_boot, seed, confidence)
    acc: dict[str, _Acc] = defaultdict(_Acc)
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
        }
        for side in ("town", "mafia", "solo"):
            _put_interval(row, f"win_rate_{side}", a.rate(side, confidence))
        _put_interval(row, "mafia_survival", a.mafia_survival(confidence))
        for name in _PER_SEAT_MEANS:
            _put_interval(row, name, a.mean(name, confidence))
        _, fc_low, fc_high = a.mean(FALSE_CLAIM_DAYS, confidence)
        fc = _ratio(a.false_claim_days, a.false_claims)
        _put_interval(row, "false_claim_survival", (fc, fc_low, fc_high))
        rows.append(row)
    frame = pd.DataFrame(rows, columns=_AGENT_COLUMNS)
    frame = _sort_and_rank(frame, ["agent"])
    if not has_llm_agent(frame):  # no void game and no split to report: not measured
        frame["void_games"] = frame["void_games"].where(frame["void_games"] > 0)
    keep = LLM_COLUMNS if has_llm_agent(frame) else ()
    drop = [c for c in OPTIONAL_COLUMNS if c in frame and frame[c].isna().all()]
    drop += [f"{c}_{end}" for c in drop if c in INTERVAL_COLUMNS for end in ("low", "high")]
    drop += [c for c in ZERO_OPTIONAL_COLUMNS if c in frame and not (frame[c] > 0).any()]
    return frame.drop(columns=[c for c in drop if c not in keep])


_AGENT_COLUMNS = [
    "agent",
    "kind",
    "games",
    "seats",
    "wins",
    "draws",
    "win_rate",
    "win_rate_low",
    "win_rate_high",
    "seats_town",
    *_with_bounds("win_rate_town"),
    "seats_mafia",
    *_with_bounds("win_rate_mafia"),
    "seats_solo",
    *_with_bounds("win_rate_solo"),
    "bt_rating",
    "bt_low",
    "bt_high",
    "bt_town",
    "bt_mafia",
    "bt_solo",
    "os_mu",
    "os_sigma",
    "os_ordinal",
    *_with_bounds("irp"),
    *_with_bounds("vss"),
    *_with_bounds("mafia_survival"),
    *_with_bounds("bus_rate"),
    *_with_bounds("false_claim_survival"),
    *_with_bounds("brier"),
    "fallback_rate",
    "infra_fallback_rate",
    "model_fallback_rate",
    "void_games",
    "tokens_per_game",
    "cost_per_game",
]


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
    the rank within the role.
    """
    games = prepare_games(records)
    ratings = _ratings_or_compute(games, ratings, n_boot, seed, confidence)
    acc: dict[tuple[str, str], _Acc] = defaultdict(_Acc)
    for game_no, game in enumerate(games):
        for seat in game.seats:
            acc[(seat.agent, seat.role)].add(game_no, game, seat)
    role_r = _lookup(ratings["role"], ["agent", "role"]) if "role" in ratings else {}
    rows = []
    for agent, role in sorted(acc):
        a = acc[(agent, role)]
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
    columns = [
        "role",
        "side",
        "agent",
        "kind",
        "games",
        "seats",
        "wins",
        "win_rate",
        "win_rate_low",
        "win_rate_high",
        "bt_rating",
        "bt_low",
        "bt_high",
        "os_mu",
        "os_sigma",
        "os_ordinal",
    ]
    frame = pd.DataFrame(rows, columns=columns)
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
CARD_COLUMNS = ("agent", "model", "endpoint", "sampling", "prompt_hash", "games")


def model_cards(records: Iterable[Mapping[str, Any] | GameResult]) -> pd.DataFrame:
    """One row per LLM agent: its model, endpoint kind, sampling parameters (JSON) and
    prompt-template hash, and the games it played (void ones included), sorted by agent.

    An agent whose card changed between games (a results folder mixing versions) gets
    each distinct value, joined with `` | ``, so the mix is visible rather than hidden.
    """
    import json

    seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    games: dict[str, int] = defaultdict(int)
    for game in prepare_games(records):
        for agent, card in game.cards.items():
            games[agent] += 1
            for key in CARD_COLUMNS[1:5]:
                value = card.get(key, "")
                text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
                seen[agent][key].add(text)
    rows = [
        {
            "agent": agent,
            **{key: " | ".join(sorted(seen[agent][key])) for key in CARD_COLUMNS[1:5]},
            "games": games[agent],
        }
        for agent in sorted(seen)
    ]
    return pd.DataFrame(rows, columns=list(CARD_COLUMNS))


def markdown_model_cards(frame: pd.DataFrame) -> str:
    """Markdown rendering of :func:`model_cards` ("" when no agent has a card)."""
    if frame.empty:
        return ""
    header = ["Agent", "Model", "Endpoint", "Sampling", "Prompt hash", "Games"]
    rows = [
        [
            str(r["agent"]),
            str(r["model"]),
            str(r["endpoint"]),
            f"`{r['sampling']}`",
            f"`{r['prompt_hash']}`",
            format_number(r["games"], 0),
        ]
        for r in frame.to_dict(orient="records")
    ]
    return table_to_markdown(rows, header)


# --------------------------------------------------------------------------- rendering


def format_number(value: Any, decimals: int) -> str:
    """Fixed-decimal text; empty for NaN/None; never ``-0.0``."""
    if value is None:
        return ""
    x = float(value)
    if not math.isfinite(x):
        return ""
    text = f"{x:.{decimals}f}"
    if text.startswith("-") and float(text) == 0.0:
        text = text[1:]
    return text


def format_table(frame: pd.DataFrame) -> pd.DataFrame:
    """All-string copy of a leaderboard/roles table with fixed formatting per column.

    Float columns use :data:`COLUMN_DECIMALS`; integer-valued count columns are written
    without decimals; NaN becomes the empty string.
    """
    out = {}
    for col in frame.columns:
        series = frame[col]
        if col in COLUMN_DECIMALS:
            out[col] = [format_number(v, COLUMN_DECIMALS[col]) for v in series]
        elif pd.api.types.is_numeric_dtype(series):
            out[col] = [format_number(v, 0) for v in series]
        else:
            out[col] = ["" if v is None else str(v) for v in series]
    return pd.DataFrame(out, columns=list(frame.columns), dtype=object)


def table_to_csv(frame: pd.DataFrame) -> str:
    """CSV text (``\\n`` line ends, header row) of the formatted table."""
    return str(format_table(frame).to_csv(index=False, lineterminator="\n"))


def table_to_markdown(rows: Sequence[Sequence[str]], header: Sequence[str]) -> str:
    """GitHub-flavoured Markdown table from already-formatted cells."""

    def clean(cell: str) -> str:
        return str(cell).replace("|", "\\|").replace("\n", " ")

    numeric = [
        all(_looks_numeric(row[i]) for row in rows if row[i]) and any(row[i] for row in rows)
        for i in range(len(header))
    ]
    lines = [
        "| " + " | ".join(clean(h) for h in header) + " |",
        "| " + " | ".join("---:" if n else "---" for n in numeric) + " |",
    ]
    lines += ["| " + " | ".join(clean(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _looks_numeric(text: str) -> bool:
    head = text.split(" ")[0]
    try:
        float(head)
    except ValueError:
        return False
    return True


def _with_ci(value: Any, low: Any, high: Any, decimals: int) -> str:
    v = format_number(value, decimals)
    if not v:
        return ""
    lo, hi = format_number(low, decimals), format_number(high, decimals)
    return f"{v} [{lo}, {hi}]" if lo and hi else v


def _column_with_ci(rec: Mapping[str, Any], column: str, decimals: int) -> str:
    """A column's value, with its interval where the table has one."""
    if column not in INTERVAL_COLUMNS:
        return format_number(rec[column], decimals)
    return _with_ci(rec[column], rec[f"{column}_low"], rec[f"{column}_high"], decimals)


#: (column, Markdown header, decimals) for optional metric columns in the README table.
_MD_METRICS: tuple[tuple[str, str, int], ...] = (
    ("irp", "IRP", 3),
    ("vss", "VSS", 3),
    ("mafia_survival", "Mafia surv.", 2),
    ("bus_rate", "Bus rate", 3),
    ("false_claim_survival", "FC surv. (days)", 2),
    ("brier", "Brier", 3),
    ("fallback_rate", "Fallback rate", 3),
    ("infra_fallback_rate", "Infra. fallbacks", 3),
    ("model_fallback_rate", "Model fallbacks", 3),
    ("void_games", "Void games", 0),
    ("tokens_per_game", "Tokens/game", 0),
    ("cost_per_game", "Cost/game", 4),
)


def markdown_leaderboard(frame: pd.DataFrame, confidence: float = 0.95) -> str:
    """Compact Markdown rendering of :func:`leaderboard_table` for a README."""
    pct = f"{round(confidence * 100):d}% CI"
    header = [
        "#",
        "Agent",
        "Kind",
        "Games",
        f"Win rate [{pct}]",
        f"as town [{pct}]",
        f"as mafia [{pct}]",
        f"BT Elo [{pct}]",
        "OpenSkill ordinal",
    ]
    keep = LLM_COLUMNS if has_llm_agent(frame) else ()
    metrics = [
        m
        for m in _MD_METRICS
        if m[0] in frame
        and (m[0] in keep or (not frame[m[0]].isna().all() and not (frame[m[0]] == 0).all()))
    ]
    header += [f"{m[1]} [{pct}]" if m[0] in INTERVAL_COLUMNS else m[1] for m in metrics]
    rows = []
    for rec in frame.to_dict(orient="records"):
        row = [
            format_number(rec["rank"], 0),
            str(rec["agent"]),
            str(rec["kind"]),
            format_number(rec["games"], 0),
            _with_ci(rec["win_rate"], rec["win_rate_low"], rec["win_rate_high"], 2),
            _column_with_ci(rec, "win_rate_town", 2),
            _column_with_ci(rec, "win_rate_mafia", 2),
            _with_ci(rec["bt_rating"], rec["bt_low"], rec["bt_high"], 0),
            format_number(rec["os_ordinal"], 1),
        ]
        row += [_column_with_ci(rec, m[0], m[2]) for m in metrics]
        rows.append(row)
    return table_to_markdown(rows, header)


def markdown_roles(frame: pd.DataFrame, confidence: float = 0.95) -> str:
    """Compact Markdown rendering of :func:`roles_table` for a README."""
    pct = f"{round(confidence * 100):d}% CI"
    header = ["Role", "Side", "#", "Agent", "Seats", f"Win rate [{pct}]", f"BT Elo [{pct}]"]
    rows = [
        [
            str(rec["role"]),
            str(rec["side"]),
            format_number(rec["rank"], 0),
            str(rec["agent"]),
            format_number(rec["seats"], 0),
            _with_ci(rec["win_rate"], rec["win_rate_low"], rec["win_rate_high"], 2),
            _with_ci(rec["bt_rating"], rec["bt_low"], rec["bt_high"], 0),
        ]
        for rec in frame.to_dict(orient="records")
    ]
    return table_to_markdown(rows, header)
