"""Leaderboard figures as deterministic PNGs (matplotlib, Agg backend, no pyplot).

Figures are drawn on an explicit Agg canvas and pyplot is never imported, so the global
backend is left alone (importing this module does not switch a notebook's backend) and no
display is needed.

Determinism: figures are drawn on a private ``Figure`` + Agg canvas under
``matplotlib.style.context("default")`` (the user's matplotlibrc cannot leak in), with a
fixed ``svg.hashsalt``, a fixed DPI and size, the bundled DejaVu Sans font and
``metadata={"Software": None}``, so the PNG holds no version string or timestamp and the
same table yields the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.style
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

from .columns import side_sort_key
from .ratings import ELO_BASE

__all__ = ["KIND_COLORS", "plot_ratings", "plot_win_rate_by_role", "save_figure"]

DPI = 120
_RC: Any = {
    "svg.hashsalt": "mafia-arena-leaderboard",
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "axes.titlesize": 12,
    "axes.labelsize": 10,
    "path.simplify": False,
}

#: Colour per agent kind (colour-blind-safe Okabe–Ito palette); unknown kinds are grey.
KIND_COLORS: dict[str, str] = {
    "llm": "#0072B2",
    "scripted": "#E69F00",
    "rl": "#009E73",
    "human": "#CC79A7",
}
_OTHER_COLOR = "#666666"


def save_figure(fig: Figure, path: str | Path) -> Path:
    """Write ``fig`` as PNG with no software/time metadata; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    FigureCanvasAgg(fig)
    with matplotlib.rc_context(_RC):
        fig.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
    return path


def _context() -> AbstractContextManager[None]:
    return matplotlib.rc_context(_RC)


def _empty(fig: Figure, title: str, message: str) -> None:
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_title(title)
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes)


def plot_ratings(
    table: pd.DataFrame,
    path: str | Path,
    *,
    title: str = "Ratings",
    confidence: float = 0.95,
) -> Path:
    """Horizontal dot-and-whisker chart of Bradley–Terry Elo ratings with their intervals.

    ``table`` is :func:`~mafia_arena.leaderboard.table.leaderboard_table` output (uses
    ``agent``, ``kind``, ``games``, ``bt_rating``, ``bt_low``, ``bt_high``). Best agent on
    top, dashed line at the pool average (1500), dots coloured by agent kind.
    """
    with matplotlib.style.context("default"), _context():
        rated = table[np.isfinite(table["bt_rating"].astype(float))].reset_index(drop=True)
        n = len(rated)
        fig = Figure(figsize=(7.5, 1.6 + 0.42 * max(n, 2)), layout="constrained")
        if n == 0:
            _empty(fig, title, "no decisive games: nothing to rate")
            return save_figure(fig, path)
        ax = fig.add_subplot()
        y = np.arange(n)[::-1]  # rank 1 at the top
        value = rated["bt_rating"].to_numpy(float)
        low = rated["bt_low"].to_numpy(float)
        high = rated["bt_high"].to_numpy(float)
        has_ci = np.isfinite(low) & np.isfinite(high)
        err = np.vstack(
            [np.where(has_ci, value - low, 0.0), np.where(has_ci, high - value, 0.0)]
        ).clip(min=0.0)
        kinds = [str(k) for k in rated["kind"]]
        colors = [KIND_COLORS.get(k, _OTHER_COLOR) for k in kinds]
        ax.axvline(ELO_BASE, color="#999999", linestyle="--", linewidth=1, zorder=0)
        ax.errorbar(
            value,
            y,
            xerr=err,
            fmt="none",
            ecolor="#444444",
            elinewidth=1.5,
            capsize=4,
            zorder=1,
        )
        ax.scatter(value, y, c=colors, s=55, zorder=2, edgecolors="black", linewidths=0.6)
        for yi, v, hi_ in zip(y, value, np.where(has_ci, high, value), strict=True):
            ax.annotate(
                f"{v:.0f}",
                (hi_, yi),
                xytext=(6, 0),
                textcoords="offset points",
                va="center",
                fontsize=9,
            )
        labels = [f"{a}  (n={int(g)})" for a, g in zip(rated["agent"], rated["games"], strict=True)]
        ax.set_yticks(y, labels)
        ax.set_ylim(-0.7, n - 0.3)
        lo_all = float(np.nanmin(np.where(has_ci, low, value)))
        hi_all = float(np.nanmax(np.where(has_ci, high, value)))
        pad = max(40.0, 0.12 * (hi_all - lo_all))
        ax.set_xlim(min(lo_all, ELO_BASE) - pad, max(hi_all, ELO_BASE) + 1.8 * pad)
        pct = round(confidence * 100)
        ax.set_xlabel(f"Bradley–Terry rating (Elo scale; bars: {pct}% interval)")
        ax.set_ylabel("Agent (games played)")
        ax.set_title(title)
        ax.grid(axis="x", color="#e5e5e5", linewidth=0.8)
        ax.set_axisbelow(True)
        present = sorted(set(kinds))
        if len(present) > 1:
            handles = [
                ax.scatter([], [], c=KIND_COLORS.get(k, _OTHER_COLOR), s=40, edgecolors="black")
                for k in present
            ]
            ax.legend(handles, present, title="kind", loc="best", fontsize=8)
        return save_figure(fig, path)


def _text_color(rgba: Sequence[float]) -> str:
    r, g, b = rgba[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def plot_win_rate_by_role(
    roles: pd.DataFrame,
    path: str | Path,
    *,
    title: str = "Win rate by role",
    agent_order: Sequence[str] | None = None,
) -> Path:
    """Annotated heatmap: agents (rows, leaderboard order) × roles (columns) → win rate.

    ``roles`` is :func:`~mafia_arena.leaderboard.table.roles_table` output. Each cell shows
    the win rate and the number of seats; grey "–" means the agent never held that role.
    Roles are ordered town, mafia, solo, then by name.
    """
    with matplotlib.style.context("default"), _context():
        if roles.empty:
            fig = Figure(figsize=(6, 2.5), layout="constrained")
            _empty(fig, title, "no games")
            return save_figure(fig, path)
        role_side = (
            roles[["role", "side"]].drop_duplicates("role").set_index("role")["side"].to_dict()
        )
        role_list = sorted(role_side, key=lambda r: (side_sort_key(role_side[r]), r))
        agents = list(agent_order) if agent_order is not None else sorted(set(roles["agent"]))
        agents += sorted(set(roles["agent"]) - set(agents))
        rate = np.full((len(agents), len(role_list)), np.nan)
        seats = np.zeros((len(agents), len(role_list)), dtype=int)
        a_idx = {a: i for i, a in enumerate(agents)}
        r_idx = {r: j for j, r in enumerate(role_list)}
        for rec in roles.to_dict(orient="records"):
            i, j = a_idx[rec["agent"]], r_idx[rec["role"]]
            rate[i, j] = rec["win_rate"]
            seats[i, j] = int(rec["seats"])
        width = 2.8 + 1.05 * len(role_list)
        height = 1.7 + 0.5 * len(agents)
        fig = Figure(figsize=(max(width, 6.0), max(height, 3.0)), layout="constrained")
        ax = fig.add_subplot()
        cmap = matplotlib.colormaps["RdYlBu"].with_extremes(bad="#e0e0e0")
        image = ax.imshow(np.ma.masked_invalid(rate), cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
        for i in range(len(agents)):
            for j in range(len(role_list)):
                if math.isnan(rate[i, j]):
                    ax.text(j, i, "–", ha="center", va="center", color="#777777")
                    continue
                color = _text_color(to_rgba(cmap(rate[i, j])))
                ax.text(
                    j,
                    i,
                    f"{rate[i, j]:.2f}\nn={seats[i, j]}",
                    ha="center",
                    va="center",
                    color=color,
                    fontsize=8.5,
                    linespacing=1.15,
                )
        ax.set_xticks(np.arange(len(role_list)), [f"{r}\n({role_side[r]})" for r in role_list])
        ax.set_yticks(np.arange(len(agents)), agents)
        ax.set_xticks(np.arange(len(role_list) + 1) - 0.5, minor=True)
        ax.set_yticks(np.arange(len(agents) + 1) - 0.5, minor=True)
        ax.grid(which="minor", color="white", linewidth=2)
        ax.tick_params(which="minor", length=0)
        ax.set_xlabel("Role (side)")
        ax.set_ylabel("Agent (leaderboard order)")
        ax.set_title(title)
        cbar = fig.colorbar(image, ax=ax, fraction=0.05, pad=0.02)
        cbar.set_label("Win rate (share of seats won)")
        return save_figure(fig, path)
