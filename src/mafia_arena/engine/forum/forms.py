"""The typed forms a seat may hand the game master now (dictator.md 3.4, 7.3).

A form is a `Choice`: its verb is the form's subject line (``execute``, ``revolution``,
``murder``, ``query`` …), its target the named player, its value a second player (the
matchmaker's pair). Who may send which form when, and on whom, follows from the
variant's night steps (actors, first night, even or odd nights, target rules, no
repeats) and from the office and the kill authority. `offered` lists them; a form not
offered now is refused.
"""

from __future__ import annotations

from collections.abc import Iterator

from mafia_arena.engine.choices import Choice, shared_choice
from mafia_arena.engine.forum.state import forum
from mafia_arena.engine.forum.status import informed, knows_status, trait
from mafia_arena.engine.game import Game, seat_name
from mafia_arena.engine.night import runs_tonight
from mafia_arena.rules.spec import NightStep, Variant

ROLE_VERBS = frozenset(
    {
        "withdraw",
        "ballot",
        "revolution",
        "execute",
        "attack",
        "successor",
        "transfer",
        "murder",
        "point",
        "copy_status",
        "protect",
        "mark",
        "passport",
        "query",
        "compare",
    }
)
LABELS = {
    "ballot": "vote {t} for dictator",
    "revolution": "Revolution: {t} for dictator",
    "execute": "order the execution of {t}",
    "attack": "blow yourself up and take {t} with you",
    "successor": "name {t} your successor",
    "transfer": "hand the kill authority to {t}",
    "murder": "murder {t}",
    "point": "point at {t}",
    "copy_status": "take the status of {t}",
    "protect": "protect {t}",
    "mark": "mark {t}",
    "passport": "plant a forged passport on {t}",
    "query": "query {t}",
    "compare": "compare {t}",
}


IMMEDIATE = frozenset({"attack", "transfer", "successor"})
"""The forms that take effect the moment they are handed in (the attack, a transfer of
the kill authority, the naming of a successor): never standing, so never withdrawn. Every
other form verb of `ROLE_VERBS` but ``withdraw`` is in `WITHDRAWABLE`."""

WITHDRAWABLE = {
    "ballot": "ballot for dictator",
    "revolution": "Revolution PN",
    "execute": "execution order",
    "murder": "murder order",
    "point": "pointing",
    "copy_status": "status copy",
    "protect": "protection",
    "mark": "mark",
    "passport": "forged passport",
    "query": "query",
    "compare": "comparison",
}
"""The forms a seat may take back before the phase's deadline (dictator.md 3.1: "may be
revised or withdrawn until the phase deadline"), with the words a withdrawal names them
by: every form verb but ``withdraw`` and those in `IMMEDIATE`. This order (the day's
forms, then the night forms, ``murder`` first) is the order of the action table's
``withdraw`` section (`every_form`); it is not the order of the table's form sections,
whose night forms follow the variant's night steps. Changing it would change action
ids."""


def withdrawals(game: Game, seat: int) -> list[Choice]:
    """A `withdraw` choice (value: the form's verb) for each form `seat` has standing in
    this phase. Only the seat's own forms decide what it is offered."""
    standing = forum(game).forms.get(seat, {})
    return [shared_choice("withdraw", None, verb) for verb in WITHDRAWABLE if verb in standing]


def label(choice: Choice) -> str:
    if choice.verb == "withdraw":
        return f"withdraw your {WITHDRAWABLE.get(str(choice.value), str(choice.value))}"
    who = seat_name(choice.target) if choice.target is not None else ""
    if choice.verb == "compare" and choice.value is not None:
        who = f"{who} and {seat_name(int(choice.value))}"
    return LABELS.get(choice.verb, choice.verb).format(t=who)


def actor_of(game: Game, seat: int, step: NightStep) -> bool:
    """May `seat` act in `step` tonight? The dictator's own role is suspended (4.10);
    a question mark acts only once he knows his copy; the murder is the authority's."""
    state = forum(game)
    if seat == state.dictator or not knows_status(game, seat):
        return False
    if step.action == "murder":
        return seat == state.authority
    return game.state.role(seat) in step.actors


def step_forms(game: Game, seat: int, step: NightStep) -> Iterator[Choice]:
    night = game.state.day
    living = game.state.living_seats()
    others = [t for t in living if t != seat or step.target.self_]
    if step.action == "compare":
        pool = [t for t in living if t != seat]
        for i, a in enumerate(pool):
            for b in pool[i + 1 :]:
                yield shared_choice("compare", a, str(b))
        return
    if step.limits.no_repeat:
        last = forum(game).protected_last.get(seat)
        if last is not None and last[0] == night - 1:
            others = [t for t in others if t != last[1]]
    for t in others:
        yield shared_choice(step.action, t)


def offered(game: Game, seat: int) -> list[Choice]:
    """The role and office forms `seat` may hand in now, in a fixed order."""
    state = forum(game)
    gs = game.state
    if not gs.alive(seat):
        return []
    living = gs.living_seats()
    out: list[Choice] = []
    if gs.phase == "night":
        if gs.day == 0:
            out += [shared_choice("ballot", t) for t in living]
        elif state.dictator is None:
            out += [shared_choice("revolution", t) for t in living]
        elif seat != state.dictator:
            out += [shared_choice("revolution", t) for t in living if t != state.dictator]
        for step in game.variant.night:
            if runs_tonight(step, gs.day) and (gs.day > 0 or step.from_night == 0):
                if step.action == "murder" and gs.day == 0:
                    continue
                if actor_of(game, seat, step):
                    out += list(step_forms(game, seat, step))
    else:
        if seat == state.dictator:
            out += [shared_choice("execute", t) for t in living if t != seat]
        if (
            trait(game, seat, "suicide_attack")
            and seat != state.dictator
            and knows_status(game, seat)
        ):
            out += [shared_choice("attack", t) for t in living if t != seat]
    if seat == state.authority:
        named = state.comrades.get(seat, set())
        heirs = [
            t
            for t in living
            if t != seat and t != state.dictator and t in named and informed(game, t)
        ]
        out += [shared_choice("successor", t) for t in heirs]
        out += [shared_choice("transfer", t) for t in heirs]
    return out + withdrawals(game, seat)


def runs_now(game: Game, step: NightStep) -> bool:
    """Does night step `step` take forms in the current night?"""
    gs = game.state
    return (
        gs.phase == "night" and runs_tonight(step, gs.day) and (gs.day > 0 or step.from_night == 0)
    )


def every_form(variant: Variant, players: int) -> list[tuple[str, list[Choice]]]:
    """Every form and channel choice a forum game of `variant` can offer at `players`
    seats, by verb, in a fixed order (the PettingZoo action table's forum sections)."""
    seats = range(players)
    forum_rules = variant.rules.forum
    out: list[tuple[str, list[Choice]]] = [("post", [shared_choice("post")])]
    if forum_rules.private_messages:
        out.append(("pm", [shared_choice("pm", t) for t in seats]))
    if forum_rules.newspaper:
        out.append(("ad", [shared_choice("ad", None, "new")]))
    if forum_rules.testaments:
        out.append(("testament", [shared_choice("testament", None, "public")]))
    verbs = ["ballot", "revolution", "execute", "attack", "successor", "transfer"]
    verbs += [step.action for step in variant.night if step.action != "compare"]
    for verb in dict.fromkeys(verbs):
        out.append((verb, [shared_choice(verb, t) for t in seats]))
    if any(step.action == "compare" for step in variant.night):
        pairs = [shared_choice("compare", a, str(b)) for a in seats for b in seats if a < b]
        out.append(("compare", pairs))
    present = {verb for verb, _ in out}
    taken_back = [shared_choice("withdraw", None, v) for v in WITHDRAWABLE if v in present]
    out.append(("withdraw", taken_back))
    return out
