"""Leaderboards: ratings per agent, side and role, with confidence intervals.

Input is the JSONL results store of finished games (one record per game). Everything
here is order-independent: the same set of games gives the same numbers and the same
bytes on disk, whatever order the games were stored in. See ``docs/leaderboard.md``.

Typical use::

    from mafia_arena.leaderboard import load_records, write_leaderboard

    records = load_records("results/scripted-baseline.jsonl")
    write_leaderboard(records, "leaderboards/scripted-baseline",
                      title="Scripted baseline", provenance={"spec": "...", "seed": 1})
"""

from .intervals import bootstrap_ci, percentile_interval, wilson_interval
from .publish import OUTPUT_FILES, write_leaderboard
from .ratings import (
    BradleyTerryFit,
    OpenSkillRating,
    bootstrap_bradley_terry,
    compute_ratings,
    fit_bradley_terry,
    fit_openskill,
)
from .records import GameResult, SeatResult, filter_records, load_records, prepare_games
from .render import format_table, table_to_csv
from .table import leaderboard_table, roles_table

__all__ = [
    "OUTPUT_FILES",
    "BradleyTerryFit",
    "GameResult",
    "OpenSkillRating",
    "SeatResult",
    "bootstrap_bradley_terry",
    "bootstrap_ci",
    "compute_ratings",
    "filter_records",
    "fit_bradley_terry",
    "fit_openskill",
    "format_table",
    "leaderboard_table",
    "load_records",
    "percentile_interval",
    "prepare_games",
    "roles_table",
    "table_to_csv",
    "wilson_interval",
    "write_leaderboard",
]
