"""The moderator's penalty exit (4.4): the one host command of a Palermo game.

The seed lets the moderator remove a player who discloses a role (directly or not) or
who misbehaves; an expulsion is treated the same way. The player leaves permanently and
the role is revealed, with any card still held (3.5), and gets no last words (7.8). The
host gives it through `Game.disqualify`, which records it in the log like a decision
(so a replay applies it again at the same point) and fits the waiting prompt to the
smaller table; this module is the rule's side: the announcement, the exit and the state
check that follows (the exit can activate the Rival Mafioso or end the game).
"""

from __future__ import annotations

from mafia_arena.engine.catalogue import Disqualified
from mafia_arena.engine.events import PUBLIC
from mafia_arena.engine.game import Game, seat_name
from mafia_arena.engine.palermo.changes import change
from mafia_arena.engine.palermo.checks import state_check
from mafia_arena.engine.palermo.state import of
from mafia_arena.engine.player_states import PlayerState

CAUSE = "penalty"
"""The state change's cause (Active → permanently out, revealed: 4.3)."""


def penalty(game: Game, seat: int, reason: str) -> None:
    """Remove the Active `seat` permanently, revealed; then a state check.

    The caller (`Game.disqualify`) has checked that the game runs and the seat is
    Active; the game may be over when this returns.
    """
    game.state.disqualified.add(seat)  # never asked again, even while a prompt waits
    of(game).count("moderator_penalty")
    text = f"The moderator removes {seat_name(seat)} from the game" + (
        f": {reason}." if reason else "."
    )
    game.emit(Disqualified(seat, reason, text), PUBLIC)
    change(game, seat, PlayerState.OUT, CAUSE)
    state_check(game)
