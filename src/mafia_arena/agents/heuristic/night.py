"""Night targeting: one small strategy per action name, looked up from the request.

`request.info["action"]` names the primitive (kill, protect, check, ...). A strategy
returns a seat among the request's targets (or a full `Choice` where the action has
modes, as `check_or_kill`). Unknown actions get `hostile` for town (aim at the most
suspicious) and `threat` for the other sides, so a new role is playable at once; add a
better strategy with `register_night_strategy`. A strategy never passes while a legal
target exists, except an optional shot (`shoot`), which a town shooter holds without a
strong read. Group steps (a clan's kill, joint checks) converge on the previous
round's plurality, ties to the lowest seat's pick, which every member computes alike.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from mafia_arena.agents.heuristic.context import Context
from mafia_arena.engine.choices import PASS, Choice

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
    """Checker: an unchecked suspect; role claimers first (a claim is worth verifying).

    Never a seat whose allegiance is known (a card turned up, my own earlier result)
    nor one a confirmed checker has already published; and, when a captain acts
    before me, the suspect it is likeliest to arrest is left for tomorrow.
    """
    a = ctx.mine
    if not ctx.town:
        scores = threat_scores(ctx)
        return max(ctx.targets, key=lambda s: (scores.get(s, 0.0), -s), default=None)
    published = {
        target
        for seat, results in a.results.items()
        if seat != ctx.me and (seat in a.confirmed or a.credibility.get(seat, 0.0) >= 2.0)
        for target in results
    }
    pool = [t for t in unknown(ctx) if t not in published] or unknown(ctx)
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


def arrest(ctx: Context) -> int | None:
    """Captain: a known mafioso (the arrest stops its night), else a suspect — but not
    my top one, which the checkers are likeliest to look at tonight (an arrested
    player's check comes back empty)."""
    if not ctx.town:
        return threat(ctx)
    a = ctx.mine
    guilty = [t for t in ctx.targets if t in a.guilty]
    if guilty:
        return ctx.best(guilty, lambda s: ctx.pressure.get(s, 0.0), "arrest")
    pool = unknown(ctx)
    top = ctx.best(pool, lambda s: a.sus[s], "hostile", slack=0.3)
    rest = [t for t in pool if t != top] or pool
    return ctx.weighted({t: 1.0 + max(0.0, a.sus[t]) for t in rest})


def silence(ctx: Context) -> int | None:
    """Lover-like (the target may neither speak nor vote, nor be voted against
    tomorrow): a suspect's vote taken away, but never the one the town means to
    execute, nor a known mafioso the vote should remove."""
    if not ctx.town:
        return threat(ctx)
    a = ctx.mine
    pool = [t for t in unknown(ctx) if t != ctx.me and t not in a.cleared]
    top = ctx.best(pool, ctx.vote_score, "vote:vote")
    rest = [t for t in pool if t != top] or [t for t in ctx.targets if t not in a.guilty]
    if not rest:
        return None
    return ctx.weighted({t: 1.0 + max(0.0, a.sus[t]) for t in rest})


SHOOT_AT = 3.5
"""A town shooter with the right to decline fires only at a seat scored at least this
(more than one unconfirmed claimed check, which a lying mafioso can make up):
a check result of mine or of a credible checker, a contradicted or impossible claim,
or a record that adds up to as much. A shot on a hunch hits town more often than not
at a big table, and every town player shot is a night kill handed to the mafia."""


def shoot(ctx: Context) -> int | Choice | None:
    """Sheriff-like (may decline): shoot the strongest read if it is strong, else hold.

    Where the request cannot be declined, the most suspicious target as `hostile`.
    """
    if not ctx.town:
        return threat(ctx)
    a = ctx.mine
    pool = [t for t in ctx.targets if t not in a.cleared]
    top = ctx.best(pool, lambda s: a.sus[s], "shoot", slack=0.3)
    if top is not None and a.sus[top] >= SHOOT_AT:
        return top
    if PASS in ctx.request.choices:
        return PASS
    return hostile(ctx)


KILL_MODE_AT = 3.0
"""A town killer with a choice of check or kill shoots a suspect scored at least this
(a proven liar, a counter-claimer with a bad record): a check would spend the one
action the rules allow on that player."""


def check_or_kill(ctx: Context) -> Choice | None:
    """Club detective: each player may be targeted once, so a checked mafioso can no
    longer be shot — shoot a seat that is all but proven mafia, otherwise check."""
    a = ctx.mine
    if ctx.town:
        sure = [t for t in ctx.targets if a.sus[t] >= KILL_MODE_AT and t not in a.cleared]
        if sure:
            return ctx.choice_for(max(sure, key=lambda s: a.sus[s]), "kill")
        return ctx.choice_for(check(ctx), "check")
    return ctx.choice_for(threat(ctx), "kill")


NIGHT_STRATEGIES: dict[str, Strategy] = {
    "kill": kill,
    "shoot": shoot,
    "protect": protect,
    "check": check,
    "arrest": arrest,
    "steal": hostile,
    "silence": silence,
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
