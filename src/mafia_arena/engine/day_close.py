"""The close of a day: cards and last words after the vote, the day's triggers, win check.

In club Mafia the dead show their cards and speak only after the day's vote (club.md
3.2 step 5, D23), and the psychopath's activation comes before the day's win check
(D32). Variants schedule these as the day steps ``last_words`` and ``end_day``.
"""

from __future__ import annotations

from mafia_arena.engine.asking import ask_one
from mafia_arena.engine.deaths import reveal
from mafia_arena.engine.discussion import say, speak_request
from mafia_arena.engine.game import Flow, Game
from mafia_arena.engine.win import check_win


def last_word(game: Game, seat: int) -> Flow:
    """A dead player's one last speech, unless the current role forbids it.

    A role with the ``no_last_word`` trait (club's commissar, D22) stays silent so that
    his checks die with him; the role held at death counts, not the card.
    """
    if game.variant.roles[game.state.role(seat)].traits.get("no_last_word"):
        return
    request = speak_request(game, seat, "last_word", f"Day {game.state.day}: your last word.")
    decision = yield from ask_one(game, request)
    if decision is not None:
        say(game, seat, decision, "last_word")


def last_words(game: Game) -> Flow:
    """Turn up every hidden card of a dead player, in seat order, each with a last word.

    Run after the vote: by then the executed player has already been revealed, so this
    covers exactly the night's victims.
    """
    for seat in game.state.seats:
        if not seat.alive and not seat.flags.get("revealed"):
            reveal(game, seat.seat)
            yield from last_word(game, seat.seat)


def end_of_day(game: Game) -> None:
    """The day's own triggers (activation when accused), then the win check."""
    for hook in game.hooks.day_end:
        hook(game)
    check_win(game)
