"""Deaths: mark a player dead, announce it, reveal the card where the rules say so."""

from __future__ import annotations

from mafia_arena.engine.catalogue import Death, Reveal
from mafia_arena.engine.events import PUBLIC
from mafia_arena.engine.game import Game


def die(game: Game, seats: list[int], cause: str, *, reveal: bool | None = None) -> None:
    """Kill `seats` at the same moment (in seat order) and run the death triggers.

    `reveal` defaults to the variant's ``reveal_on_death`` switch. The most recent death
    defines the "last dead" (classic: the tie-breaker of a final vote). A seat already
    dead (a player disqualified after being attacked) is skipped, and the triggers see
    only the seats that died now, so nobody triggers twice.
    """
    if not seats:
        return
    state = game.state
    reveal = game.variant.rules.reveal_on_death if reveal is None else reveal
    fallen: list[int] = []
    for seat in sorted(seats):
        if not state.seats[seat].alive:
            continue
        fallen.append(seat)
        state.mark_dead(seat)
        state.death_order.append(seat)
        manner = state.seats[seat].flags.pop("manner", None) or None
        role = state.seats[seat].card if reveal else None
        if reveal:
            state.seats[seat].flags["revealed"] = True
        game.emit(Death(seat, cause, manner, role), PUBLIC)
    if not fallen:
        return
    for hook in game.hooks.death:
        hook(game, fallen, cause)


def reveal(game: Game, seat: int) -> None:
    """Turn up a dead player's card later (club reveals night victims after the vote)."""
    state = game.state
    if state.seats[seat].flags.get("revealed"):
        return
    state.seats[seat].flags["revealed"] = True
    game.emit(Reveal(seat, state.seats[seat].card), PUBLIC)
