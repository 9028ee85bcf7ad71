"""The communication window: the forum's turn structure for one phase.

A forum has no speaking order: players write when they like. Thread posts are
published when the window closes, by seat, so the moment of a public post tells
nobody how many private forms its author handed in first. The engine models a
phase as up to `rules.forum.ticks` rounds in which every living seat that has not yet
declared itself done is asked at once for one decision (request kind ``forum``): a
thread post, a private message, an ad, a pseudonym transfer, a testament, or one of
its role's forms; ``pass`` declares it done for the phase. The answers of a round are
applied in seat order once all are in. Why this shape: scripted, LLM, RL and human
seats all get the same chances in each phase, and nothing a seat is shown depends on
how many decisions the others made: a seat is asked as long as *it* goes on, rounds
carry no number, and the only traces of others' private activity are the messages
addressed to the seat itself.

A decision is either an offered `Choice` (a form with the channel's standard text) or
`Speech(text, act)` whose act names the form and whose text is its content (a message,
an ad, a testament, a death message). Written forms are checked by `check` before
anything changes; a form that the same round made impossible (its target died in an
attack a moment before) is refused with a private `form_refused`.
"""

from __future__ import annotations

from collections.abc import Callable

from mafia_arena.engine.asking import ask
from mafia_arena.engine.catalogue import FormNoted, FormRefused
from mafia_arena.engine.choices import PASS, Choice, Decision, Request, Speech, shared_choice
from mafia_arena.engine.events import private
from mafia_arena.engine.forum import channels, forms
from mafia_arena.engine.forum.state import Form, forms_of, forum
from mafia_arena.engine.game import Flow, Game, seat_name

KIND = "forum"
MAX_TEXT = 2000
DEATH_MESSAGE = "{victim} was found at dawn in the harbour, a black rose in the hand."
"""The death message of a murder chosen without one written (an offered choice)."""
Immediate = Callable[[Game, int, Form], None]
"""A form that takes effect at once (the terrorist's attack, a transfer of authority)."""


def channel_choices(game: Game, seat: int) -> list[Choice]:
    """The channel forms with standard texts that every living seat is offered."""
    rules = game.variant.rules.forum
    out = [shared_choice("post")]
    if rules.private_messages:
        out += [shared_choice("pm", t) for t in game.state.living_seats() if t != seat]
    if rules.newspaper:
        out.append(shared_choice("ad", None, "new"))
    if rules.testaments and not channels.refusal(game, seat, "testament", None, "public"):
        out.append(shared_choice("testament", None, "public"))
    return out


def channel_label(choice: Choice) -> str:
    if choice.verb == "post":
        return "post in the thread"
    if choice.verb == "pm" and choice.target is not None:
        return f"private message to {seat_name(choice.target)}"
    if choice.verb == "ad":
        return "place an ad under a new pseudonym"
    return "write a public testament"


def request(game: Game, seat: int, prompt: str) -> Request:
    """The seat's forum request now (see the module doc)."""
    role_forms = forms.offered(game, seat)
    choices = (PASS, *channel_choices(game, seat), *role_forms)
    labels = (
        "done for this phase",
        *(channel_label(c) for c in choices[1 : len(choices) - len(role_forms)]),
        *(forms.label(c) for c in role_forms),
    )
    state = forum(game)
    owned = sorted(state.spelled[k] for k, o in state.owners.items() if o == seat)
    info: dict[str, object] = {"phase": game.state.phase, "round": game.state.day}
    if owned:
        info["pseudonyms"] = owned
    return Request(seat, KIND, prompt, choices, labels, "pass", True, MAX_TEXT, info)


def refusal(game: Game, seat: int, act: Choice | None) -> str:
    """Why the written form `act` (None: a thread post) is refused now ("" if not)."""
    if act is None:
        return ""
    found = channels.refusal(game, seat, act.verb, act.target, act.value)
    if found is not None:
        return found
    if act.verb == "pass":
        return ""
    if act.verb not in forms.ROLE_VERBS:
        return f"unknown form {act.verb!r}"
    if not any(c == act for c in forms.offered(game, seat)):
        return f"{forms.label(act)!r} is not open to you now"
    return ""


def check(game: Game) -> Callable[[Request, Speech], str]:
    def checked(request: Request, decision: Speech) -> str:
        return refusal(game, request.seat, decision.act)

    return checked


def apply(game: Game, seat: int, decision: Decision, immediate: Immediate) -> bool:
    """Apply one answer; returns True when the seat declared itself done."""
    if isinstance(decision, Speech):
        act, text = decision.act, decision.text
    else:
        act, text = decision, ""
        if act.verb == "murder" and act.target is not None:
            text = DEATH_MESSAGE.format(victim=seat_name(act.target))
    if act is None:
        act = shared_choice("post")
    if act.verb == "pass":
        return True
    why = refusal(game, seat, act)
    if why:
        game.emit(FormRefused(act.verb, why), private(seat))
        return False
    if act.verb in channels.CHANNEL_VERBS:
        channels.apply(game, seat, act.verb, act.target, act.value, text)
        return False
    if act.verb == "withdraw":  # offered only while that form stands (`refusal`)
        del forms_of(game, seat)[str(act.value)]
        game.emit(FormNoted("withdraw", forms.label(act)), private(seat))
        return False
    form = Form(act.verb, act.target, act.value, text)
    if act.verb in forms.IMMEDIATE:
        immediate(game, seat, form)
        return False
    forms_of(game, seat)[act.verb] = form
    game.emit(FormNoted(act.verb, forms.label(act) + (f": {text}" if text else "")), private(seat))
    return False


def window(game: Game, prompt: str, immediate: Immediate) -> Flow:
    """Run the phase's communication window (see the module doc)."""
    game.form_checks[KIND] = check(game)
    done: set[int] = set()
    for _ in range(game.variant.rules.forum.ticks):
        active = [s for s in game.state.living_seats() if s not in done]
        if not active:
            break
        answers = yield from ask(game, {s: request(game, s, prompt) for s in active})
        for seat in sorted(answers):
            if not game.state.alive(seat):
                continue
            if apply(game, seat, answers[seat], immediate):
                done.add(seat)
            if game.over:
                break
        if game.over:
            return  # the game ended mid-window (an attack): the log closes with its end
    game.window_ends.append((len(game.events), tuple(game.state.living_seats())))
    channels.publish_thread(game)
