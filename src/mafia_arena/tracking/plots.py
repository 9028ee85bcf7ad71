"""Plots of a matchup or a tournament: win rates with 95% intervals, game lengths.

Written with matplotlib's non-interactive Agg backend; when matplotlib is missing no
plot is made (the numbers are in the metrics and tables anyway).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mafia_arena.metrics.aggregate import wilson
from mafia_arena.tracking.summaries import win_table


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _bars(plt: Any, ax: Any, table: dict[str, Any], title: str) -> None:
    names = list(table)
    values = [table[k].value for k in names]
    errors = [
        [table[k].value - table[k].low for k in names],
        [table[k].high - table[k].value for k in names],
    ]
    ax.bar(names, values, yerr=errors, capsize=4, color="#4c72b0")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.tick_params(axis="x", rotation=30)


def plot_records(records: Sequence[dict[str, Any]], folder: Path, title: str) -> list[Path]:
    """win_rates.png (factions), agent_win_rates.png (agent x side), length.png."""
    plt = _pyplot()
    if plt is None or not records:
        return []
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    fig, ax = plt.subplots(figsize=(6, 4))
    _bars(plt, ax, win_table(records), f"{title}: win rate by faction (95% CI)")
    paths.append(folder / "win_rates.png")
    fig.tight_layout()
    fig.savefig(paths[-1], dpi=100)
    plt.close(fig)
    by: dict[str, list[bool]] = {}
    for record in records:
        for seat in record["seats"]:
            by.setdefault(f"{seat['agent']} ({seat['side']})", []).append(bool(seat["won"]))
    table = {k: wilson(sum(v), len(v)) for k, v in sorted(by.items())}
    fig, ax = plt.subplots(figsize=(max(6, len(table)), 4))
    _bars(plt, ax, table, f"{title}: agent win rate by side (95% CI)")
    paths.append(folder / "agent_win_rates.png")
    fig.tight_layout()
    fig.savefig(paths[-1], dpi=100)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4))
    lengths = [r["length_days"] for r in records]
    ax.hist(lengths, bins=range(0, max(lengths) + 2), color="#55a868", align="left")
    ax.set_xlabel("days")
    ax.set_title(f"{title}: game length")
    paths.append(folder / "length.png")
    fig.tight_layout()
    fig.savefig(paths[-1], dpi=100)
    plt.close(fig)
    return paths
