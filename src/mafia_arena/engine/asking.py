"""Helpers that build requests and wait for their answers inside the rules generator."""

from __future__ import annotations

from collections.abc import Iterable

from mafia_arena.engine.choices import PASS, Choice, Decision, Request
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
    choices: list[Choice] = [PASS] if allow_pass else []
    labels: list[str] = [pass_label] if allow_pass else []
    for target in targets:
        choices.append(Choice("target", target))
        labels.append(seat_name(target))
    return Request(seat, kind, prompt, tuple(choices), tuple(labels), default,
                   info=info or {})


def ask(game: Game, requests: dict[int, Request]) -> Flow:
    """Yield requests (all at once: simultaneous) and return the answers by seat."""
    if not requests:
        return {}
    answers = yield requests
    return answers


def ask_one(game: Game, request: Request) -> Flow:
    """Yield one request and return its decision."""
    answers = yield {request.seat: request}
    return answers[request.seat]


def picked_seat(decision: Decision) -> int | None:
    """The seat a target choice names, or None for pass / speech."""
    if isinstance(decision, Choice) and decision.target is not None:
        return decision.target
    return None
