"""The night and NOON (3.3, 5.6–5.10): submissions, the block, the results, the kill.

Night actions are submitted as moves of NIGHT-EARLY and NIGHT-LATE (the last valid
submission stands): the Prostitute's block (NIGHT-EARLY only), the Detective's and the
Medium's investigations, the mafia's assassination (target plus designated assassin;
the Archmafioso's choice overrides), the activated Rival Mafioso's kill, and snitch
declarations and their withdrawal (`snitch`). At the end of NIGHT-LATE the block applies and the
investigations are answered privately; NOON resolves the snitch, then the kill.
"""

from __future__ import annotations

from mafia_arena.engine.catalogue import Narration, NightResult
from mafia_arena.engine.choices import Choice, shared_choice
from mafia_arena.engine.events import PUBLIC, private
from mafia_arena.engine.game import Game, seat_name
from mafia_arena.engine.palermo import snitch
from mafia_arena.engine.palermo.changes import (
    change,
    hold_announcements,
    release_announcements,
)
from mafia_arena.engine.palermo.roles import (
    ARCHMAFIOSO,
    DETECTIVE,
    MAFIA_TEAM,
    MEDIUM,
    PROSTITUTE,
    RIVAL,
    formal_team,
)
from mafia_arena.engine.palermo.state import Assassination, of
from mafia_arena.engine.player_states import Capability, PlayerState

NIGHT_PHASES = ("night_early", "night_late")
VERBS = frozenset({"block", "investigate", "assassinate", "snitch", "withdraw_snitch"})


def start_night(game: Game) -> None:
    """Clear last night's submissions; announce whether the vendetta is accepted (8.4)."""
    ps = of(game)
    ps.block = None
    ps.investigations = {}
    ps.assassination = None
    ps.declarations = {}
    # public facts only (`snitch.vendetta_window`); settled for the whole night (8.4)
    ps.vendetta_tonight = snitch.vendetta_window(game)
    text = (
        "The vendetta snitch is accepted tonight."
        if ps.vendetta_tonight
        else "The vendetta snitch is not accepted tonight."
    )
    game.emit(Narration("vendetta", text), PUBLIC)


def mafia_active(game: Game) -> list[int]:
    ps = of(game)
    return [s for s in ps.states.active() if game.state.seats[s].role in MAFIA_TEAM]


def options(game: Game, seat: int, phase: str) -> list[tuple[Choice, str]]:
    """The night-action moves `seat` may make in `phase` (empty outside the night)."""
    ps = of(game)
    if phase not in NIGHT_PHASES or not ps.states.can(seat, Capability.ABILITIES):
        return []
    role = game.state.seats[seat].role
    states = ps.states
    out: list[tuple[Choice, str]] = []
    if role == PROSTITUTE and phase == "night_early":
        for t in states.active():
            if t != seat and ps.block != t:
                out.append((shared_choice("block", t), f"block {seat_name(t)}"))
    elif role == DETECTIVE:
        for t in states.seats_that(Capability.DETECTIVE_TARGET):
            if t != seat and ps.investigations.get(seat) != t:
                out.append((shared_choice("investigate", t), f"investigate {seat_name(t)}"))
    elif role == MEDIUM:
        for t in states.seats_that(Capability.MEDIUM_TARGET):
            if t != seat and ps.investigations.get(seat) != t:
                out.append((shared_choice("investigate", t), f"investigate {seat_name(t)}"))
    if role in MAFIA_TEAM and not ps.activated:
        out.extend(_assassination_options(game, seat))
        out.extend(snitch.options(game, seat))
    elif role == RIVAL and ps.activated:
        current = ps.assassination
        for t in states.seats_that(Capability.ASSASSINABLE):
            if t != seat and (current is None or current.target != t):
                out.append(
                    (shared_choice("assassinate", t, str(seat)), f"assassinate {seat_name(t)}")
                )
    return out


def _assassination_options(game: Game, seat: int) -> list[tuple[Choice, str]]:
    ps = of(game)
    seats = game.state.seats
    current = ps.assassination
    if (
        current is not None
        and seats[current.by].role == ARCHMAFIOSO
        and seats[seat].role != ARCHMAFIOSO
        and ps.states.is_active(current.by)
    ):
        return []  # the Active Archmafioso's choice stands (5.5); once he is not, it is open
    assassins = [a for a in mafia_active(game) if a not in ps.declarations]
    offers = _assassination_offers(game)
    standing = (current.target, current.assassin) if current is not None else None
    return [
        offers[t][a]
        for t in ps.states.seats_that(Capability.ASSASSINABLE)
        if seats[t].role not in MAFIA_TEAM
        for a in assassins
        if (t, a) != standing
    ]


def _assassination_offers(game: Game) -> list[list[tuple[Choice, str]]]:
    """Target → assassin → the mafia's choice and its label, built once per game (every
    mafioso is offered targets x assassins at every night move)."""
    found: list[list[tuple[Choice, str]]] | None = game.derived.get("palermo_kills")
    if found is None:
        found = [
            [
                (
                    shared_choice("assassinate", t, str(a)),
                    f"assassinate {seat_name(t)} (assassin {seat_name(a)})",
                )
                for a in range(game.players)
            ]
            for t in range(game.players)
        ]
        game.derived["palermo_kills"] = found
    return found


def submit(game: Game, seat: int, choice: Choice) -> None:
    """Record one night submission (already checked against `options`)."""
    ps = of(game)
    if choice.verb == "withdraw_snitch":
        snitch.withdraw(game, seat)
        return
    assert choice.target is not None
    if choice.verb == "block":
        ps.block = choice.target
        ps.count("prostitute_block")
    elif choice.verb == "investigate":
        ps.investigations[seat] = choice.target
    elif choice.verb == "assassinate":
        ps.assassination = Assassination(choice.target, int(choice.value or seat), seat)
        if not ps.activated:
            team = mafia_active(game)
            text = (
                f"{seat_name(seat)} sets the assassination: {seat_name(choice.target)}, "
                f"by {seat_name(ps.assassination.assassin)}."
            )
            game.emit(Narration("assassination", text), private(*team, channel="mafia"))
    elif choice.verb == "snitch":
        snitch.declare(game, seat, choice)


def end_of_night(game: Game) -> None:
    """End of NIGHT-LATE: the block applies, then the investigations are answered."""
    ps = of(game)
    seats = game.state.seats
    prostitute = next((s.seat for s in seats if s.role == PROSTITUTE), None)
    if ps.block is not None and (prostitute is None or not ps.states.is_active(prostitute)):
        ps.block = None  # an imprisoned or departed Prostitute blocks nobody (6.5)
    for investigator, target in sorted(ps.investigations.items()):
        if not ps.states.is_active(investigator):
            continue
        role = seats[investigator].role
        wanted = Capability.DETECTIVE_TARGET if role == DETECTIVE else Capability.MEDIUM_TARGET
        ps.count(f"{role}_investigation")
        if ps.block == investigator or not ps.states.can(target, wanted):
            result = "no result"
        else:
            result = formal_team(game.variant, seats[target].role)
        game.emit(NightResult("investigate", (target,), result, role), private(investigator))


def noon(game: Game) -> None:
    """NOON (3.3 step 5): the snitch, then the assassination (5.6, 5.1), then one
    announcement of everyone who left, in an order that tells no cause
    (`changes.hold_announcements`)."""
    hold_announcements(game)
    _resolve_noon(game)
    release_announcements(game)


def _resolve_noon(game: Game) -> None:
    """The snitch, then the assassination by the designated assassin, or by a mafioso
    drawn from the Active ones not snitching tonight when he is not Active; a block on
    the designated assassin cancels it (5.6, OP-38)."""
    ps = of(game)
    snitchers = snitch.resolve(game)
    ps.todays_victim = None
    current = ps.assassination
    ps.assassination = None
    if current is None:
        return
    seats = game.state.seats
    states = ps.states
    if not states.is_active(current.target):
        return
    assassin = current.assassin
    if ps.activated:
        if seats[assassin].role != RIVAL or not states.is_active(assassin):
            return
    elif not states.is_active(assassin) or assassin in snitchers:
        others = [a for a in mafia_active(game) if a not in snitchers]
        if not others:
            return
        assassin = game.draw("assassin", others)
    if ps.block == current.assassin:
        return  # a block on the designated assassin cancels the kill, replaced or not (OP-38)
    ps.count("rival_assassination" if ps.activated else "assassination")
    target = current.target
    change(game, target, PlayerState.GHOST, "assassination")
    ps.todays_victim = target
    if seats[target].role == RIVAL and not ps.activated:
        ps.count("rival_takes_killer")
        change(game, assassin, PlayerState.GHOST, "rival_killer")
