"""Win conditions: named, parameterised rules per faction, checked after every death.

A faction marked ``solo`` is not one team: each of its members is a team of one, whose
rules are evaluated for that player alone and whose win is that player's alone (club:
two solo killers never win together). When two factions with ``clan`` rules hold at
once, the game is a draw (club D31: only the lawyer and the framer are left).
"""

from __future__ import annotations

from mafia_arena.engine.catalogue import GameEnded
from mafia_arena.engine.events import PUBLIC
from mafia_arena.engine.game import Game
from mafia_arena.rules.spec import WinRule


def is_killer(game: Game, seat: int) -> bool:
    """A living player whose current role can kill at night (club's "killing roles")."""
    return game.state.role(seat) in killer_roles(game)


def killer_roles(game: Game) -> frozenset[str]:
    """The roles that can kill at night: the ``killer`` trait, else a killing step.

    Kept in `game.derived`: the win rules ask after every death, and the answer depends
    on the (immutable) variant alone.
    """
    roles = game.derived.get("killer_roles")
    if roles is None:
        variant = game.variant
        killing = {
            role
            for step in variant.night
            if step.action in ("kill", "shoot", "check_or_kill")
            for role in step.actors
        }
        roles = game.derived["killer_roles"] = frozenset(
            role
            for role, spec in variant.roles.items()
            if (
                bool(spec.traits["killer"])
                if spec.traits.get("killer") is not None
                else role in killing
            )
        )
    return roles


def rule_holds(game: Game, faction: str, rule: WinRule, members: list[int] | None = None) -> bool:
    """Does `rule` hold for `faction` (or for `members` only: one solo player)?"""
    state = game.state
    living = state.living_seats()
    if members is None:
        members = [s for s in living if state.faction(s) == faction]
    others = [s for s in living if s not in members]
    if rule.type == "eliminated":
        enemies = set(rule.factions) or (set(game.variant.factions) - {faction})
        return bool(living) and not any(state.faction(s) in enemies for s in living)
    if rule.type == "parity":
        return bool(members) and len(members) >= len(others)
    if rule.type == "sole_survivors":
        return bool(members) and not others
    if rule.type == "clan":
        return (
            bool(members)
            and not any(is_killer(game, s) for s in others)
            and len(members) >= len(others)
        )
    if rule.type == "solo":
        return (
            bool(members)
            and not any(is_killer(game, s) for s in others)
            and len(others) <= rule.others
        )
    raise ValueError(rule.type)


def outcome(game: Game) -> tuple[str, tuple[int, ...] | None] | None:
    """(result, winning seats) or None while the game goes on.

    The first faction in file order one of whose rules holds wins; its seats are every
    player of that faction (dead included), or for a solo faction the one player who
    won. ``"draw"`` when nobody is alive or when only clan rules hold, for two factions.
    """
    state = game.state
    living = state.living_seats()
    if not living:
        return "draw", ()
    won: list[tuple[str, tuple[int, ...] | None, str]] = []
    for name, faction in game.variant.factions.items():
        if faction.solo:
            for seat in (s for s in living if state.faction(s) == name):
                rule = next((r for r in faction.win if rule_holds(game, name, r, [seat])), None)
                if rule is not None:
                    won.append((name, (seat,), rule.type))
            continue
        rule = next((r for r in faction.win if rule_holds(game, name, r)), None)
        if rule is not None:
            won.append((name, None, rule.type))
    if not won:
        return None
    if len(won) > 1 and all(kind == "clan" for _, _, kind in won):
        return "draw", ()
    return won[0][0], won[0][1]


def winner(game: Game) -> str | None:
    """The winning faction, ``"draw"``, or None while the game goes on."""
    result = outcome(game)
    return None if result is None else result[0]


def check_win(game: Game) -> bool:
    """End the game if a faction has won; return True if the game is over."""
    result = outcome(game)
    if result is None:
        return False
    end_game(game, result[0], winners=result[1])
    return True


def end_game(
    game: Game, result: str, reason: str = "", winners: tuple[int, ...] | None = None
) -> None:
    """Record the winner, reveal every card and stop the game.

    `winners` defaults to every seat whose current faction is `result`.
    """
    state = game.state
    state.over = True
    state.winner = None if result == "draw" else result
    state.winners = (
        tuple(s.seat for s in state.seats if s.faction == result)
        if winners is None
        else tuple(winners)
    )
    game.emit(
        GameEnded(
            state.winner,
            tuple(state.winners),
            reason,
            {s.seat: s.card for s in state.seats},
            {s.seat: s.faction for s in state.seats},
            tuple(sorted(state.banned)) or None,
        ),
        PUBLIC,
    )
