"""Every player-state change of a Palermo game, with its announcement and its reveal.

One function, `change`, moves a seat (checked against `engine.player_states`), keeps
the generic `GameState` in step (``alive`` means Active, so every generic reader sees
the Active players), clears what a player loses on leaving the Active state (their
ballot, 4.3), announces the move publicly as the rules say (3.5: a snitch's exit is
announced as an assassination, and only a permanent exit reveals), flags a removal for
absences with the next-game ban (7.2), and converts a
returning mafioso after the Rival Mafioso's activation (5.1). While NOON resolves, the
changes' events are held and told together in an order that tells no cause
(`hold_announcements`).
"""

from __future__ import annotations

from mafia_arena.engine.catalogue import (
    CardDealt,
    Fact,
    GameMasterNotice,
    RoleChange,
    StateChanged,
    Trigger,
)
from mafia_arena.engine.events import HOST, PUBLIC, Visibility, private
from mafia_arena.engine.game import Game, seat_name
from mafia_arena.engine.palermo.roles import CITIZEN, GOOD_CAMP, MAFIA_TEAM, RIVAL, title
from mafia_arena.engine.palermo.state import of
from mafia_arena.engine.player_states import PlayerState, reveals

ANNOUNCED = {"rival_killer": "assassination", "snitch": "assassination"}
"""Causes announced as another (3.5, 8.1): the table only learns of assassinations."""

_TEXT = {
    "assassination": "{p} was assassinated.",
    "vote": "{p} leaves by the vote.",
    "imprisonment": "{p} is imprisoned.",
    "sanction": "{p} is imprisoned by the moderator.",
    "sanction_lifted": "The moderator releases {p}: {p} is back in the game.",
    "imprisonment_final": "{p}'s imprisonment is final: {p} is a ghost.",
    "cancel_imprisonment": "{p} is released and back in the game.",
    "resurrection": "{p} has returned to the game.",
    "failed_assassination": "{p} survived the assassination.",
    "grave_robbing": "Grave Robbing: {p} was {role}. {p} leaves the game permanently.",
    "absences": "{p} is removed for absences: {role}.",
    "penalty": "{p} is removed by the moderator: {role}.",
    "out": "{p} was assassinated and leaves the game permanently.",
}

CONVERTED = (
    "You are now a Simple Citizen: the Rival Mafioso has taken over the assassinations, "
    "so a mafioso who returns plays on with the good camp."
)
"""The private message of a mafioso who returns after the activation (5.1, T26)."""


def change(game: Game, seat: int, to: PlayerState, cause: str) -> None:
    """Move `seat` to `to` for `cause`, with everything that goes with it."""
    ps = of(game)
    before = ps.states.move(seat, to, cause)
    seat_state = game.state.seats[seat]
    seat_state.alive = to is PlayerState.ACTIVE
    game.state._living = None
    if to is PlayerState.ACTIVE and ps.phase == "change_window":
        ps.obliged.discard(seat)  # back during the window: may vote, not obliged (7.1)
    if before is PlayerState.ACTIVE:
        ps.ballots.pop(seat, None)
        ps.extra_vote.pop(seat, None)
        for voter, target in ps.extra_vote.items():
            if target == seat:
                ps.extra_unlocked.add(voter)
    announced = ANNOUNCED.get(cause, cause)
    role = card = None
    activated = None
    if reveals(to, cause):
        role = seat_state.role
        card = ps.cards.get(seat)
        if role == RIVAL:
            activated = ps.activated
    lost = ps.cards.pop(seat, None) if to is PlayerState.OUT else None
    template = _TEXT["out" if cause == "snitch" and to is PlayerState.OUT else announced]
    shown = title(role) if role else ""
    if card:
        shown += f"; held {game.variant.palermo.cards[card].title}"  # type: ignore[union-attr]
    if activated:
        shown += "; had activated"
    text = template.format(p=seat_name(seat), role=shown)
    banned = None
    if cause == "absences" and to is PlayerState.OUT:
        banned = True  # barred from the next game (7.2): a platform flag, public
        game.state.banned.append(seat)
    told: list[tuple[Fact, Visibility]] = [
        (StateChanged(seat, to.value, announced, text, role, card, activated, banned), PUBLIC)
    ]
    if announced != cause:
        told.append((Trigger(cause, seat), HOST))
    if lost is not None:
        told.append((CardDealt(seat, ""), private(seat)))
    if to is PlayerState.ACTIVE and ps.activated and seat_state.role in MAFIA_TEAM:
        seat_state.role, seat_state.faction = CITIZEN, GOOD_CAMP
        told.append((RoleChange(seat, CITIZEN, GOOD_CAMP), private(seat)))
        told.append((GameMasterNotice(seat, "role_change", CONVERTED), private(seat)))
    _tell(game, seat, to, told)


def _tell(game: Game, seat: int, to: PlayerState, told: list[tuple[Fact, Visibility]]) -> None:
    """Emit one change's events now, or hold them while NOON's are held (`hold_announcements`)."""
    held = of(game).held_announcements
    if held is None:
        for fact, visibility in told:
            game.emit(fact, visibility)
    else:
        held.append((_GHOSTS if to is not PlayerState.OUT else _EXITS, seat, told))


_EXITS, _GHOSTS, _AFTER = 0, 1, 2
"""Where a held entry is told: permanent exits, then the other changes (ghosts), then
what follows the announcement (`tell_after_announcements`)."""


def tell_after_announcements(game: Game, fact: Fact, visibility: Visibility) -> None:
    """Emit `fact` now, or, while NOON's announcements are held, right after them (the
    snitchers' private result: told before them it would sit inside the announcement
    in their streams, and the snitch's exits would have to be told apart from the
    assassination's)."""
    held = of(game).held_announcements
    if held is None:
        game.emit(fact, visibility)
    else:
        held.append((_AFTER, len(held), [(fact, visibility)]))


def hold_announcements(game: Game) -> None:
    """Hold every state change's events until `release_announcements`.

    NOON resolves the snitch, then the assassination, and announces who left at once
    (3.3 step 5(c)) with no roles and no causes (3.5, 8.1: players must work out the
    victims' roles). Told in the order they happen, the list would give the causes away:
    the vendetta's first permanent exit would be the Rival Mafioso and its second the
    mafioso who snitched, a snitch's ghost would come before the assassination's, the
    Rival Mafioso before the assassin who dies with him. Held, they are told in an order
    that depends on nothing but who left and how: permanent exits first, then ghosts,
    each in seat order."""
    of(game).held_announcements = []


def release_announcements(game: Game) -> None:
    """Tell the held changes as one announcement, permanent exits first and then the
    rest, each in seat order, then what follows it (`tell_after_announcements`), and
    stop holding. All at once, not the snitch's first: released apart, a snitch's exits
    listed before the assassination's would show which exit came from which wherever
    the seat order breaks between them."""
    ps = of(game)
    held = ps.held_announcements
    if held is None:
        return
    for _, _, told in sorted(held, key=lambda h: (h[0], h[1])):
        for fact, visibility in told:
            game.emit(fact, visibility)
    ps.held_announcements = None
