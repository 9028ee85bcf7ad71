"""Leaderboard columns: their names, order, decimals, and when one is shown or dropped.

The one place a column is declared, so the builders (``table.py``), the seat totals
(``seat_totals.py``) and the renderings (``render.py``) agree on it: the fixed decimals
per float column that make the CSV byte-identical for identical games, the columns with
an interval beside them (``<column>_low``, ``<column>_high``), the optional columns a
board drops when no agent has a value, and the per-seat metric names the columns are
built from (a test checks that the metrics write each one). Column meanings and
formulas: ``docs/leaderboard.md``.
"""

from __future__ import annotations

import pandas as pd

from mafia_arena.metrics.deception import FALSE_CLAIM_DAYS_SQ

from .records import SIDE_ORDER

__all__ = [
    "AGENT_COLUMNS",
    "COLUMN_DECIMALS",
    "FALSE_CLAIMS",
    "FALSE_CLAIM_DAYS",
    "FALSE_CLAIM_DAYS_SQ",
    "INTERVAL_COLUMNS",
    "LLM_COLUMNS",
    "OPTIONAL_COLUMNS",
    "PER_SEAT_MEANS",
    "POLICY_COUNTERS",
    "RL_COLUMNS",
    "ROLE_COLUMNS",
    "SEAT_METRICS_READ",
    "ZERO_OPTIONAL_COLUMNS",
    "has_agent_of_kind",
    "has_llm_agent",
    "kept_columns",
    "side_sort_key",
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
    "policy_share": 4,
}


def _with_bounds(column: str) -> tuple[str, str, str]:
    return (column, f"{column}_low", f"{column}_high")


#: The Bradley–Terry rating with its interval, and the OpenSkill columns.
_BT_RATING = ("bt_rating", "bt_low", "bt_high")
_OPENSKILL = ("os_mu", "os_sigma", "os_ordinal")


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
    "policy_share",
)
#: Columns dropped from the agent table when no agent has a nonzero value: the split of
#: fallbacks by blame says nothing where nobody fell back (scripted tables).
ZERO_OPTIONAL_COLUMNS: tuple[str, ...] = ("infra_fallback_rate", "model_fallback_rate")
#: The reliability and cost columns, always kept (zeros included) in the table and shown in
#: the README on a board with an LLM agent: there a 0 is a measurement (the endpoint and
#: the model never failed, the games cost nothing), and a missing column would read as
#: "not measured". On other boards the README shows them only where some agent's is not 0.
LLM_COLUMNS: tuple[str, ...] = (
    "fallback_rate",
    "infra_fallback_rate",
    "model_fallback_rate",
    "void_games",
    "tokens_per_game",
    "cost_per_game",
)


#: The columns of trained policies (agents of kind ``rl``), always kept in the table and
#: shown in the README on a board with such an agent, and dropped on any other (no
#: agent there has a value): `policy_share`, the share of their decisions the policy
#: answered itself rather than its fallback. A 0 there is a result (a policy that never
#: fitted the game), never "not measured".
RL_COLUMNS: tuple[str, ...] = ("policy_share",)
#: The counters a trained policy keeps of who answered its seat's decisions (the
#: record's ``seats[].extra``; `agents.policy.PolicyAgent`): itself, or its fallback.
#: Named here, not imported, so reading a board loads no agent code; a test plays the
#: shipped policy through a tournament to this column, so the names cannot drift apart.
POLICY_COUNTERS: tuple[str, str] = ("policy_decisions", "fallback_decisions")


def has_agent_of_kind(frame: pd.DataFrame, kind: str) -> bool:
    """Whether some agent of the table is of `kind` (alone or among its kinds)."""
    if "kind" not in frame:
        return False
    return any(kind in str(kinds).split("+") for kinds in frame["kind"])


def has_llm_agent(frame: pd.DataFrame) -> bool:
    """Whether some agent of the table is of kind ``llm`` (alone or among its kinds)."""
    return has_agent_of_kind(frame, "llm")


def kept_columns(frame: pd.DataFrame) -> tuple[str, ...]:
    """The columns the agent table and its README keep whatever their values, for the
    kinds of agent on the board: `LLM_COLUMNS` with an ``llm`` agent, `RL_COLUMNS` with
    an ``rl`` one (a 0 there is a measurement, and a missing column would read as "not
    measured")."""
    kept = LLM_COLUMNS if has_llm_agent(frame) else ()
    return kept + (RL_COLUMNS if has_agent_of_kind(frame, "rl") else ())


#: Per-seat metrics (``docs/metrics.md``) whose mean over seats is a column.
PER_SEAT_MEANS = ("irp", "vss", "bus_rate", "brier")
#: Per-seat metrics (``docs/metrics.md``) the false-claim column is built from: the number
#: of distinct false role claims, the mean days they stood and the mean of those days
#: squared (each claim's days are one value of the column's mean and its interval).
FALSE_CLAIMS, FALSE_CLAIM_DAYS = "false_role_claims", "false_claim_days"
#: Every per-seat metric a column reads; a test checks that the metrics write each one.
SEAT_METRICS_READ: tuple[str, ...] = (
    *PER_SEAT_MEANS,
    FALSE_CLAIMS,
    FALSE_CLAIM_DAYS,
    FALSE_CLAIM_DAYS_SQ,
)


def side_sort_key(side: str) -> tuple[int, str]:
    """Sort sides as town, mafia, solo, then anything else alphabetically."""
    return (SIDE_ORDER.index(side), side) if side in SIDE_ORDER else (len(SIDE_ORDER), side)


#: Columns of the agent table, in order, before optional ones are dropped and ``rank``
#: is put first.
AGENT_COLUMNS = [
    "agent",
    "kind",
    "games",
    "seats",
    "wins",
    "draws",
    *_with_bounds("win_rate"),
    "seats_town",
    *_with_bounds("win_rate_town"),
    "seats_mafia",
    *_with_bounds("win_rate_mafia"),
    "seats_solo",
    *_with_bounds("win_rate_solo"),
    *_BT_RATING,
    "bt_town",
    "bt_mafia",
    "bt_solo",
    *_OPENSKILL,
    *_with_bounds("irp"),
    *_with_bounds("vss"),
    *_with_bounds("mafia_survival"),
    *_with_bounds("bus_rate"),
    *_with_bounds("false_claim_survival"),
    *_with_bounds("brier"),
    *LLM_COLUMNS,
    *RL_COLUMNS,
]

#: Columns of the roles table, in order, before ``rank`` is put first.
ROLE_COLUMNS = [
    "role",
    "side",
    "agent",
    "kind",
    "games",
    "seats",
    "wins",
    *_with_bounds("win_rate"),
    *_BT_RATING,
    *_OPENSKILL,
]
