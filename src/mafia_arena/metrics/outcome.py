"""Outcome metrics: who won, who survived, how long the game lasted."""

from __future__ import annotations

from typing import Any

from mafia_arena.metrics.facts import MAFIA, NIGHT_CAUSES, TOWN, GameFacts
from mafia_arena.metrics.ratios import ratio

PerSeat = dict[int, dict[str, Any]]


def outcome(f: GameFacts) -> tuple[PerSeat, dict[str, Any]]:
    """Per seat: days_survived (won and survived are fields of the record's seats).
    Per game: win.<faction>, town_win, mafia_win, draw, length_days, executions,
    night_kills (every kind of night kill: `facts.NIGHT_CAUSES`), town_survival,
    mafia_survival."""
    per_seat: PerSeat = {}
    for seat in range(f.players):
        per_seat[seat] = {"days_survived": f.death_day.get(seat, f.length_days)}
    winner_side = f.sides.get(f.winner) if f.winner else None
    if f.winner and winner_side is None:
        winner_side = MAFIA if f.winner == MAFIA else TOWN
    game: dict[str, Any] = {
        f"win.{faction}": float(f.winner == faction)
        for faction in sorted(set(f.sides) | set(f.factions.values()) - {""})
    }
    game.update(
        {
            "town_win": float(winner_side == TOWN),
            "mafia_win": float(winner_side == MAFIA),
            "draw": float(f.winner is None),
            "length_days": f.length_days,
            "executions": len(f.executions),
            "night_kills": sum(1 for _, _, c in f.departures if c in NIGHT_CAUSES),
        }
    )
    for side in (TOWN, MAFIA):
        members = f.seats_on(side)
        game[f"{side}_survival"] = ratio(sum(f.survived(s) for s in members), len(members))
    return per_seat, game
