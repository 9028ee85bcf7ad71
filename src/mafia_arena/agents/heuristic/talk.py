"""Speech: what the heuristic says, as structured acts rendered to canonical sentences.

A turn may carry several acts (claim a role, then each check result, then an
accusation); they are joined into one `Speech` whose sentences every reader — the
claim extractor, an LLM, a human — reads back exactly. Town accuses its top suspect and
vouches for players it trusts; a checker reveals when it has found mafia, is
counter-claimed or is in danger, then announces each result once; a protector claims
only to save itself. The mafia accuse the scapegoat the table already leans to, and one
designated mafioso per game sometimes poses as the checker with invented results.
"""

from __future__ import annotations

import random

from mafia_arena.agents.heuristic.context import Context
from mafia_arena.agents.heuristic.day import mafia_pick
from mafia_arena.agents.heuristic.night import threat
from mafia_arena.agents.heuristic.suspicion import HARD, evil_looks
from mafia_arena.engine.choices import PASS, Choice, Decision, Speech
from mafia_arena.engine.speech_acts import render_act

BLUFF_CHANCE = 0.3
MANNERS = (
    "found at dawn in the river",
    "a quiet end in a dark alley",
    "an unlucky fall down the stairs",
    "a cup of poisoned coffee",
)


def utter(ctx: Context, acts: list[Choice]) -> Decision:
    """One act as its choice, several as one speech of their sentences."""
    acts = list(dict.fromkeys(acts))
    request = ctx.request
    if not acts:
        return PASS if PASS in request.choices or request.free_text else ctx.fallback()
    if len(acts) == 1 and acts[0] in request.choices:
        return acts[0]
    if not request.free_text:
        legal = [a for a in acts if a in request.choices]
        return legal[0] if legal else ctx.fallback()
    text = " ".join(render_act(a) for a in acts)
    return Speech(text[: request.max_chars], acts[0])


def speak(ctx: Context) -> Decision:
    """Any speaking request: discussion, plea, defence, last words, night chat, describe."""
    kind = ctx.request.kind
    if kind == "describe":
        return Speech(ctx.rng.choice(MANNERS))
    if kind == "night_chat":
        victim = None if ctx.town or not ctx.targets else threat(ctx)
        return PASS if victim is None else Speech(f"Let's kill P{victim + 1} tonight.")
    return utter(ctx, town_acts(ctx) if ctx.town else mafia_acts(ctx))


def suspect(ctx: Context, salt: str) -> int | None:
    """My top suspect among the living, never a seat I know is town.

    In a final plea the choice narrows to the other nominee(s): that is the vote.
    """
    sus = ctx.town_view().sus
    pool = [s for s in ctx.living() if sus[s] > -HARD / 2 and s in ctx.targets]
    rivals = [s for s in ctx.memory.nominees.get(ctx.day, []) if s in pool]
    if ctx.request.kind == "plea" and rivals:
        pool = rivals
    return ctx.best(pool, ctx.vote_score, salt)


def town_acts(ctx: Context) -> list[Choice]:
    acts: list[Choice] = []
    role = ctx.k.role or ""
    if role in ctx.book.checker_roles:
        acts += checker_acts(ctx, role)
    elif role in ctx.book.protector_roles and not ctx.notes.get("claimed") and in_danger(ctx):
        ctx.notes["claimed"] = True
        acts.append(Choice("claim_role", None, role))
    sus = ctx.mine.sus
    top = suspect(ctx, "speak")
    if top is not None and sus[top] > -1.0:
        acts.append(Choice("accuse", top))
    vouched = ctx.notes.setdefault("vouched", set())
    trusted = [
        s
        for s in ctx.living()
        if sus[s] <= -2.0 and s in ctx.targets and (ctx.day, s) not in vouched
    ]
    if trusted:
        seat = min(trusted, key=lambda s: (sus[s], s))
        vouched.add((ctx.day, seat))
        acts.append(Choice("vouch", seat))
    return acts


def in_danger(ctx: Context) -> bool:
    """A plea or defence, or the table pressing on me today."""
    if ctx.request.kind in ("plea", "defence", "last_word"):
        return True
    return ctx.pressure.get(ctx.me, 0.0) >= 2.0 or len(ctx.k.living()) <= 4


def checker_acts(ctx: Context, role: str) -> list[Choice]:
    """Reveal when it pays (mafia found, counter-claimed, in danger, late), then report."""
    looks = evil_looks(ctx.book)
    results: dict[int, str] = {}
    for result in ctx.k.results:
        if result.action == "check" and result.targets and result.result != "no result":
            results[result.targets[0]] = "mafia" if result.result in looks else "innocent"
    alive = ctx.k.alive
    found = any(r == "mafia" and alive[t] for t, r in results.items())
    rivals = [
        s
        for s, r in ctx.public.role_claims.items()
        if r == role and s != ctx.me and s not in ctx.team and alive[s]
    ]
    late = ctx.day >= 3 or len(ctx.k.living()) <= 5
    claimed = bool(ctx.notes.get("claimed"))
    if not (claimed or found or rivals or (results and (late or in_danger(ctx)))):
        return []
    acts: list[Choice] = []
    if not claimed:
        ctx.notes["claimed"] = True
        acts.append(Choice("claim_role", None, role))
    announced: set[int] = ctx.notes.setdefault("announced", set())
    fresh = sorted(
        (t for t in results if alive[t] and t not in announced),
        key=lambda t: (results[t] != "mafia", t),
    )
    for target in fresh[:3]:
        announced.add(target)
        acts.append(Choice("claim_result", target, results[target]))
    acts += [Choice("accuse", s) for s in rivals if results.get(s) != "innocent"]
    return acts


def mafia_acts(ctx: Context) -> list[Choice]:
    acts = bluff_acts(ctx) if bluffing(ctx) else []
    pool = [s for s in ctx.living() if s in ctx.targets]
    rivals = [s for s in ctx.memory.nominees.get(ctx.day, []) if s in pool]
    if ctx.request.kind == "plea" and rivals:
        pool = rivals
    goat = mafia_pick(ctx, pool, "speak")
    if goat is not None and goat not in ctx.team:
        acts.append(Choice("accuse", goat))
    return acts


def bluffing(ctx: Context) -> bool:
    """One designated mafioso per game (team coin) poses as the checker from day 2,
    at once against a rival claim, or as a last resort when nominated."""
    checkers = [r for r in sorted(ctx.book.checker_roles) if ctx.k.composition.get(r, 0)]
    if not checkers:
        return False
    if "bluff" not in ctx.notes:
        team = sorted(ctx.team | {ctx.me})
        coin = random.Random(f"bluff:{ctx.seed}:{team}").random()
        ctx.notes["bluff"] = ctx.me == team[0] and coin < BLUFF_CHANCE
    if ctx.notes["bluff"] and not ctx.notes.get("bluff_role"):
        rival = bool(ctx.public.claimers(frozenset(checkers), ctx.k.alive))
        desperate = ctx.request.kind == "plea" and ctx.rng.random() < 0.5
        if ctx.day >= 2 or rival or desperate:
            ctx.notes["bluff_role"] = checkers[0]
    return bool(ctx.notes.get("bluff_role"))


def bluff_acts(ctx: Context) -> list[Choice]:
    """Claim the checker role, then one invented result a day (a rival first)."""
    role = ctx.notes["bluff_role"]
    acts: list[Choice] = []
    if not ctx.notes.get("claimed"):
        ctx.notes["claimed"] = True
        acts.append(Choice("claim_role", None, role))
    fake: dict[int, str] = ctx.notes.setdefault("fake", {})
    days: set[int] = ctx.notes.setdefault("fake_days", set())
    alive = ctx.k.alive
    if ctx.day not in days:
        days.add(ctx.day)
        rivals = [
            s
            for s, r in ctx.public.role_claims.items()
            if r == role and s != ctx.me and s not in ctx.team and alive[s]
        ]
        fresh = [s for s in ctx.living() if s not in fake and s in ctx.targets]
        outsiders = [s for s in fresh if s not in ctx.team]
        if rivals and rivals[0] not in fake:
            fake[rivals[0]] = "mafia"
        elif ctx.rng.random() < 0.3 and fresh:
            fake[ctx.rng.choice(fresh)] = "innocent"
        elif outsiders:
            goat = mafia_pick(ctx, outsiders, "bluff")
            if goat is not None:
                fake[goat] = "mafia"
    announced: set[int] = ctx.notes.setdefault("announced", set())
    for target, value in fake.items():
        if target not in announced and alive[target]:
            announced.add(target)
            acts.append(Choice("claim_result", target, value))
    return acts
