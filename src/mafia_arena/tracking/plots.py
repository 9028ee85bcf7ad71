"""Plots of a matchup or a tournament: win rates with 95% intervals, game lengths.

Written with matplotlib's Agg canvas directly (no pyplot, no figure manager); when
matplotlib is missing no plot is made (the numbers are in the metrics and tables
anyway).

Cost: a tournament writes three plots per matchup, and a spec may have thousands of
matchups, so a plot is drawn once, by `savefig`, on a figure that earlier plots left
ready (`_Figures`). The margins that fit the tick labels and title (matplotlib's tight
layout, a draw of its own) are computed once per kind of plot and set of tick labels
(`_Margins`) and reused: they depend on the tick labels and, for a one-line title that
fits the figure's width, not on the title's text, so the matchups of a spec, which have
the same labels, get the margins a tight layout of each would give. The figure of such
a key is kept too: the next plot of that kind and key takes its axes, ticks and tick
labels, and its text sizes measured by the same renderer, and only replaces the bars
and the title, so it writes the PNG a figure of its own would write, byte for byte, at
about two thirds of the time.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mafia_arena.metrics.aggregate import clustered
from mafia_arena.stats import ClusteredRate
from mafia_arena.tracking.summaries import WinTally, two_passes


def _matplotlib_ready() -> bool:
    """Whether matplotlib can be imported (it is an optional dependency)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _figure(width: float) -> Any:
    """A figure `width` x 4 inches on an Agg canvas, with one axes, outside pyplot (whose
    figure registry and backend switching cost time and keep figures alive)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, 4))
    FigureCanvasAgg(fig)
    fig.add_subplot()
    return fig


class _Margins:
    """Tight-layout margins per (plot kind, figure width, tick labels), computed by the
    first figure of that key and reused by the others (see the module docstring)."""

    def __init__(self) -> None:
        self._known: dict[tuple[Any, ...], dict[str, float]] = {}

    def fit(self, fig: Any, key: tuple[Any, ...]) -> None:
        known = self._known.get(key)
        if known is not None:
            fig.subplots_adjust(**known)
            return
        fig.tight_layout()
        params = fig.subplotpars
        self._known[key] = {
            side: getattr(params, side) for side in ("left", "right", "bottom", "top")
        }


_MARGINS = _Margins()


class _Figures:
    """The last figures of each plot kind by key (figure width and what fixes the axes:
    tick labels, or the ranges of a histogram), handed out again, emptied of their
    bars, for the next plot of that kind and key (see the module docstring).

    Only the bars go (`Axes.containers`: a bar chart's bars and error bars, a
    histogram's bars); axis limits, labels and margins stay, which the key makes those
    the new plot would get on a figure of its own. A new key starts a new figure; the
    `KEEP` most recently used of a kind are kept (a figure holds its canvas, about a
    megabyte), so matchups whose game lengths alternate still reuse theirs."""

    KEEP = 4

    def __init__(self) -> None:
        self._held: dict[str, dict[tuple[Any, ...], Any]] = {}

    def get(self, kind: str, width: float, key: tuple[Any, ...]) -> Any:
        """A figure `width` x 4 inches with one empty axes, for a plot of `kind` whose
        axes `key` fixes."""
        held = self._held.setdefault(kind, {})
        full_key = (width, *key)
        fig = held.pop(full_key, None)
        if fig is not None:
            for container in list(fig.axes[0].containers):
                container.remove()
        else:
            fig = _figure(width)
            if len(held) >= self.KEEP:
                del held[next(iter(held))]  # the least recently used
        held[full_key] = fig  # now the most recently used
        return fig


_FIGURES = _Figures()


def _save(fig: Any, path: Path, key: tuple[Any, ...]) -> Path:
    _MARGINS.fit(fig, key)
    fig.savefig(path, dpi=100)
    return path


def _bars(ax: Any, table: dict[str, Any], title: str) -> None:
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
        if not _matplotlib_ready() or not self.wins.n:
            return []
        folder.mkdir(parents=True, exist_ok=True)
        wins = self.wins.table()
        key: tuple[Any, ...] = ("win_rates", *wins)
        fig = _FIGURES.get("win_rates", 6, key)
        _bars(fig.axes[0], wins, f"{title}: win rate by faction (95% CI)")
        paths = [_save(fig, folder / "win_rates.png", key)]
        table = {k: clustered(v) for k, v in sorted(self.by_side.items())}
        key = ("agent_win_rates", *table)
        fig = _FIGURES.get("agent_win_rates", max(6, len(table)), key)
        _bars(fig.axes[0], table, f"{title}: agent win rate by side (95% CI)")
        paths.append(_save(fig, folder / "agent_win_rates.png", key))
        days = sorted(self.lengths)
        key = ("length", max(days), max(self.lengths.values()))  # the axes' ranges
        fig = _FIGURES.get("length", 6, key)
        ax = fig.axes[0]
        ax.hist(
            days,
            bins=range(0, max(days) + 2),
            weights=[self.lengths[d] for d in days],
            color="#55a868",
            align="left",
        )
        ax.set_xlabel("days")
        ax.set_title(f"{title}: game length")
        paths.append(_save(fig, folder / "length.png", key))
        return paths


def plot_records(records: Sequence[dict[str, Any]], folder: Path, title: str) -> list[Path]:
    """win_rates.png (factions), agent_win_rates.png (agent x side), length.png."""
    return two_passes(PlotTally(), records).draw(folder, title)
