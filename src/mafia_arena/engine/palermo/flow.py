"""The phases of a Palermo round, in order (3.2), from the setup to the end.

Round n is Night n-1 (none in round 1) then Day n: NIGHT-EARLY, NIGHT-LATE (then the
block and the investigation results), DEAD TIME, MORNING, NOON, AFTERNOON, VOTE
CLOSE, CHANGE WINDOW, VOTE-END ACTIONS, RESOLUTION (with RUNOFF and LAST WORDS).
"""

from __future__ import annotations

from mafia_arena.engine.catalogue import CardDealt, NoExecution, PhaseStart
from mafia_arena.engine.events import PUBLIC, private
from mafia_arena.engine.flow import setup as deal_roles
from mafia_arena.engine.game import Flow, Game
from mafia_arena.engine.palermo import night, vote
from mafia_arena.engine.palermo.checks import end_of_timed_phase, state_check
from mafia_arena.engine.palermo.deal import deal_cards
from mafia_arena.engine.palermo.moves import timed_phase
from mafia_arena.engine.palermo.state import KEY, PalermoState, of
from mafia_arena.engine.player_states import StateBook
from mafia_arena.engine.win import end_game


def setup(game: Game) -> None:
    """Roles and who knows whom (2.4, the generic setup), then the cards (2.3)."""
    spec = game.variant.palermo
    assert spec is not None
    deal_roles(game)
    n = game.players
    ps = PalermoState(
        StateBook.all_active(n),
        absences_total=[0] * n,
        absences_consecutive=[0] * n,
        starting_players=n,
    )
    game.derived[KEY] = ps
    forced = game.derived.pop("palermo_cards", None)
    ps.cards = dict(forced) if forced is not None else deal_cards(game, spec)
    for seat, card in sorted(ps.cards.items()):
        game.emit(CardDealt(seat, card), private(seat))


def play(game: Game) -> Flow:
    setup(game)
    spec = game.variant.palermo
    assert spec is not None
    for number in range(1, spec.max_rounds + 1):
        yield from round_(game, number)
        if game.over:
            return
    end_game(game, "draw", "maximum length reached")


def round_(game: Game, number: int) -> Flow:
    ps = of(game)
    ps.round = game.state.day = number
    ps.voting_open = True
    if number > 1:
        # the clock moves first, so the announcement (and every seat's fold) is dated in
        # the phase it opens, not in the last one of the day before
        ps.phase = game.state.phase = "night_early"
        game.emit(PhaseStart("night", number - 1), PUBLIC)
        night.start_night(game)
        yield from timed_phase(game, "night_early")
        if game.over:
            return
        yield from timed_phase(game, "night_late")
        if game.over:
            return
        night.end_of_night(game)
        end_of_timed_phase(game)
        if game.over:
            return
        if (yield from _closed_phase(game, "dead_time")):
            return
    ps.phase = game.state.phase = "morning"
    game.emit(PhaseStart("day", number), PUBLIC)
    if (yield from _closed_phase(game, "morning")):
        return
    ps.phase = game.state.phase = "noon"
    if number > 1:
        night.noon(game)
        state_check(game)
        if game.over:
            return
    if (yield from _closed_phase(game, "afternoon")):
        return
    # VOTE CLOSE
    ps.phase = game.state.phase = "vote_close"
    ps.todays_victim = None
    if ps.imprisonment_standing:
        game.emit(NoExecution("an Immediate Imprisonment stands: nobody leaves by vote this round"))
    else:
        ps.obliged = set(ps.states.active())
        yield from vote.change_window(game)
        end_of_timed_phase(game)
        if game.over:
            return
        ps.voting_open = False
        powers = yield from vote.vote_end_actions(game)
        yield from vote.resolution(game, powers or {})
    ps.voting_open = False
    end_round(game)


def end_round(game: Game) -> None:
    """Round-long effects end with the round's vote."""
    ps = of(game)
    ps.ballots = {}
    ps.extra_vote = {}
    ps.extra_unlocked = set()
    ps.cancelled = set()
    ps.exempt = set()
    ps.imprisonment_standing = False
    ps.obliged = set()
    ps.took_part = set()
    ps.echo = ps.states.echo = False
    ps.todays_victim = None


def _closed_phase(game: Game, phase: str) -> Flow:
    """Run a timed phase and then its end-of-phase checks; the value says whether the
    game ended in either (so the round stops there)."""
    yield from timed_phase(game, phase)
    if not game.over:
        end_of_timed_phase(game)
    return game.over
