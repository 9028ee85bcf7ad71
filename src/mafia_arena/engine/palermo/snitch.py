"""The snitches (8): simple, double (massacre) and vendetta, one snitch per game.

A snitcher declares at night through the mafia channel; a massacre is two halves by two
snitchers (one names the Informant, the other the Detective). Who may snitch (8.1):
the Archmafioso and Hidden Mafiosi always; a Known Mafioso only where the Active Hidden
Mafiosi not already snitching cannot fill the open slots. The snitch resolves at NOON
before the assassination; its exits are announced as assassinations and reveal nothing.
"""

from __future__ import annotations

from mafia_arena.engine.catalogue import Narration
from mafia_arena.engine.choices import Choice, shared_choice
from mafia_arena.engine.events import private
from mafia_arena.engine.game import Game, seat_name
from mafia_arena.engine.palermo.changes import change, tell_after_announcements
from mafia_arena.engine.palermo.roles import (
    DETECTIVE,
    HIDDEN,
    INFORMANT,
    KNOWN,
    MAFIA_TEAM,
    MEDIUM,
    RIVAL,
    formal_team,
)
from mafia_arena.engine.palermo.state import Declaration, of
from mafia_arena.engine.player_states import PlayerState

KINDS = ("simple", "massacre_informant", "massacre_detective", "vendetta")
NAMES = {
    "simple": "simple snitch (names the Informant)",
    "massacre_informant": "massacre, first half (names the Informant)",
    "massacre_detective": "massacre, second half (names the Detective)",
    "vendetta": "vendetta (names the Rival Mafioso)",
}


def night_number(game: Game) -> int:
    """Night n follows Vote n, so round r's night is Night r-1 (3.1)."""
    return of(game).round - 1


def vendetta_window(game: Game) -> bool:
    """Is tonight inside the vendetta window (8.4): Nights 1 to k by table size, or,
    above 24 players, a night starting with at least the share Active? This is what the
    public announcement says, so it reads only public facts: whether a snitch was
    already used (a void one is seen by nobody) or the Rival Mafioso activated (told to
    him alone) must not show in it; they bar a declaration (`vendetta_open`)."""
    ps = of(game)
    spec = game.variant.palermo
    assert spec is not None
    nights = spec.vendetta_nights(game.players)
    if nights is None:
        return len(ps.states.active()) >= spec.vendetta_above_share * ps.starting_players
    return 1 <= night_number(game) <= nights


def vendetta_open(game: Game) -> bool:
    """May a vendetta be declared tonight (8.4): the window announced at the night's
    start is open (`PalermoState.vendetta_tonight`: above 24 players the 50% rule is
    checked at the start of the Night, not again at each declaration), the game's one
    snitch is unused and the Rival Mafioso has not activated (no mafioso is left)?"""
    ps = of(game)
    return not ps.activated and ps.snitch_used is None and ps.vendetta_tonight


def _kinds_open(game: Game, seat: int) -> list[str]:
    """The declaration kinds `seat` may make now (type, exclusivity, priority)."""
    ps = of(game)
    seats = game.state.seats
    if ps.snitch_used is not None or ps.activated or seat in ps.declarations:
        return []
    if ps.assassination is not None and ps.assassination.assassin == seat:
        return []
    others = {d.kind for s, d in ps.declarations.items() if s != seat}
    if others & {"simple", "vendetta"}:
        return []
    hidden_free = [
        s
        for s in ps.states.active()
        if seats[s].role == HIDDEN and s not in ps.declarations and s != seat
    ]
    role = seats[seat].role
    out = []
    for kind in KINDS:
        if kind.startswith("massacre"):
            if kind in others or (
                others and not others <= {"massacre_informant", "massacre_detective"}
            ):
                continue
            slots = 2 - len(others)
        else:
            if others:
                continue
            if kind == "vendetta" and not vendetta_open(game):
                continue
            slots = 1
        if role in KNOWN and len(hidden_free) >= slots:
            continue
        out.append(kind)
    return out


WITHDRAW = shared_choice("withdraw_snitch")
"""The move that takes back the seat's own declaration (8.1: until the end of NIGHT-LATE)."""


def options(game: Game, seat: int) -> list[tuple[Choice, str]]:
    """The snitch moves `seat` may make tonight: a declaration, or withdrawing its own."""
    ps = of(game)
    own = ps.declarations.get(seat)
    if own is not None:
        return [(WITHDRAW, f"withdraw your {NAMES[own.kind]} on {seat_name(own.target)}")]
    kinds = _kinds_open(game, seat)
    if not kinds:
        return []
    named = {d.target for d in ps.declarations.values()}
    targets = [t for t in ps.states.active() if t != seat and t not in ps.declarations]
    offers = _offers(game)
    return [
        offers[kind][t]
        for kind in kinds
        for t in targets
        if not (kind.startswith("massacre") and t in named)
    ]


def _offers(game: Game) -> dict[str, list[tuple[Choice, str]]]:
    """Kind → seat → the declaration and its label, built once per game (every eligible
    mafioso is offered kinds x targets at every night move)."""
    found: dict[str, list[tuple[Choice, str]]] | None = game.derived.get("palermo_snitches")
    if found is None:
        found = {
            kind: [
                (shared_choice("snitch", t, kind), f"{NAMES[kind]}: {seat_name(t)}")
                for t in range(game.players)
            ]
            for kind in KINDS
        }
        game.derived["palermo_snitches"] = found
    return found


def declare(game: Game, seat: int, choice: Choice) -> None:
    ps = of(game)
    assert choice.target is not None and choice.value is not None
    ps.declarations[seat] = Declaration(choice.value, choice.target)
    team = [s for s in ps.states.active() if game.state.seats[s].role in MAFIA_TEAM]
    text = f"{seat_name(seat)} declares a {NAMES[choice.value]}: {seat_name(choice.target)}."
    game.emit(Narration("snitch", text), private(*team, channel="mafia"))


def withdraw(game: Game, seat: int) -> None:
    """Take back `seat`'s declaration (8.1), told to the mafia channel like the declaration.

    Only this half goes: the partner of a massacre half keeps theirs (another mafioso may
    still complete it; alone by the end of the night it is no snitch). The seat may
    declare again the same night; nothing counts as the game's one snitch until NOON.
    """
    ps = of(game)
    decl = ps.declarations.pop(seat)
    ps.count("snitch_withdrawal")
    team = [s for s in ps.states.active() if game.state.seats[s].role in MAFIA_TEAM]
    text = f"{seat_name(seat)} withdraws the {NAMES[decl.kind]}: {seat_name(decl.target)}."
    game.emit(Narration("snitch_withdrawn", text), private(*team, channel="mafia"))


def resolve(game: Game) -> set[int]:
    """Resolve last night's snitch at NOON; returns the snitchers (not assassins)."""
    ps = of(game)
    decls = ps.declarations
    ps.declarations = {}
    if not decls:
        return set()
    kinds = {d.kind for d in decls.values()}
    if kinds & {"massacre_informant", "massacre_detective"} and len(decls) < 2:
        return set()  # half a massacre is no snitch
    snitchers = set(decls)
    kind = "massacre" if len(decls) == 2 else next(iter(kinds))
    ps.snitch_used = kind
    ps.count(f"snitch_{kind}")
    states = ps.states
    if not all(states.is_active(s) for s in snitchers):
        return snitchers  # void, but it was the game's one snitch (8.1)
    seats = game.state.seats

    def hit(decl: Declaration, role: str) -> bool:
        return seats[decl.target].role == role and states.is_active(decl.target)

    def leave(seat: int, to: PlayerState) -> None:
        if states.is_active(seat):
            change(game, seat, to, "snitch")

    if kind == "simple":
        seat, decl = next(iter(decls.items()))
        if hit(decl, INFORMANT):
            leave(decl.target, PlayerState.GHOST)
        else:
            leave(seat, PlayerState.OUT)
    elif kind == "vendetta":
        seat, decl = next(iter(decls.items()))
        if hit(decl, RIVAL):
            leave(decl.target, PlayerState.OUT)
            leave(seat, PlayerState.OUT)
            pool = [
                s for s in states.active() if formal_team(game.variant, seats[s].role) != "mafia"
            ]
            if pool:
                leave(game.draw("vendetta", pool), PlayerState.OUT)
        else:
            leave(seat, PlayerState.OUT)
    else:
        by_kind = {d.kind: (s, d) for s, d in decls.items()}
        s1, d1 = by_kind["massacre_informant"]
        s2, d2 = by_kind["massacre_detective"]
        hit1, hit2 = hit(d1, INFORMANT), hit(d2, DETECTIVE)
        if hit1 and hit2:
            medium = next((s.seat for s in seats if s.role == MEDIUM), None)
            if medium is not None and states.is_active(medium):
                for seat in (d1.target, d2.target, medium):
                    leave(seat, PlayerState.OUT)
            else:
                leave(d1.target, PlayerState.GHOST)
                leave(d2.target, PlayerState.GHOST)
        else:
            for seat, decl, ok in ((s1, d1, hit1), (s2, d2, hit2)):
                if ok:
                    leave(decl.target, PlayerState.GHOST)
                else:
                    leave(seat, PlayerState.OUT)
    tell_after_announcements(
        game,
        Narration("snitch_result", f"The {kind} snitch is resolved."),
        private(*[s for s in snitchers], channel="mafia"),
    )
    return snitchers
