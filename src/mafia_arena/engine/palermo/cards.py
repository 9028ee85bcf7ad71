"""Intrigue cards (6): which plays are legal now, and what each play does.

A card is offered only to its holder, only in the phases its entry in the variant
file lists (3.4; ``vote`` is the vote block), and only with targets its rule allows
(the imprisoned are never a target; a card never targets its player unless it is a
self-effect card). Anything else is simply not offered, so an illegal play is refused
by `Game.submit` and the card kept. A play is used once; its effect is announced
publicly without naming the player (except the self-effect cards), Pythia's answer
privately, a Vote Cancellation at RESOLUTION. A state check follows every play.
"""

from __future__ import annotations

from collections.abc import Sequence

from mafia_arena.engine.catalogue import CardDealt, CardPlayed, OracleAnswer
from mafia_arena.engine.choices import Choice, shared_choice
from mafia_arena.engine.events import private
from mafia_arena.engine.game import Game, seat_name
from mafia_arena.engine.palermo import vote
from mafia_arena.engine.palermo.changes import change
from mafia_arena.engine.palermo.checks import state_check
from mafia_arena.engine.palermo.roles import is_formal_mafia, title
from mafia_arena.engine.palermo.state import of
from mafia_arena.engine.player_states import Capability, PlayerState


def options(game: Game, seat: int, phase: str) -> list[tuple[Choice, str]]:
    """The card plays `seat` may make in `phase` (3.4, 6.x)."""
    ps = of(game)
    card = ps.cards.get(seat)
    spec = game.variant.palermo
    if card is None or spec is None or phase not in spec.cards[card].phases:
        return []
    states = ps.states
    if card == "failed_assassination":
        if seat == ps.todays_victim and states.of(seat) is PlayerState.GHOST:
            return [(shared_choice(card), "play Failed Assassination: you survive")]
        return []
    if not states.is_active(seat):
        return []
    name = spec.cards[card].title

    def on(targets: Sequence[int], what: str = "") -> list[tuple[Choice, str]]:
        return [
            (shared_choice(card, t), f"{name}{what} on {seat_name(t)}")
            for t in targets
            if t != seat
        ]

    if card == "resurrection":
        return on(states.seats_that(Capability.RESURRECTABLE))
    if card == "grave_robbing":
        return on(states.seats_that(Capability.GRAVE_ROBBABLE))
    if card == "extra_vote":
        return on(vote.legal_targets(game, seat), " (two locked votes)")
    if card == "vote_cancellation":
        voters = [v for v in states.seats_that(Capability.VOTE) if v not in ps.cancelled]
        return on(voters, " (cancels the voter's votes)")
    if card == "immediate_imprisonment":
        return [] if ps.imprisonment_standing else on(states.seats_that(Capability.IMPRISONABLE))
    if card == "cancel_imprisonment":
        return on(sorted(ps.windows))
    if card == "echo":
        return [] if ps.echo else [(shared_choice(card), f"play {name}")]
    if card == "vote_exemption":
        return (
            []
            if seat in ps.exempt
            else [(shared_choice(card), f"play {name}: nobody may vote for you")]
        )
    if card == "pythia":
        offers = _pythia_offers(game, name)
        return [
            offer
            for t in states.seats_that(Capability.ORACLE_TARGET)
            if t != seat
            for offer in offers[t]
        ]
    return []


def _pythia_offers(game: Game, name: str) -> list[list[tuple[Choice, str]]]:
    """Seat → every Pythia question about it, with its label, built once per game.

    The questions are the formal team and each role of this game's setup (6.8); the
    dealt roles never change, and the holder is offered them at every move."""
    found: list[list[tuple[Choice, str]]] | None = game.derived.get("palermo_pythia")
    if found is None:
        questions = ["mafia", *sorted(set(s.card for s in game.state.seats))]
        found = [
            [
                (
                    shared_choice("pythia", t, q),
                    f"{name}: is {seat_name(t)} "
                    + ("formally a mafioso" if q == "mafia" else f"the {title(q)}")
                    + "?",
                )
                for q in questions
            ]
            for t in range(game.players)
        ]
        game.derived["palermo_pythia"] = found
    return found


def play(game: Game, seat: int, choice: Choice) -> None:
    """Apply one legal card play (checked against `options`), then a state check."""
    ps = of(game)
    card = ps.cards.pop(seat)
    ps.count(f"card_{card}")
    game.emit(CardDealt(seat, ""), private(seat))
    target = choice.target
    if card == "resurrection" and target is not None:
        game.emit(CardPlayed(card, f"Resurrection is played on {seat_name(target)}.", None, target))
        change(game, target, PlayerState.ACTIVE, "resurrection")
    elif card == "grave_robbing" and target is not None:
        game.emit(
            CardPlayed(card, f"Grave Robbing is played on {seat_name(target)}.", None, target)
        )
        if target == ps.todays_victim:
            ps.todays_victim = None  # out for good: nothing left to hide by being asked
        change(game, target, PlayerState.OUT, "grave_robbing")
    elif card == "extra_vote" and target is not None:
        ps.extra_vote[seat] = target
        ps.extra_unlocked.discard(seat)
        text = f"{seat_name(seat)} plays Extra Vote: two votes on {seat_name(target)}."
        game.emit(CardPlayed(card, text, seat, target))
        vote.cast(game, seat, target)
    elif card == "vote_cancellation" and target is not None:
        ps.cancelled.add(target)
        text = f"You cancel the votes of {seat_name(target)}; it is announced at the resolution."
        game.emit(CardPlayed(card, text, seat, target), private(seat))
    elif card == "immediate_imprisonment" and target is not None:
        ps.imprisonment_standing = True
        ps.imprisoned_round[target] = ps.round
        ps.windows[target] = 2
        game.emit(
            CardPlayed(
                card, f"Immediate Imprisonment: {seat_name(target)} is imprisoned.", None, target
            )
        )
        change(game, target, PlayerState.IMPRISONED, "imprisonment")
    elif card == "cancel_imprisonment" and target is not None:
        del ps.windows[target]
        if ps.imprisoned_round.pop(target, None) == ps.round and ps.voting_open:
            ps.imprisonment_standing = False
        game.emit(
            CardPlayed(card, f"The imprisonment of {seat_name(target)} is cancelled.", None, target)
        )
        change(game, target, PlayerState.ACTIVE, "cancel_imprisonment")
    elif card == "echo":
        ps.echo = ps.states.echo = True
        game.emit(CardPlayed(card, "Echo from Beyond is in effect: the ghosts may vote."))
    elif card == "vote_exemption":
        ps.exempt.add(seat)
        for voter, locked in ps.extra_vote.items():
            if locked == seat:
                ps.extra_unlocked.add(voter)
        game.emit(CardPlayed(card, f"{seat_name(seat)} is exempt from today's vote.", seat, seat))
    elif card == "pythia" and target is not None and choice.value is not None:
        role = game.state.seats[target].role
        question = choice.value
        answer = is_formal_mafia(game.variant, role) if question == "mafia" else role == question
        game.emit(OracleAnswer(seat, target, question, answer), private(seat))
    elif card == "failed_assassination":
        ps.todays_victim = None
        game.emit(CardPlayed(card, f"{seat_name(seat)} survived the assassination.", seat, seat))
        change(game, seat, PlayerState.ACTIVE, "failed_assassination")
    state_check(game)
