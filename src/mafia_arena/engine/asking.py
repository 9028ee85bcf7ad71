"""Helpers that build requests and wait for their answers inside the rules generator."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from mafia_arena.engine.choices import PASS, Choice, Decision, Request, shared_choice
from mafia_arena.engine.game import Flow, Game, seat_name


def target_request(
    game: Game,
    seat: int,
    kind: str,
    prompt: str,
    targets: Iterable[int],
    *,
    allow_pass: bool = False,
    pass_label: str = "pass",
    default: str = "pass",
    info: dict[str, object] | None = None,
) -> Request:
    """A request to pick one seat among `targets` (and optionally to pass)."""
    choices, labels = target_options(tuple(targets), pass_label if allow_pass else None)
    return Request(seat, kind, prompt, choices, labels, default, info=info or {})


@lru_cache(maxsize=8192)
def target_options(
    targets: tuple[int, ...], pass_label: str | None
) -> tuple[tuple[Choice, ...], tuple[str, ...]]:
    """The choices and labels for picking one of `targets` (first `pass_label`, if any).

    Cached: every vote and nomination offers the same few target lists (the living
    minus the voter) again and again; choices are shared and the tuples immutable.
    """
    choices = tuple(shared_choice("target", t) for t in targets)
    labels = tuple(seat_name(t) for t in targets)
    if pass_label is None:
        return choices, labels
    return (PASS, *choices), (pass_label, *labels)


def screen(game: Game, requests: dict[int, Request]) -> dict[int, Request]:
    """`requests` without the disqualified: none to them, none offering them as a choice.

    The one place where a removal reaches every later prompt (`Game.disqualify` applies
    the same `Request.screened` to the prompt that is waiting), so the procedures need
    not know about it. A game without a disqualification pays one attribute test.
    """
    removed = game.state.disqualified
    if not removed:
        return requests
    screened = {}
    for seat, request in requests.items():
        kept = request.screened(removed)
        if kept is not None:
            screened[seat] = kept
    return screened


def ask(game: Game, requests: dict[int, Request]) -> Flow:
    """Yield requests (all at once: simultaneous) and return the answers by seat.

    A seat that was disqualified, before or while the others decide, is absent from the
    answers, and so is a seat left with nothing to choose; callers read what is there.
    """
    requests = screen(game, requests)
    if not requests:
        return {}
    answers = yield requests
    return answers


def ask_one(game: Game, request: Request) -> Flow:
    """Yield one request and return its decision, or None if the seat was disqualified
    (or left with nothing to choose): every caller must accept None."""
    if game.state.disqualified:
        screened = request.screened(game.state.disqualified)
        if screened is None:
            return None
        request = screened
    answers = yield {request.seat: request}
    return answers.get(request.seat)


def picked_seat(decision: Decision | None) -> int | None:
    """The seat a target choice names, or None for pass / speech / no answer."""
    if isinstance(decision, Choice) and decision.target is not None:
        return decision.target
    return None
