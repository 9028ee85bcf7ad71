"""Night targeting: one small strategy per action name, looked up from the request.

`request.info["action"]` names the primitive (kill, protect, check, ...). A strategy
returns a seat among the request's targets (or a full `Choice` where the action has
modes, as `check_or_kill`). Unknown actions get `hostile` for town (aim at the most
suspicious) and `threat` for the other sides, so a new role is playable at once; add a
better strategy with `register_night_strategy`. A strategy never passes while a legal
target exists. Group steps (a clan's kill, joint checks) converge on the previous
round's plurality, ties to the lowest seat's pick, which every member computes alike.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from mafia_arena.agents.heuristic.context import Context
from mafia_arena.engine.choices import Choice

Strategy = Callable[[Context], "int | Choice | None"]


def unknown(ctx: Context) -> list[int]:
    """Targets whose allegiance I do not know for sure."""
    a = ctx.mine
    return [t for t in ctx.targets if t not in a.guilty and t not in a.cleared] or ctx.targets


def hostile(ctx: Context) -> int | None:
    """Town: the most suspicious target (blocking, silencing or shooting it helps)."""
    if not ctx.town:
        return threat(ctx)
    return ctx.best(ctx.targets, lambda s: ctx.mine.sus[s], "hostile", slack=0.3)


def threat_scores(ctx: Context) -> dict[int, float]:
    """How much each non-teammate endangers my team (the mafia's view of the table)."""
    pub = ctx.public
    alive = ctx.k.alive
    scores: dict[int, float] = {}
    checkers = set(pub.credible_checkers(alive))
    protectors = set(pub.claimers(ctx.book.protector_roles, alive))
    rng = ctx.team_rng("threat")
    noise = {seat: rng.random() for seat in ctx.k.living()}  # same draws at every teammate
    for seat in ctx.living():
        if seat in ctx.team:
            continue
        score = noise[seat]
        score += 10.0 if seat in checkers else 0.0
        score += 6.0 if seat in protectors else 0.0
        score += 3.0 if pub.sus[seat] <= -2.0 else 0.0  # the town's trusted voices
        score -= 0.5 * max(0.0, pub.sus[seat])  # suspected town make good scapegoats
        for said in ctx.memory.said:
            if said.seat == seat and said.claim.target in ctx.team:
                score += 1.0 if said.claim.kind in ("accuse", "claim_result") else -0.5
        for ballot in ctx.memory.ballots:
            if ballot.votes.get(seat) in ctx.team:
                score += 0.7
        scores[seat] = score
    for day, _step, choices in ctx.memory.actions:  # a kill that failed: likely protected
        if day == ctx.day - 1 and day in ctx.memory.quiet_nights:
            for choice in choices:
                if choice.target in scores:
                    scores[choice.target] -= 4.0
    return scores


def threat(ctx: Context) -> int | None:
    scores = threat_scores(ctx)
    options = [t for t in ctx.targets if t in scores] or ctx.targets
    return max(options, key=lambda s: (scores.get(s, 0.0), -s), default=None)


def kill(ctx: Context) -> int | None:
    """Mafia: the biggest threat (checkers, protectors, hunters); town killers: top suspect."""
    if ctx.town:
        return hostile(ctx)
    plans = ctx.memory.plans.get(ctx.day, {})
    agreed = [t for s, t in sorted(plans.items()) if s in ctx.team | {ctx.me}]
    if agreed and agreed[0] in ctx.targets:
        return agreed[0]
    return threat(ctx)


def protect(ctx: Context) -> int | None:
    """Doctor: a credible checker first, then trusted players or myself; randomised."""
    a = ctx.town_view()
    alive = ctx.k.alive
    checkers = set(a.credible_checkers(alive))
    claimed_me = ctx.me in ctx.public.role_claims
    weights: dict[int, float] = {}
    for seat in ctx.targets:
        if not ctx.town:
            weights[seat] = 3.0 if seat in ctx.team or seat == ctx.me else 0.2
            continue
        if seat == ctx.me:
            weight = 3.0 if claimed_me else 1.5
        elif seat in checkers:
            weight = 10.0
        elif a.sus[seat] <= -2.0:
            weight = 2.5
        elif a.sus[seat] >= 1.0:
            weight = 0.1
        else:
            weight = 1.0
        weights[seat] = weight
    return ctx.weighted(weights)


def check(ctx: Context) -> int | None:
    """Checker: an unchecked suspect; role claimers first (a claim is worth verifying)."""
    a = ctx.mine
    if not ctx.town:
        scores = threat_scores(ctx)
        return max(ctx.targets, key=lambda s: (scores.get(s, 0.0), -s), default=None)
    pool = unknown(ctx)
    noise = {s: ctx.rng.random() for s in pool}
    claims = ctx.public.role_claims
    return max(pool, key=lambda s: a.sus[s] + 1.5 * (s in claims) + noise[s])


def frame(ctx: Context) -> int | None:
    """Mafia framer: make the checker see mafia in a town player the table suspects."""
    if ctx.town:
        return hostile(ctx)
    pub = ctx.public
    return ctx.best(ctx.targets, lambda s: pub.sus[s] - 10.0 * (s in ctx.team), "frame", slack=0.3)


def defend(ctx: Context) -> int | None:
    """Lawyer-like: shield the teammate (or trusted player) most under fire tomorrow."""
    pub, pressure = ctx.public, ctx.pressure
    friends = (
        ctx.team | {ctx.me} if not ctx.town else {s for s in ctx.targets if ctx.mine.sus[s] <= 0.0}
    )
    pool = [t for t in ctx.targets if t in friends] or ctx.targets
    return max(pool, key=lambda s: (pub.sus[s] + pressure.get(s, 0.0), -s), default=None)


def watch(ctx: Context) -> int | None:
    """Watcher: sit by the likeliest victim (a credible checker, else a trusted voice)."""
    if not ctx.town:
        return threat(ctx)
    a = ctx.mine
    checkers = [t for t in a.credible_checkers(ctx.k.alive) if t in ctx.targets]
    if checkers:
        return checkers[0]
    return ctx.best(ctx.targets, lambda s: -a.sus[s], "watch", slack=1.0)


def compare(ctx: Context) -> int | None:
    """Journalist: pair a cleared player (first pick) with an unknown suspect."""
    if not ctx.town:
        return threat(ctx)
    a = ctx.mine
    cleared = [t for t in ctx.targets if t in a.cleared]
    if cleared and "pick 1" in ctx.request.prompt:
        return cleared[0]
    return check(ctx)


def check_or_kill(ctx: Context) -> Choice | None:
    """Club detective: shoot a known (or all but proven) mafioso, otherwise check."""
    a = ctx.mine
    if ctx.town:
        sure = [t for t in ctx.targets if a.sus[t] >= 6.0]
        if sure:
            return ctx.choice_for(max(sure, key=lambda s: a.sus[s]), "kill")
        return ctx.choice_for(check(ctx), "check")
    return ctx.choice_for(threat(ctx), "kill")


NIGHT_STRATEGIES: dict[str, Strategy] = {
    "kill": kill,
    "shoot": hostile,
    "protect": protect,
    "check": check,
    "arrest": hostile,
    "steal": hostile,
    "silence": hostile,
    "frame": frame,
    "defend": defend,
    "compare": compare,
    "watch": watch,
    "check_or_kill": check_or_kill,
    "copy": hostile,
}


def register_night_strategy(action: str, strategy: Strategy) -> None:
    """Teach the heuristic a new action (e.g. a club role's primitive)."""
    NIGHT_STRATEGIES[action] = strategy


def converge(ctx: Context) -> Choice | None:
    """In a group step after round 1: the last round's plurality, ties → lowest seat's."""
    step = str(ctx.request.info.get("step", ""))
    rounds = ctx.memory.picks.get((ctx.day, step), [])
    if not rounds or not rounds[-1]:
        return None
    last = rounds[-1]
    tally = Counter(last.values())
    top = max(tally.values())
    leaders = {c for c, n in tally.items() if n == top}
    pick = next(c for _, c in sorted(last.items()) if c in leaders)
    return pick if pick in ctx.request.choices else None


def night_decision(ctx: Context) -> Choice:
    """The choice for a ``night:<step>`` request."""
    agreed = converge(ctx)
    if agreed is not None:
        return agreed
    action = str(ctx.request.info.get("action", ""))
    strategy = NIGHT_STRATEGIES.get(action, hostile)
    picked = strategy(ctx)
    if isinstance(picked, Choice) and picked in ctx.request.choices:
        return picked
    if isinstance(picked, int):
        return ctx.choice_for(picked)
    return ctx.fallback()
