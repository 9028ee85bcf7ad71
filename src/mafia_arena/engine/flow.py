"""The phase machine: setup, then nights and days as the variant schedules them.

Night r is followed by day r. With ``first_phase = "day"`` the game opens with day 1
and night r follows day r. After every death the win rules are checked; past the
variant's maximum number of rounds the game ends in a draw, so every game terminates;
a variant may also call a draw after `rules.stalemate_cycles` cycles without a death.
"""

from __future__ import annotations

from mafia_arena.engine.catalogue import (
    Allies,
    Narration,
    NoDeath,
    PhaseStart,
    RoleDealt,
    Setup,
    Silenced,
)
from mafia_arena.engine.day_close import end_of_day, last_words
from mafia_arena.engine.deaths import die
from mafia_arena.engine.discussion import ROUND_ROBIN, discussion, first_speaker_today
from mafia_arena.engine.events import PUBLIC, private
from mafia_arena.engine.game import Flow, Game, seat_name
from mafia_arena.engine.night import night
from mafia_arena.engine.voting import PROCEDURES
from mafia_arena.engine.win import check_win, end_game
from mafia_arena.rules.composition import deck_counts
from mafia_arena.rules.params import DiscussionParams, IntroductionsParams
from mafia_arena.rules.spec import DayStep, Variant


def play(game: Game) -> Flow:
    if game.variant.palermo is not None:  # the forum-clock rules (engine.palermo)
        from mafia_arena.engine.palermo.flow import play as play_palermo  # it imports this

        yield from play_palermo(game)
        return
    setup(game)
    first_day = game.variant.rules.first_phase == "day"
    number = 1
    while True:
        if number > game.max_rounds:
            end_game(game, "draw", "maximum length reached")
            return
        deaths_before = len(game.state.death_order)
        if not first_day:
            yield from night(game, number)
        yield from day(game, number)
        if game.over or stalemate(game, number, deaths_before):
            return
        if first_day:
            yield from night(game, number + 1)
            morning_deaths(game)
            if game.over:
                return
        number += 1


def stalemate(game: Game, number: int, deaths_before: int) -> bool:
    """Draw after `rules.stalemate_cycles` consecutive cycles without a death (club D31).

    A cycle is a night and its day; a night without actions (club's night 1) does not
    start one. Returns True if the game ended.
    """
    limit = game.variant.rules.stalemate_cycles
    if limit is None or (number == 1 and not game.variant.rules.first_night_actions):
        return False
    state = game.state
    state.quiet_cycles = state.quiet_cycles + 1 if len(state.death_order) == deaths_before else 0
    if state.quiet_cycles < limit:
        return False
    end_game(game, "draw", f"{limit} cycles without a death")
    return True


def setup(game: Game) -> None:
    """Public composition; each seat privately learns its role and whom it knows."""
    state = game.state
    counts = deck_counts(game.variant, game.players)
    game.emit(Setup(game.variant.name, game.players, counts), PUBLIC)
    notice = below_recommended(game.variant, game.players)
    if notice:
        game.emit(Narration("setup", notice), PUBLIC)
    for seat in state.seats:
        game.emit(RoleDealt(seat.seat, seat.role, seat.faction), private(seat.seat))
    for seat in state.seats:
        known = game.variant.roles[seat.role].knows_roles
        if not known:
            continue
        allies = {s.seat: s.role for s in state.seats if s.role in known and s.seat != seat.seat}
        game.emit(Allies(seat.seat, allies), private(seat.seat))


def below_recommended(variant: Variant, players: int) -> str:
    """The notice for a game below the variant's recommended size, or "" (classic OP-C1:
    the game is played, and everyone is told). The command line prints it too."""
    recommended = variant.rules.recommended_min_players
    if recommended is None or players >= recommended:
        return ""
    return f"{players} players is below the recommended minimum of {recommended} players."


def morning_deaths(game: Game) -> None:
    """Announce last night's deaths (or that nobody died) and check the win rules."""
    state = game.state
    night_state = state.night
    state.phase = "day"
    if night_state is None:
        return
    state.silenced_today = set(night_state.silenced) - set(night_state.deaths) - state.disqualified
    state.defended_today = set(night_state.defended)
    game.emit(PhaseStart("day", state.day), PUBLIC)
    if night_state.deaths:
        die(game, night_state.deaths, "night")
    elif night_state.number > 1 or game.variant.rules.first_night_actions:
        game.emit(NoDeath(game.variant.rules.no_death_announcement), PUBLIC)
    if state.silenced_today:
        game.emit(Silenced(tuple(sorted(state.silenced_today))), PUBLIC)
    state.night = None
    check_win(game)


def day(game: Game, number: int) -> Flow:
    """Day `number`: the morning (unless already held), then the variant's day steps.

    Every day is opened exactly once. After a night this is `morning_deaths`; a game
    that opens by day (``first_phase = "day"``) holds each morning right after its night
    in `play`, to check the win before the next round, so a later day finds itself
    opened already and must not announce itself a second time.
    """
    state = game.state
    state.day = number
    if state.night is not None:
        morning_deaths(game)
    elif state.phase != "day":  # day 1 of a game that opens by day: no morning
        state.phase = "day"
        game.emit(PhaseStart("day", number), PUBLIC)
    if game.over:
        return
    first_speaker_today(game)
    state.accused_today = set()
    for step in game.variant.day:
        yield from day_step(game, step)
        if game.over:
            return
    state.silenced_today = set()
    state.defended_today = set()


def day_step(game: Game, step: DayStep) -> Flow:
    if step.type == "announce":
        return
    if step.type == "discussion":
        protocol = step.params if isinstance(step.params, DiscussionParams) else ROUND_ROBIN
        yield from discussion(game, step.rounds, protocol=protocol)
    elif step.type == "introductions":
        if game.state.day == 1:
            theme = step.params.theme if isinstance(step.params, IntroductionsParams) else ""
            if theme:  # the host sets the theme (club 3.2 step 2)
                text = f"Day 1: introduce yourselves. The theme: {theme}."
                game.emit(Narration("introduction_theme", text), PUBLIC)
            yield from discussion(game, 1, "introductions", topic=theme)
    elif step.type == "vote":
        yield from PROCEDURES[step.procedure](game, step.params)
        if step.win_check:
            check_win(game)
    elif step.type == "last_words":
        yield from last_words(game)
    elif step.type == "end_day":
        end_of_day(game)


def describe_seat(seat: int) -> str:
    return seat_name(seat)
