"""Drive games by plan in scenario tests: who is dealt what, and who targets whom when.

A plan maps (request kind, day) to the seat everyone asked that kind of decision should
pick; anything unplanned gets a neutral answer (pass where allowed, else the first legal
choice); a pass the request does not offer (where abstaining is forbidden) is submitted
as the seat's timeout, the only way the engine takes it. Tests then assert on the events
the rules produced.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from mafia_arena.engine import PASS, Choice, Decision, Game, Request
from mafia_arena.rules import load_variant

Plan = Mapping[tuple[str, int], int | Callable[[Game, int, Request], Choice | None]]


def dealt(variant: str, roles: list[str], seed: int = 0, **overrides: object) -> Game:
    """A game with a forced deal (seat i gets roles[i])."""
    return Game(load_variant(variant, overrides), len(roles), seed, deal=roles)


def neutral(request: Request) -> Choice:
    if PASS in request.choices or request.default == "pass":
        return PASS
    return request.choices[0]


def planned(game: Game, seat: int, request: Request, plan: Plan) -> Choice:
    entry = plan.get((request.kind, game.state.day))
    if callable(entry):
        choice = entry(game, seat, request)
        return choice if choice is not None else neutral(request)
    if entry is not None and Choice("target", entry) in request.choices:
        return Choice("target", entry)
    if request.kind in ("final_vote", "vote") and entry is not None:
        # voting for yourself is impossible: vote the other candidate
        return request.choices[0]
    return neutral(request)


def nominate(request: Request, order: list[int]) -> Choice:
    """The first of `order` the request still offers, else pass (a plan's nominations)."""
    for target in order:
        if Choice("target", target) in request.choices:
            return Choice("target", target)
    return PASS


def answer(game: Game, seat: int, request: Request, decision: Decision) -> None:
    """Submit `decision` for `seat`; a pass `request` does not offer (where abstaining is
    forbidden) goes in as the seat's timeout, the only way the engine takes it."""
    if decision == PASS and not request.offers(PASS):
        game.submit(seat, PASS, fallback="timeout")
    else:
        game.submit(seat, decision)


def run(game: Game, plan: Plan, until: Callable[[Game], bool] | None = None) -> Game:
    """Answer requests by `plan` until the game ends or `until(game)` holds."""
    while not game.over and not (until and until(game)):
        for seat, request in sorted(game.pending().items()):
            answer(game, seat, request, planned(game, seat, request, plan))
    return game


def events(game: Game, kind: str) -> list[dict]:
    return [e.fact.to_payload() for e in game.events if e.kind == kind]  # the stored form


def deaths(game: Game) -> list[tuple[int, str]]:
    return [(p["seat"], p["cause"]) for p in events(game, "death")]
