"""State checks (3.6): imprisonment windows, the Rival Mafioso's activation, the win (9).

`state_check` runs after every resolution batch (a card, NOON, the vote's resolution,
an imprisonment that became final): first the activation, then the win, which ends the
game at once (no deferral, 9.4). `end_of_timed_phase` closes the cancel windows that
ran out with the phase (6.6) and then runs a state check.
"""

from __future__ import annotations

from mafia_arena.engine.catalogue import CardsShown, RoleChange
from mafia_arena.engine.events import PUBLIC, private
from mafia_arena.engine.game import Game
from mafia_arena.engine.palermo.changes import change
from mafia_arena.engine.palermo.roles import GOOD_CAMP, MAFIA_CAMP, MAFIA_TEAM, RIVAL, RIVAL_CAMP
from mafia_arena.engine.palermo.state import of
from mafia_arena.engine.player_states import PlayerState
from mafia_arena.engine.win import end_game


def end_of_timed_phase(game: Game) -> None:
    """A timed phase ended: imprisonments whose window closed become ghosts (6.6)."""
    ps = of(game)
    final = []
    for seat in sorted(ps.windows):
        ps.windows[seat] -= 1
        if ps.windows[seat] <= 0:
            final.append(seat)
    for seat in final:
        del ps.windows[seat]
        change(game, seat, PlayerState.GHOST, "imprisonment_final")
    state_check(game)


def state_check(game: Game) -> None:
    """Activation, then the win (3.6 steps 2 and 3); ends the game if a side won.

    The activated Rival Mafioso wins when at most one other player is Active: exactly
    one is 9.3; none can follow from a single resolution, and the game must not go on
    with nobody left to play against him (the seed's end rule: the killers outnumber
    everyone else)."""
    if game.over:
        return
    ps = of(game)
    seats = game.state.seats
    active = ps.states.active()
    if not ps.activated:
        killers = [s for s in active if seats[s].role in MAFIA_TEAM]
        if killers:
            if len(killers) > len(active) - len(killers):
                finish(game, MAFIA_CAMP, "the Active mafiosi outnumber everyone else")
            return
        rival = next((s for s in active if seats[s].role == RIVAL), None)
        if rival is None:
            finish(game, GOOD_CAMP, "no mafioso is Active and the Rival Mafioso cannot take over")
            return
        activate(game, rival)
    rival = next(s.seat for s in seats if s.role == RIVAL)
    if not ps.states.is_active(rival):
        finish(game, GOOD_CAMP, "the activated Rival Mafioso is out of the game")
    elif len(active) <= 2:
        # 9.3: he and exactly one other player remain. One resolution can also leave
        # him alone (the last mafioso and the last other player removed together);
        # then the seed's end rule, the killers outnumbering everyone else, holds.
        reason = (
            "the Rival Mafioso and one other player remain"
            if len(active) == 2
            else "the Rival Mafioso alone remains"
        )
        finish(game, RIVAL_CAMP, reason, (rival,))


def activate(game: Game, rival: int) -> None:
    """The Rival Mafioso takes over (5.1): solo camp; the mafia's allies join the town."""
    ps = of(game)
    ps.activated = True
    ps.count("rival_activation")
    seats = game.state.seats
    seats[rival].faction = RIVAL_CAMP
    game.emit(RoleChange(rival, RIVAL, RIVAL_CAMP), private(rival))
    for seat in seats:
        if seat.faction == MAFIA_CAMP and seat.role not in MAFIA_TEAM:
            seat.faction = GOOD_CAMP
            game.emit(RoleChange(seat.seat, seat.role, GOOD_CAMP), private(seat.seat))


def finish(game: Game, camp: str, reason: str, winners: tuple[int, ...] | None = None) -> None:
    """End the game: every role and every card still held is shown (3.5)."""
    ps = of(game)
    if winners is None:
        winners = tuple(s.seat for s in game.state.seats if s.faction == camp)
    end_game(game, camp, reason, winners)
    game.emit(CardsShown(dict(sorted(ps.cards.items()))), PUBLIC)
