"""Speech: what the heuristic says, as structured acts spoken in varied sentences.

A turn may carry several acts (claim a role, then each check result, then an
accusation); the seat's `Phrasebook` (`speech.phrasing`) says them in one of several
phrasings each, after a reason drawn from the record where there is one ("P3 voted for
P5 yesterday, and P5 was a villager."), and every reader — the claim extractor, an LLM,
a human — reads the acts back. Town accuses its top suspect once it has a reason of
its own (with nothing to go on — before any ballot, card, night death or claim — each
seat names its own hunch or keeps quiet, so the table does not echo one name; the
table's pressure alone counts little), and vouches for players it trusts; a checker
reveals when it has found mafia, is counter-claimed or is in danger, then announces
each result once; a protector claims only to save itself. The mafia accuse the
scapegoat the table already leans to once there is evidence (hunches before, as town
does), back a partner's fake results, and one designated mafioso per team (the style's
`bluff_chance`) poses as the checker with invented results. The `Style` sets the
thresholds.
"""

from __future__ import annotations

import random

from mafia_arena.agents.heuristic.bluff import designated, invent_result
from mafia_arena.agents.heuristic.context import Context
from mafia_arena.agents.heuristic.day import mafia_pick
from mafia_arena.agents.heuristic.night import threat
from mafia_arena.agents.heuristic.suspicion import HARD, evil_looks
from mafia_arena.engine.choices import PASS, Choice, Decision, Speech
from mafia_arena.engine.speech_acts import render_act
from mafia_arena.speech.phrasing import Phrasebook, Reason

MANNERS = (
    "found at dawn in the river",
    "a quiet end in a dark alley",
    "an unlucky fall down the stairs",
    "a cup of poisoned coffee",
)
NIGHT_PLANS = (
    "Let's kill P{n} tonight.",
    "I say we kill P{n} tonight.",
    "Tonight we kill P{n}; agreed?",
)
"""Team-chat proposals; each one names its victim as "kill P<n>" (`memory._plan` reads it)."""


def phrasebook(ctx: Context) -> Phrasebook:
    """The seat's phrasebook for this game (its own generator: wording never changes
    what the seat decides)."""
    book = ctx.notes.get("phrasebook")
    if book is None:
        rng = random.Random(f"phrasing:{ctx.seed}:{ctx.me}")
        book = ctx.notes["phrasebook"] = Phrasebook(rng)
    return book


def utter(
    ctx: Context, acts: list[Choice], reasons: dict[Choice, Reason] | None = None
) -> Decision:
    """The acts as one speech in varied words (a choice where no free text is allowed)."""
    acts = list(dict.fromkeys(acts))
    request = ctx.request
    if not request.free_text:
        legal = [a for a in acts if a in request.choices]
        return legal[0] if legal else (PASS if PASS in request.choices else ctx.fallback())
    words = phrasebook(ctx)
    if not acts:
        return Speech(words.say(PASS), PASS)
    text = words.speech(acts, reasons or {}, ctx.day)
    if len(text) > request.max_chars:
        text = " ".join(render_act(a) for a in acts)[: request.max_chars]
    return Speech(text, acts[0])


def speak(ctx: Context) -> Decision:
    """Any speaking request: discussion, plea, defence, last words, night chat, describe."""
    kind = ctx.request.kind
    if kind == "describe":
        return Speech(ctx.rng.choice(MANNERS))
    if kind == "night_chat":
        victim = None if ctx.town or not ctx.targets else threat(ctx)
        if victim is None:
            return PASS
        return Speech(phrasebook(ctx).pick("plan", NIGHT_PLANS).format(n=victim + 1))
    reasons: dict[Choice, Reason] = {}
    acts = town_acts(ctx, reasons) if ctx.town else mafia_acts(ctx, reasons)
    return utter(ctx, acts, reasons)


def candidates(ctx: Context) -> list[int]:
    """Whom I may accuse now: the living I do not know to be town (in a final plea,
    only the other nominee(s): that is the vote)."""
    sus = ctx.town_view().sus
    pool = [s for s in ctx.living() if sus[s] > -HARD / 2 and s in ctx.targets]
    rivals = [s for s in ctx.memory.nominees.get(ctx.day, []) if s in pool]
    if ctx.request.kind == "plea" and rivals:
        pool = rivals
    return pool


def suspect(ctx: Context, salt: str) -> int | None:
    """My top suspect among `candidates` (near-ties broken by the public focal order)."""
    return ctx.best(candidates(ctx), ctx.vote_score, salt)


def hunch(ctx: Context, pool: list[int]) -> int | None:
    """With nothing clear to go on, a seat of my own choosing among the likelier
    suspects (my generator, not the focal order: every seat would otherwise name the
    same player) — or silence. Hunches come less often once days have passed."""
    chance = ctx.style.day_one_talk * (1.0 if ctx.day <= 1 else 0.5)
    if not pool or ctx.rng.random() >= chance:
        return None
    top = max(ctx.vote_score(s) for s in pool)
    return ctx.rng.choice([s for s in pool if ctx.vote_score(s) >= top - 1.0])


def evidence(ctx: Context, seat: int) -> Reason | None:
    """The most telling earlier fact against `seat` in my record, if any."""
    k, book = ctx.k, ctx.book
    a = ctx.town_view()
    if seat in a.liars or seat in a.conflicted:
        return Reason("counter_claim", seat)
    for said in reversed(ctx.memory.said):
        other = said.claim.target
        if other is None or said.seat != seat or said.claim.kind != "vouch":
            continue
        if other in k.revealed and book.is_evil(k.revealed[other]):
            return Reason("vouched_mafia", seat, other, said.day)
    for ballot in reversed(ctx.memory.ballots):
        other = ballot.votes.get(seat)
        if other is not None and other in k.revealed and not book.is_evil(k.revealed[other]):
            return Reason("voted_town", seat, other, ballot.day, k.revealed[other])
    victims = set(ctx.memory.killed_at_night())
    for said in reversed(ctx.memory.said):
        if said.seat in victims and said.claim.kind == "accuse" and said.claim.target == seat:
            return Reason("named_by_victim", seat, said.seat, said.day)
    if ctx.grounded and ctx.pressure.get(seat, 0.0) >= 2.0 and ctx.town_view().sus[seat] > 0.0:
        return Reason("pressure", seat)  # the table's doubts, backed by something of mine
    latest = [b for b in ctx.memory.ballots if b.day == ctx.day - 1 and b.votes.get(seat)]
    if latest:
        return Reason("vote", seat, None, ctx.day - 1)
    return None


TALK_PRESSURE = 0.1
"""How much today's pressure counts towards accusing a seat aloud (votes count it at
0.25): the table's doubts alone are a weak reason to add one more voice to them."""


def talk_score(ctx: Context, seat: int) -> float:
    """What I hold against `seat` when deciding to accuse it aloud."""
    return ctx.town_view().sus[seat] + TALK_PRESSURE * ctx.pressure.get(seat, 0.0)


def accusations(ctx: Context, reasons: dict[Choice, Reason]) -> list[Choice]:
    """Town: my top suspect when it clears the style's bar on my own evidence (else a
    hunch: always before the table has any evidence, so the first name spoken does not
    become everyone's), and for an aggressive style a second suspect."""
    style = ctx.style
    pool = candidates(ctx)
    top = suspect(ctx, "speak")
    if top is None:
        return []
    baseless = not ctx.grounded and ctx.town_view().sus[top] <= 0.0
    weak = baseless or talk_score(ctx, top) <= style.accuse_above
    if weak and ctx.request.kind not in ("plea", "defence"):
        top = hunch(ctx, pool)
        if top is None:
            return []
    acts = [Choice("accuse", top)]
    reason = evidence(ctx, top)
    if reason is not None:
        reasons[acts[0]] = reason
    if style.second_accusation:
        rest = [s for s in pool if s != top and ctx.vote_score(s) > style.accuse_above]
        second = ctx.best(rest, ctx.vote_score, "speak:2")
        if second is not None:
            acts.append(Choice("accuse", second))
    return acts


def town_acts(ctx: Context, reasons: dict[Choice, Reason]) -> list[Choice]:
    acts: list[Choice] = []
    role = ctx.k.role or ""
    if role in ctx.book.checker_roles:
        acts += checker_acts(ctx, role)
    elif role in ctx.book.protector_roles and not ctx.notes.get("claimed") and in_danger(ctx):
        ctx.notes["claimed"] = True
        acts.append(Choice("claim_role", None, role))
    acts += accusations(ctx, reasons)
    if not ctx.style.vouch:
        return acts
    sus = ctx.mine.sus
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
    late = ctx.day >= ctx.style.checker_reveal_day or len(ctx.k.living()) <= 5
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


def mafia_acts(ctx: Context, reasons: dict[Choice, Reason]) -> list[Choice]:
    acts = bluff_acts(ctx) if bluffing(ctx) else []
    pool = [s for s in ctx.living() if s in ctx.targets]
    rivals = [s for s in ctx.memory.nominees.get(ctx.day, []) if s in pool]
    if ctx.request.kind == "plea" and rivals:
        pool = rivals
    outsiders = [s for s in pool if s not in ctx.team]
    backed = partner_frames(ctx, outsiders) if ctx.style.back_bluffer else []
    if backed:
        goat: int | None = backed[0]
    else:
        goat = mafia_pick(ctx, pool, "speak")
        if not ctx.grounded and ctx.request.kind not in ("plea", "defence"):
            # blend in: before any evidence town names its own hunches, and a team that
            # all named the table's first name would stand out as a bloc
            goat = hunch(ctx, outsiders)
    if goat is not None and goat not in ctx.team:
        act = Choice("accuse", goat)
        acts.append(act)
        reason = evidence(ctx, goat)
        if reason is not None:
            reasons[act] = reason
    return acts


def partner_frames(ctx: Context, outsiders: list[int]) -> list[int]:
    """Living outsiders a partner has "checked" as mafia (a fake result to back up)."""
    looks = evil_looks(ctx.book) | {"mafia"}
    return list(
        dict.fromkeys(
            said.claim.target
            for said in reversed(ctx.memory.said)
            if said.seat in ctx.team
            and said.claim.kind == "claim_result"
            and said.claim.value in looks
            and said.claim.target in outsiders
        )
    )


def bluffing(ctx: Context) -> bool:
    """One designated mafioso per team (a team coin against the style's
    `bluff_chance`) poses as the checker from the style's `bluff_day`, at once against
    a rival claim, or as a last resort when nominated."""
    checkers = [r for r in sorted(ctx.book.checker_roles) if ctx.k.composition.get(r, 0)]
    if not checkers:
        return False
    style = ctx.style
    if "bluff" not in ctx.notes:
        team = sorted(ctx.team | {ctx.me})
        ctx.notes["bluff"] = designated(
            ctx.me, team, f"bluff:{ctx.seed}:{team}", style.bluff_chance
        )
    if ctx.notes["bluff"] and not ctx.notes.get("bluff_role"):
        rival = bool(ctx.public.claimers(frozenset(checkers), ctx.k.alive))
        desperate = ctx.request.kind == "plea" and ctx.rng.random() < 0.5
        if ctx.day >= style.bluff_day or rival or desperate:
            ctx.notes["bluff_role"] = checkers[0]
    return bool(ctx.notes.get("bluff_role"))


def bluff_acts(ctx: Context) -> list[Choice]:
    """Claim the checker role, then at most one invented result a day (a rival
    first; mostly framing a town player, sometimes clearing a partner or anyone)."""
    role = ctx.notes["bluff_role"]
    style = ctx.style
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
        partners = [s for s in fresh if s in ctx.team]
        rival = rivals[0] if rivals and rivals[0] not in fake else None
        invented = invent_result(
            ctx.rng,
            style,
            rival,
            partners,
            outsiders,
            lambda pool: mafia_pick(ctx, list(pool), "bluff"),
        )
        if invented is not None:
            fake[invented[0]] = invented[1]
    announced: set[int] = ctx.notes.setdefault("announced", set())
    for target, value in fake.items():
        if target not in announced and alive[target]:
            announced.add(target)
            acts.append(Choice("claim_result", target, value))
    return acts
