"""Win conditions: named, parameterised rules per faction, checked after every death."""

from __future__ import annotations

from mafia_arena.engine.events import PUBLIC
from mafia_arena.engine.game import Game
from mafia_arena.rules.spec import WinRule


def is_killer(game: Game, seat: int) -> bool:
    """A living player whose current role can kill at night (club's "killing roles")."""
    role = game.state.role(seat)
    if game.variant.roles[role].traits.get("killer") is not None:
        return bool(game.variant.roles[role].traits["killer"])
    return any(role in step.actors and step.action in ("kill", "shoot", "check_or_kill")
               for step in game.variant.night)


def rule_holds(game: Game, faction: str, rule: WinRule) -> bool:
    state = game.state
    living = state.living()
    members = [s for s in living if state.faction(s) == faction]
    others = [s for s in living if state.faction(s) != faction]
    if rule.type == "eliminated":
        enemies = set(rule.factions) or (set(game.variant.factions) - {faction})
        return bool(living) and not any(state.faction(s) in enemies for s in living)
    if rule.type == "parity":
        return bool(members) and len(members) >= len(others)
    if rule.type == "sole_survivors":
        return bool(members) and not others
    if rule.type == "clan":
        return (bool(members) and not any(is_killer(game, s) for s in others)
                and len(members) >= len(others))
    if rule.type == "solo":
        return (bool(members) and not any(is_killer(game, s) for s in others)
                and len(others) <= rule.others)
    raise ValueError(rule.type)


def winner(game: Game) -> str | None:
    """The first faction (in file order) one of whose rules holds, or ``"draw"``."""
    if not game.state.living():
        return "draw"
    for name, faction in game.variant.factions.items():
        if any(rule_holds(game, name, rule) for rule in faction.win):
            return name
    return None


def check_win(game: Game) -> bool:
    """End the game if a faction has won; return True if the game is over."""
    result = winner(game)
    if result is None:
        return False
    end_game(game, result)
    return True


def end_game(game: Game, result: str, reason: str = "") -> None:
    """Record the winner, reveal every card and stop the game."""
    state = game.state
    state.over = True
    state.winner = None if result == "draw" else result
    state.winners = tuple(s.seat for s in state.seats if s.faction == result)
    game.emit("game_over", {
        "winner": state.winner,
        "winners": list(state.winners),
        "reason": reason,
        "roles": {str(s.seat): s.card for s in state.seats},
        "factions": {str(s.seat): s.faction for s in state.seats},
    }, PUBLIC)
