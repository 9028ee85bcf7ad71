"""The dictator forum game's phase machine (docs/rules/dictator.md, spec rules/dictator.md).

Night 0 (the election, the question mark's copy, the boss's pointing) → Day 1 → Night
1 → …. Each phase is one communication window (`engine.forum.window`) in which seats
hand in their forms, then the phase's resolution in the spec's exact order: end of
night R0–R11 (3.5), end of day E1–E7 (3.6); the terrorist's attack resolves at once,
mid-day (3.7). Announcements reveal exactly what 3.8 and 4.13 allow: no vote counts, no
ballots, no status of a deposed or disqualified player, disguises and forged passports.
"""

from __future__ import annotations

from collections import Counter

from mafia_arena.engine.catalogue import (
    Allies,
    Death,
    Disqualified,
    GameMasterNotice,
    Narration,
    NoDeath,
    NoExecution,
    Office,
    PhaseStart,
    RoleChange,
    RoleDealt,
    Setup,
    StatusMessage,
    StatusShown,
    SuicideAttack,
    Trigger,
)
from mafia_arena.engine.events import HOST, PUBLIC, private
from mafia_arena.engine.forum import channels
from mafia_arena.engine.forum.state import Form, draw, forum
from mafia_arena.engine.forum.status import (
    apparent_mafia,
    has_dark_past,
    informed,
    shown_status,
    standard_status,
    status_lines,
    trait,
    true_status,
)
from mafia_arena.engine.forum.window import window
from mafia_arena.engine.game import Flow, Game, seat_name
from mafia_arena.engine.win import end_game
from mafia_arena.rules.composition import deck_counts

CANONICAL_PLAYERS = 18


# ------------------------------------------------------------------ the phases
def play_forum(game: Game) -> Flow:
    """The whole game (see the module doc)."""
    setup(game)
    state = game.state
    state.day, state.phase = 0, "night"
    game.emit(PhaseStart("night", 0), PUBLIC)
    yield from phase_window(game, "Night 0: elect the dictator; talk, write ads and testaments.")
    end_of_night_zero(game)
    number = 1
    while not game.over:
        if number > game.max_rounds:
            end_game(game, "draw", "maximum length reached")
            return
        yield from phase_window(game, f"Day {number}: talk; the dictator orders the execution.")
        if game.over:
            return
        end_of_day(game, number)
        if game.over:
            return
        state.phase = "night"
        game.emit(PhaseStart("night", number), PUBLIC)
        yield from phase_window(game, f"Night {number}: night forms, revolution PNs, talk.")
        end_of_night(game, number)
        number += 1


def phase_window(game: Game, prompt: str) -> Flow:
    state = forum(game)
    state.forms = {}
    state.posted = set()
    yield from window(game, prompt, immediate)


def setup(game: Game) -> None:
    """The deal, the status messages in their exact wording (2.3), who knows whom (2.4)."""
    variant, state = game.variant, game.state
    game.emit(Setup(variant.name, game.players, deck_counts(variant, game.players)), PUBLIC)
    if game.players != CANONICAL_PLAYERS:
        text = f"{game.players} players: a non-canonical game (the original has 18, OP-D31)."
        game.emit(Narration("setup", text), PUBLIC)
    copiers = {r for step in variant.night if step.action == "copy_status" for r in step.actors}
    for seat in state.seats:
        spec = variant.roles[seat.role]
        if spec.typed_traits.dark_past:
            seat.flags["dark_past"] = True
        if seat.role in copiers:
            seat.flags["question_mark"] = True
        if spec.typed_traits.kill_authority and forum(game).authority is None:
            forum(game).authority = seat.seat
    for seat in state.seats:
        told = variant.roles[seat.role].told_as or seat.role
        party = seat.faction if variant.roles[told].party_line else None  # OP-D14
        game.emit(RoleDealt(seat.seat, told, party), private(seat.seat))
        lines = status_lines(game, seat.seat, seat.role, seat.faction)
        game.emit(StatusMessage(seat.seat, lines), private(seat.seat))
        tell_comrades(game, seat.seat)


def tell_comrades(game: Game, seat: int) -> None:
    if not informed(game, seat):
        return
    role = game.state.role(seat)
    known = set(game.variant.roles[role].knows_roles) | {role}
    allies = {
        s.seat: s.role
        for s in game.state.seats
        if s.seat != seat and s.role in known and informed(game, s.seat)
    }
    if allies:
        game.emit(Allies(seat, allies), private(seat))
        forum(game).comrades.setdefault(seat, set()).update(allies)


# ------------------------------------------------------------------ leaving the game
def leave(game: Game, seat: int) -> None:
    """Take `seat` out of the game now: rights, pending forms, pseudonyms (8.4, 7.4.6)."""
    state, gs = forum(game), game.state
    gs.mark_dead(seat)
    gs.death_order.append(seat)
    state.forms.pop(seat, None)
    channels.retire(game, seat)
    if state.dictator == seat:
        state.dictator = None


def announce(game: Game, seat: int, cause: str, manner: str | None = None) -> None:
    """The public death line and the status 4.13 lets the table see (if any)."""
    game.emit(Death(seat, cause, manner), PUBLIC)
    status = shown_status(game, seat, cause)
    if status is not None:
        game.emit(StatusShown(seat, status), PUBLIC)


def notify(game: Game, seat: int, topic: str, text: str, *, later: bool = False) -> None:
    """A private game-master message now, or with the next morning's deliveries."""
    if later:
        forum(game).notices.append((seat, topic, text))
    else:
        game.emit(GameMasterNotice(seat, topic, text), private(seat, channel="gm"))


def pass_authority(game: Game, *, later: bool = False) -> None:
    """Move the kill authority if its holder left the game or took office (4.6):
    to the designated successor if eligible, else to a random informed member."""
    state = forum(game)
    holder = state.authority
    if holder is not None and game.state.alive(holder) and holder != state.dictator:
        return
    heirs = [
        s
        for s in game.state.living_seats()
        if s != holder and s != state.dictator and informed(game, s)
    ]
    if not heirs:
        state.authority = None
        return
    heir = state.successor if state.successor in heirs else draw(game, "authority", heirs)
    state.authority = heir
    state.successor = None
    notify(game, heir, "authority", "You now hold the kill authority.", later=later)


def disqualify(game: Game, seat: int) -> None:
    """Three warnings (8.5.6): the name only; no status, no testament, pseudonyms secret."""
    forum(game).testaments.pop(seat, None)
    leave(game, seat)
    game.state.disqualified.add(seat)
    text = f"{seat_name(seat)} has been disqualified."
    game.emit(Disqualified(seat, "inactivity", text), PUBLIC)
    game.emit(Death(seat, "disqualification"), PUBLIC)


def warn(game: Game, seat: int, *, later: bool) -> bool:
    """One more inactivity warning; True when it is the last one."""
    state = forum(game)
    limit = game.variant.rules.forum.inactivity_warnings
    count = state.warnings[seat] = state.warnings.get(seat, 0) + 1
    notify(game, seat, "warning", f"Inactivity warning {count} of {limit}.", later=later)
    return limit is not None and count >= limit


# ------------------------------------------------------------------ immediate forms
def immediate(game: Game, seat: int, form: Form) -> None:
    """Forms that act at once: the attack (3.7), an authority transfer or successor."""
    state = forum(game)
    assert form.target is not None
    if form.verb == "successor":
        state.successor = form.target
        notify(game, seat, "authority", f"{seat_name(form.target)} is your successor.")
    elif form.verb == "transfer":
        state.authority = form.target
        if state.successor == form.target:
            state.successor = None
        notify(
            game, seat, "authority", f"You handed the kill authority to {seat_name(form.target)}."
        )
        notify(game, form.target, "authority", f"{seat_name(seat)} handed you the kill authority.")
        state.comrades.setdefault(form.target, set()).add(seat)
    else:
        attack(game, seat, form.target)


def attack(game: Game, attacker: int, victim: int) -> None:
    """The terrorist's suicide attack, resolved at once (3.7)."""
    state = forum(game)
    was_dictator = state.dictator == victim
    text = (
        f"{seat_name(attacker)} carried out a suicide attack and took {seat_name(victim)} with him."
    )
    game.emit(SuicideAttack(attacker, victim, text), PUBLIC)
    leave(game, attacker)
    leave(game, victim)
    announce(game, attacker, "attacker")
    announce(game, victim, "attack")
    channels.deliver_testament(game, attacker)
    channels.deliver_testament(game, victim)
    if was_dictator:
        game.emit(Office(None, "The office of dictator is vacant."), PUBLIC)
    elif state.dictator is not None:
        order = state.forms.get(state.dictator, {}).get("execute")
        if order is not None and order.target == victim:
            del state.forms[state.dictator]["execute"]
    pass_authority(game)
    check_win(game)


# ------------------------------------------------------------------ votes
def plurality(game: Game, purpose: str, names: list[int], pool: list[int]) -> int | None:
    """The most-named seat still in the game; ties by lot; None if no name counts."""
    counts = Counter(t for t in names if game.state.alive(t))
    if not counts:
        return draw(game, purpose, pool) if pool else None
    top = max(counts.values())
    tied = sorted(t for t, c in counts.items() if c == top)
    return tied[0] if len(tied) == 1 else draw(game, purpose, tied)


def named(
    game: Game,
    verb: str,
    voters: list[int] | None = None,
    forms: dict[int, dict[str, Form]] | None = None,
) -> list[int]:
    """The targets of this phase's `verb` forms, by the voters (default: all), read from
    `forms` (default: the forms of the seats still in the game)."""
    forms = forum(game).forms if forms is None else forms
    seats = sorted(forms) if voters is None else voters
    return [f.target for s in seats if (f := forms.get(s, {}).get(verb)) and f.target is not None]


def take_office(game: Game, seat: int | None, *, later: bool) -> None:
    forum(game).dictator = seat
    if seat is not None:
        pass_authority(game, later=later)


# ------------------------------------------------------------------ night 0
def end_of_night_zero(game: Game) -> None:
    """3.2: the copy (silent), the election, the pointing; Day 1's report."""
    state, gs = forum(game), game.state
    for seat in list(gs.living_seats()):
        if not gs.seats[seat].flags.get("question_mark"):
            continue
        form = state.forms.get(seat, {}).get("copy_status")
        others = [s for s in gs.living_seats() if s != seat]
        target = form.target if form and form.target is not None else draw(game, "copy", others)
        copy_status(game, seat, target)
    winner = plurality(game, "election", named(game, "ballot"), list(gs.living_seats()))
    record_pointing(game)
    gs.day, gs.phase = 1, "day"
    game.emit(PhaseStart("day", 1), PUBLIC)
    take_office(game, winner, later=False)
    if winner is not None:
        game.emit(Office(winner, f"{seat_name(winner)} is the dictator."), PUBLIC)
    channels.publish_edition(game, "Night 0")


def copy_status(game: Game, seat: int, target: int) -> None:
    s, t = game.state.seats[seat], game.state.seats[target]
    s.role, s.faction = t.role, t.faction
    s.flags["dark_past"] = has_dark_past(game, target) and t.role == t.card
    s.flags["learns_on_day"] = 2
    forum(game).copied[seat] = target
    game.emit(Trigger("copy", seat, t.role), HOST)


def record_pointing(game: Game, handed_in: dict[int, dict[str, Form]] | None = None) -> None:
    """Record the status each pointing names now (4.6), from `handed_in` (default: the
    forms of the seats still in the game)."""
    state = forum(game)
    for seat, forms in (state.forms if handed_in is None else handed_in).items():
        form = forms.get("point")
        if form is not None and form.target is not None:
            state.pointing[seat] = true_status(game, form.target)


# ------------------------------------------------------------------ the night
def end_of_night(game: Game, number: int) -> None:
    """The end-of-night resolution R0–R11 (3.5).

    R0 takes a copy of the forms handed in: night actions are simultaneous (3.1), so
    every form of a seat in the game when the resolution starts is resolved even if
    that seat is jailed or murdered in an earlier step (a murdered character
    assassin's mark, a murdered forger's passport, a murdered voter's revolution PN,
    an eliminated author's ad in the night's edition), while `leave` drops the seat's
    forms and ads from the live table at once.
    """
    state, gs = forum(game), game.state
    living = list(gs.living_seats())
    incumbent, killer = state.dictator, state.authority
    forms = {seat: dict(handed) for seat, handed in state.forms.items()}
    ads = list(state.ads)

    def form(seat: int | None, verb: str) -> Form | None:
        return None if seat is None else forms.get(seat, {}).get(verb)

    # R2 jail
    queries = [(s, f) for s in living if (f := form(s, "query"))]
    comparisons = [(s, f) for s in living if (f := form(s, "compare"))]
    jailed = [s for s, f in queries if incumbent is not None and f.target == incumbent]
    jailed += [
        s
        for s, f in comparisons
        if incumbent is not None and incumbent in (f.target, int(f.value or -1))
    ]
    for seat in jailed:
        leave(game, seat)
    # R3 murder
    murdered: int | None = None
    order = form(killer, "murder")
    protected = {f.target for s in living if (f := form(s, "protect"))}
    if (
        order is not None
        and order.target is not None
        and order.text.strip()
        and gs.alive(order.target)
        and order.target != incumbent
        and not trait(game, order.target, "night_immune")
        and order.target not in protected
    ):
        murdered = order.target
        dark = has_dark_past(game, murdered)
        leave(game, murdered)
        # R4 the dark past moves on, told to nobody
        if dark:
            heirs = [
                s
                for s in gs.living_seats()
                if s != incumbent
                and not game.variant.roles[gs.role(s)].title
                and not has_dark_past(game, s)
                and gs.faction(s) in game.variant.factions
                and game.variant.side(gs.faction(s)) == "town"
            ]
            if heirs:
                heir = draw(game, "dark_past", heirs)
                gs.seats[heir].flags["dark_past"] = True
                game.emit(Trigger("dark_past", heir), HOST)
    # R5 results, R6 what the terrorist learns
    marked = {f.target for s in living if (f := form(s, "mark"))}
    results: list[tuple[int, str]] = []
    tips: list[str] = []
    for seat, f in queries:
        assert f.target is not None
        tips.append(f"Detective queried: {seat_name(f.target)}")
        if seat in jailed:
            continue
        guilty = apparent_mafia(game, f.target, number, murdered) != (f.target in marked)
        results.append(
            (seat, f"{seat_name(f.target)} ist {'Mafioso' if guilty else 'kein Mafioso'}.")
        )
    for seat, f in comparisons:
        assert f.target is not None and f.value is not None
        a, b = f.target, int(f.value)
        tips.append(f"Matchmaker compared: {seat_name(a)} and {seat_name(b)}")
        if seat in jailed:
            continue
        same = apparent_mafia(game, a, number, murdered) == apparent_mafia(
            game, b, number, murdered
        )
        if a in marked or b in marked:
            same = not same
        verdict = "gehören zur gleichen Partei" if same else "gehören zu verschiedenen Parteien"
        results.append((seat, f"{seat_name(a)} und {seat_name(b)} {verdict}."))
    # R7 revolution, or the vacancy election
    deposed: int | None = None
    office_text = ""
    names = named(game, "revolution", living, forms)
    if incumbent is not None:
        if len(names) > len(living) / 2:
            deposed = incumbent
            leave(game, incumbent)
            successor = plurality(game, "revolution", names, [])
            take_office(game, successor, later=True)
            office_text = f"Dictator {seat_name(incumbent)} has been overthrown. " + (
                f"The new dictator is {seat_name(successor)}."
                if successor is not None
                else "The office is vacant."
            )
    else:
        elected = plurality(game, "election", names, list(gs.living_seats()))
        take_office(game, elected, later=True)
        if elected is not None:
            office_text = f"{seat_name(elected)} is the dictator."
    # R8 records
    for seat in living:
        if (f := form(seat, "passport")) and f.target is not None:
            state.passports[f.target] = number
        if (f := form(seat, "protect")) and f.target is not None:
            state.protected_last[seat] = (number, f.target)
    record_pointing(game, forms)
    pass_authority(game, later=True)
    # R9 night inactivity
    out: list[int] = []
    if game.variant.rules.forum.inactivity_warnings is not None:
        for seat in list(gs.living_seats()):
            silent = seat in state.inactive_day and seat not in state.posted
            if silent and warn(game, seat, later=True):
                out.append(seat)
        state.inactive_day = set()
    # R10 the morning report of Day n+1
    gs.day, gs.phase = number + 1, "day"
    game.emit(PhaseStart("day", number + 1), PUBLIC)
    for seat in jailed:
        game.emit(
            Narration("jail", f"{seat_name(seat)} was thrown into jail by the dictator."), PUBLIC
        )
        announce(game, seat, "jail")
    if murdered is not None and order is not None:
        announce(game, murdered, "murder", order.text)
    else:
        game.emit(NoDeath("Nobody was murdered tonight."), PUBLIC)
    if deposed is not None:
        game.emit(Death(deposed, "deposed"), PUBLIC)
    if office_text:
        game.emit(Office(state.dictator, office_text, deposed), PUBLIC)
    for seat in out:
        disqualify(game, seat)
    if out:
        pass_authority(game, later=True)  # a disqualified holder's heir (8.5.7)
    for seat in [
        *jailed,
        *([murdered] if murdered is not None else []),
        *([deposed] if deposed is not None else []),
    ]:
        channels.deliver_testament(game, seat)
    channels.publish_edition(game, f"Night {number}", ads)
    if state.dictator is None:
        game.emit(Office(None, "The office of dictator is vacant."), PUBLIC)
    # private deliveries (3.3)
    for seat, text in results:
        if gs.alive(seat):
            notify(game, seat, "result", text)
    for seat in gs.living_seats():
        if (
            trait(game, seat, "sees_investigations")
            and tips
            and gs.day >= gs.seats[seat].flags.get("learns_on_day", 0)
        ):
            notify(game, seat, "investigations", "; ".join(tips))
    if gs.day == 2:
        for seat, _ in state.copied.items():
            if gs.alive(seat):
                s = gs.seats[seat]
                game.emit(RoleChange(seat, s.role, s.faction), private(seat))
                game.emit(
                    StatusMessage(seat, status_lines(game, seat, s.role, s.faction)), private(seat)
                )
                tell_comrades(game, seat)
    for seat, topic, text in state.notices:
        if gs.alive(seat):
            notify(game, seat, topic, text)
    state.notices = []
    # R11
    check_win(game)


# ------------------------------------------------------------------ the day
def end_of_day(game: Game, number: int) -> None:
    """The end-of-day resolution E1–E7 (3.6)."""
    state, gs = forum(game), game.state
    dictator = state.dictator
    order = state.forms.get(dictator, {}).get("execute") if dictator is not None else None
    if order is not None and order.target is not None and gs.alive(order.target):
        executed = order.target
        leave(game, executed)
        announce(game, executed, "execution")
        channels.deliver_testament(game, executed)
        pass_authority(game)
    else:
        game.emit(NoExecution("Nobody was executed today."), PUBLIC)
    channels.publish_edition(game, f"Day {number}")
    if game.variant.rules.forum.inactivity_warnings is not None:
        out = []
        for seat in list(gs.living_seats()):
            if seat not in state.posted:
                state.inactive_day.add(seat)
                if warn(game, seat, later=False):
                    out.append(seat)
        for seat in out:
            was_dictator = state.dictator == seat
            disqualify(game, seat)
            if was_dictator:
                game.emit(Office(None, "The office of dictator is vacant."), PUBLIC)
        pass_authority(game)
    check_win(game)
    for seat, night in list(state.passports.items()):
        if night < number:
            del state.passports[seat]


# ------------------------------------------------------------------ winning
def outcome(game: Game) -> str | None:
    """Section 6: the citizens win with no mafia left; the mafia with no citizen left,
    or with a mafia dictator and no fewer members than the citizens (OP-D29); a draw
    when nobody is left (OP-D30). None: the game goes on."""
    gs, variant = game.state, game.variant
    town = [s for s in gs.living_seats() if variant.side(gs.faction(s)) == "town"]
    mafia = [s for s in gs.living_seats() if variant.side(gs.faction(s)) == "mafia"]
    if not town and not mafia:
        return "draw"
    if not mafia:
        return faction_of_side(game, "town")
    if not town:
        return faction_of_side(game, "mafia")
    dictator = forum(game).dictator
    if (
        dictator is not None
        and variant.side(gs.faction(dictator)) == "mafia"
        and len(town) <= len(mafia)
    ):
        return faction_of_side(game, "mafia")
    return None


def faction_of_side(game: Game, side: str) -> str:
    return next(name for name, spec in game.variant.factions.items() if spec.side == side)


def check_win(game: Game) -> bool:
    if game.over:
        return True
    result = outcome(game)
    if result is None:
        return False
    reasons = {"draw": "both parties are wiped out"}
    end_game(game, result, reasons.get(result, f"the {result} win"))
    return True


__all__ = ["play_forum", "standard_status"]
