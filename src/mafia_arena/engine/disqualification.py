"""Disqualification: the host removes a player between two decisions (club 3.6, D34).

The removal is immediate: a public `disqualified` announcement, then the player's death
with cause ``disqualification`` and the card turned up at once (D23), with no last word.
The death runs the ordinary death triggers (`game.hooks.death`) with that cause, which makes
it a day-type death as D34 asks: succession and conversion ignore the cause and apply;
inheritance fires only for the causes a role lists (club's deputy: night deaths only);
retaliation is a dawn hook and never sees this death. A win check follows.

`Game.disqualify` validates and records the host's decision, calls `remove`, and then
fits the waiting prompt to the smaller table; `Request.screened` and `engine.asking`
keep the removed seat out of every later prompt.
"""

from __future__ import annotations

from mafia_arena.engine.catalogue import Disqualified
from mafia_arena.engine.deaths import die
from mafia_arena.engine.events import PUBLIC
from mafia_arena.engine.game import Game, seat_name
from mafia_arena.engine.win import check_win

CAUSE = "disqualification"
"""The `death` event's cause, and the cause the death triggers receive."""


def remove(game: Game, seat: int, reason: str) -> None:
    """Announce, kill and reveal `seat`, run the triggers, then check the win rules.

    The caller has checked that the seat is alive, the game is running and the variant
    allows disqualification; the game may be over when this returns.
    """
    game.state.disqualified.add(seat)
    text = f"{seat_name(seat)} is disqualified" + (f": {reason}" if reason else "") + "."
    game.emit(Disqualified(seat, reason, text), PUBLIC)
    die(game, [seat], CAUSE, reveal=True)
    check_win(game)
