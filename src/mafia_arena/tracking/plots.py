"""Plots of a matchup or a tournament: win rates with 95% intervals, game lengths.

Written with matplotlib's non-interactive Agg backend; when matplotlib is missing no
plot is made (the numbers are in the metrics and tables anyway).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mafia_arena.metrics.aggregate import clustered
from mafia_arena.stats import ClusteredRate
from mafia_arena.tracking.summaries import WinTally, two_passes


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


class PlotTally:
    """What the plots need of a set of records (faction wins, agent-by-side wins, game
    lengths), fed record by record so a store is streamed rather than held.

    A void game (``"void": true``) is left out, as it is of every other win rate and
    aggregate (docs/tournaments.md, *Void games*). An agent's win rate on a side takes
    its seats of one game as one cluster (`ClusteredRate`), as the aggregates and the
    leaderboard do, since those seats share the game's outcome."""

    def __init__(self) -> None:
        self.wins = WinTally()
        self.by_side: dict[str, ClusteredRate] = {}  # "agent (side)" -> wins over seats
        self.lengths: dict[int, int] = {}

    def add(self, record: dict[str, Any]) -> None:
        if record.get("void"):
            return
        self.wins.add(record)
        game: dict[str, list[int]] = {}  # "agent (side)" -> [won, seats] in this game
        for seat in record["seats"]:
            cell = game.setdefault(f"{seat['agent']} ({seat['side']})", [0, 0])
            cell[0] += bool(seat["won"])
            cell[1] += 1
        for key, (won, seats) in game.items():
            self.by_side.setdefault(key, ClusteredRate()).add(won, seats)
        days = record["length_days"]
        self.lengths[days] = self.lengths.get(days, 0) + 1

    def add_second(self, record: dict[str, Any]) -> None:
        """Nothing: counts need one pass."""

    def draw(self, folder: Path, title: str) -> list[Path]:
        """win_rates.png (factions), agent_win_rates.png (agent x side), length.png."""
        plt = _pyplot()
        if plt is None or not self.wins.n:
            return []
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        fig, ax = plt.subplots(figsize=(6, 4))
        _bars(plt, ax, self.wins.table(), f"{title}: win rate by faction (95% CI)")
        paths.append(folder / "win_rates.png")
        fig.tight_layout()
        fig.savefig(paths[-1], dpi=100)
        plt.close(fig)
        table = {k: clustered(v) for k, v in sorted(self.by_side.items())}
        fig, ax = plt.subplots(figsize=(max(6, len(table)), 4))
        _bars(plt, ax, table, f"{title}: agent win rate by side (95% CI)")
        paths.append(folder / "agent_win_rates.png")
        fig.tight_layout()
        fig.savefig(paths[-1], dpi=100)
        plt.close(fig)
        fig, ax = plt.subplots(figsize=(6, 4))
        days = sorted(self.lengths)
        ax.hist(
            days,
            bins=range(0, max(days) + 2),
            weights=[self.lengths[d] for d in days],
            color="#55a868",
            align="left",
        )
        ax.set_xlabel("days")
        ax.set_title(f"{title}: game length")
        paths.append(folder / "length.png")
        fig.tight_layout()
        fig.savefig(paths[-1], dpi=100)
        plt.close(fig)
        return paths


def plot_records(records: Sequence[dict[str, Any]], folder: Path, title: str) -> list[Path]:
    """win_rates.png (factions), agent_win_rates.png (agent x side), length.png."""
    return two_passes(PlotTally(), records).draw(folder, title)
