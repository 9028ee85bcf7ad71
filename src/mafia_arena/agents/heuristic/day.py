"""Day decisions: votes, final votes, nominations, the last dead's choice.

Town votes for its most suspicious candidate, today's trusted accusations breaking
near-ties and the public focal order breaking exact ones, so like-minded players land
on the same name without talking. The mafia read the table instead (the public
assessment) and vote the town's favourite when it is not one of them — blending in and
pushing a scapegoat — and bus a teammate only when the table has already condemned him.
"""

from __future__ import annotations

from mafia_arena.agents.heuristic.context import Context
from mafia_arena.agents.heuristic.suspicion import HARD
from mafia_arena.engine.choices import PASS, Choice

BUS_CHANCE = 0.5


def doomed(ctx: Context, seat: int) -> bool:
    """The table has all but decided to execute `seat`."""
    pressure = ctx.pressure.get(seat, 0.0)
    return ctx.public.sus[seat] >= 3.0 or pressure >= len(ctx.k.living()) / 2


def mafia_pick(ctx: Context, targets: list[int], salt: str) -> int | None:
    """The town's favourite if it is not a teammate (or a lost cause); else a scapegoat."""
    outsiders = [t for t in targets if t not in ctx.team]
    if not outsiders:
        return max(targets, key=lambda s: (ctx.vote_score(s), -s), default=None)
    favourite = ctx.best(targets, ctx.vote_score, salt)
    if favourite in ctx.team and doomed(ctx, favourite) and ctx.rng.random() < BUS_CHANCE:
        return favourite
    return ctx.best(outsiders, ctx.vote_score, salt)


def vote(ctx: Context) -> Choice:
    """A ``vote`` / ``final_vote`` (or any unknown seat-picking request): never abstain."""
    targets = ctx.targets
    if not targets:
        return ctx.fallback()
    salt = f"vote:{ctx.request.kind}"
    town = ctx.town
    seat = ctx.best(targets, ctx.vote_score, salt) if town else mafia_pick(ctx, targets, salt)
    return ctx.choice_for(seat)


def nominate(ctx: Context) -> Choice:
    """Classic nominations: up to `places` picks, one per request; pass to stop.

    Town names its top suspects but never a seat it knows is town, and stops after
    the first name when the rest look trustworthy; the mafia name outsiders only.
    """
    round_no = int(str(ctx.request.info.get("round", 1)))
    named = ctx.memory.nominated_by(ctx.me, ctx.day, round_no)
    salt = f"nominate:{round_no}:{len(named)}"
    if ctx.town:
        sus = ctx.mine.sus
        pool = [t for t in ctx.targets if sus[t] > -HARD / 2]
        seat = ctx.best(pool, ctx.vote_score, salt)
        if seat is None or (named and ctx.vote_score(seat) < -1.0):
            return PASS
        return ctx.choice_for(seat)
    pool = [t for t in ctx.targets if t not in ctx.team]
    seat = ctx.best(pool, ctx.vote_score, salt)
    return PASS if seat is None else ctx.choice_for(seat)


def last_dead(ctx: Context) -> Choice:
    """The last dead decides a tie: town takes the more suspicious, mafia spare their own."""
    targets = ctx.targets
    if ctx.town:
        return ctx.choice_for(ctx.best(targets, lambda s: ctx.mine.sus[s], "last_dead"))
    return ctx.choice_for(mafia_pick(ctx, targets, "last_dead"))
