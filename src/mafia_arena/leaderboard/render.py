"""Deterministic text renderings of the leaderboard tables: CSV and Markdown.

The builders in ``table.py`` return numeric DataFrames for analysis. ``format_table``
turns them into strings with fixed decimals per column (``columns.COLUMN_DECIMALS``),
NaN as the empty string and never ``-0.0``, so ``table_to_csv`` is byte-identical for
identical games, in any input order, and a published board's diff in git shows only
what changed. The Markdown renderings are the compact README tables: a value with its
interval in brackets, and optional metric columns shown only where some agent has a
value (always those of ``columns.kept_columns``: the ``columns.LLM_COLUMNS`` on a board
with an LLM agent, the ``columns.RL_COLUMNS`` on one with a trained policy). Strings
in, strings out: nothing here computes a statistic.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .columns import COLUMN_DECIMALS, INTERVAL_COLUMNS, kept_columns

__all__ = [
    "format_number",
    "format_table",
    "markdown_leaderboard",
    "markdown_model_cards",
    "markdown_roles",
    "table_to_csv",
    "table_to_markdown",
]


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
    ("policy_share", "Policy share", 3),
)


def _shown(frame: pd.DataFrame, column: str, keep: Sequence[str]) -> bool:
    """Whether the README table shows `column` of the agent table.

    A measured rate or mean (a column with an interval: IRP, VSS, mafia survival, ...)
    is shown wherever some agent has a value, as in the CSV, zeros included: every
    agent's mafia survival of 0 is a result, and a README without the column would
    read as "not measured". A reliability or cost column (fallbacks, tokens, cost, void
    games) is shown only where some agent has a nonzero value, since a scripted board
    counts none of them, and always when it is in `keep` (`columns.kept_columns`:
    `columns.LLM_COLUMNS` on a board with an LLM agent, `columns.RL_COLUMNS` on one
    with a trained policy, where a 0 is a measurement). `policy_share` is such a
    column: it has a value only for trained policies, and then always."""
    if column not in frame:
        return False
    if column in keep:
        return True
    values = frame[column]
    if values.isna().all():
        return False
    return column in INTERVAL_COLUMNS or not (values == 0).all()


def markdown_leaderboard(frame: pd.DataFrame, confidence: float = 0.95) -> str:
    """Compact Markdown rendering, for a README, of
    :func:`~mafia_arena.leaderboard.table.leaderboard_table`."""
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
    keep = kept_columns(frame)
    metrics = [m for m in _MD_METRICS if _shown(frame, m[0], keep)]
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
    """Compact Markdown rendering, for a README, of
    :func:`~mafia_arena.leaderboard.table.roles_table`."""
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


def markdown_model_cards(frame: pd.DataFrame) -> str:
    """Markdown rendering of :func:`~mafia_arena.leaderboard.table.model_cards` ("" when
    no agent has a card); JSON and hashes in code spans, an empty cell left empty."""
    if frame.empty:
        return ""
    header = ["Agent", "Model", "Endpoint", "Sampling", "Prompt hash", "Build", "Games"]

    def code(text: object) -> str:
        return f"`{text}`" if text else ""

    rows = [
        [
            str(r["agent"]),
            str(r["model"]),
            str(r["endpoint"]),
            code(r["sampling"]),
            code(r["prompt_hash"]),
            code(r["build"]),
            format_number(r["games"], 0),
        ]
        for r in frame.to_dict(orient="records")
    ]
    return table_to_markdown(rows, header)
