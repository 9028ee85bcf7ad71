"""The heuristic's Palermo play: every role, every card and the snitch, used sensibly.

Palermo's requests (`engine.palermo`): ``turn`` (one move of a timed phase),
``change_vote``, ``vote_end`` (Lawyer, Corrupt Cop), ``runoff`` and ``last_words``.
The strategy reads the seat's own knowledge only: its role and allies, the ballots
cast so far, its private investigation and Pythia results (the fold's `ballots_cast`,
`outcomes` and `channel_said`, each record read once from a cursor). The rules of thumb:

- vote first, always (absences remove a player): the town votes a known mafioso, else
  joins the leading ballot on a player it does not trust, else a random other; the
  mafia camp votes the leading non-ally, else a random non-ally;
- night roles act once a night: the Detective checks the unknown, the Medium the
  unknown ghosts, the Prostitute blocks a non-ally, the mafia set one assassination on
  a non-ally, and a Hidden Mafioso (or the Archmafioso) sometimes snitches;
- cards are played when they help the holder's camp (a resurrection of an ally or any
  ghost for the town, a Pythia question about the unknown, the imprisonment of a known
  enemy, a cancel for an ally, Echo when the ghosts are many, an exemption under
  threat, Failed Assassination at once);
- the private channels coordinate: before its night pick a mafioso proposes a victim in
  the mafia channel, and before its ballot a mafioso or a Roommate proposes a name in
  its channel; then everyone in the channel follows the proposal of the lowest seat
  that made one (a focal point every member computes alike);
- a snitcher withdraws a declaration that has become a sure miss (the named player is
  no longer Active, or was shown not to be what the declaration names) or whose risk
  grew (a fellow mafioso was lost since it was declared).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import groupby
from operator import attrgetter

from mafia_arena.agents.heuristic.context import Context
from mafia_arena.agents.heuristic.palermo_claims import (
    EVERYONE,
    bluff_post,
    claimants,
    credibility,
    frames,
    is_bluffer,
    named_mafia,
)
from mafia_arena.agents.heuristic.talk import phrasebook
from mafia_arena.engine.catalogue import NightResult, OracleAnswer
from mafia_arena.engine.choices import PASS, Choice, Decision, Speech, shared_choice
from mafia_arena.engine.palermo.roles import DETECTIVE, MAFIA_TEAM, MEDIUM, RIVAL
from mafia_arena.speech.phrasing import Reason

_VERB = attrgetter("verb")
_PROPOSAL = re.compile(r"\b(kill|vote) P(\d{1,2})\b")
"""A channel proposal names its aim as "kill P<n>" (tonight's victim) or "vote P<n>"."""
CHANNEL_LINES = {
    "kill": (
        "Tonight we kill P{n}; set it so.",
        "Let's kill P{n} tonight.",
        "I say we kill P{n}; everyone set it.",
        "Our target: kill P{n} before dawn.",
    ),
    "vote": (
        "Today we vote P{n}; put your ballot there.",
        "Let's all vote P{n} today.",
        "I say we vote P{n}; stay together.",
        "Everyone vote P{n}, no stragglers.",
    ),
}
"""A channel proposal's phrasings per aim; each names it as ``_PROPOSAL`` reads it."""
_MAFIA_CAMP_ROLES = frozenset(
    {"known_a", "known_b", "hidden", "archmafioso", "corrupt_cop", "prostitute"}
)


def palermo_decision(ctx: Context) -> Decision:
    _fold(ctx)
    kind = ctx.request.kind
    if kind == "turn":
        return _turn(ctx)
    if kind == "runoff":
        return _pick_vote(ctx, [c for c in ctx.request.choices if c.verb == "vote"]) or PASS
    if kind == "vote_end":
        return _vote_end(ctx)
    if kind == "speak":
        said: Speech | None = ctx.notes.pop("palermo_post", None)
        return said if said is not None else PASS
    if kind == "change_vote" and not _mafia_side(ctx):
        return _revote(ctx, [c for c in ctx.request.choices if c.verb == "vote"]) or PASS
    return PASS  # change_vote (keep the ballot), last_words


@dataclass
class _Seen:
    """What the strategy has read from the fold's records so far, each record once."""

    outcomes: int = 0
    """How many of the fold's `outcomes` (results, Pythia answers) are read."""
    channel: int = 0
    """How many of the fold's `channel_said` are read."""
    enemies: set[int] = field(default_factory=set)
    cleared: set[int] = field(default_factory=set)
    proposals: dict[tuple[int, str], dict[int, int]] = field(default_factory=dict)
    """(day, ``kill`` or ``vote``) → channel member → the seat they proposed."""


def _seen(ctx: Context) -> _Seen:
    """What the seat has read, up to this decision (`_fold` ran when it began)."""
    seen: _Seen = ctx.notes["palermo_seen"]
    return seen


def _fold(ctx: Context) -> None:
    """Read the fold's new records: investigation results, Pythia answers (who is
    formally mafia) and channel proposals (the strategy's own "kill P<n>" convention).

    Kept in the agent's notes with a cursor per append-only record tuple, never rebuilt:
    a Palermo game asks a seat hundreds of times. Run once per decision; the strategy's
    helpers then read the result (`_seen`). Today's ballots are the fold's own record
    (`_ballots_now`).
    """
    seen: _Seen = ctx.notes.setdefault("palermo_seen", _Seen())
    k = ctx.view.knowledge
    for noted in k.outcomes[seen.outcomes :]:
        f = noted.fact
        if isinstance(f, NightResult):
            if f.targets and f.result == "mafia":
                seen.enemies.add(f.targets[0])
            elif f.targets and f.result == "innocent":
                seen.cleared.add(f.targets[0])
        elif isinstance(f, OracleAnswer) and f.question == "mafia":
            (seen.enemies if f.answer else seen.cleared).add(f.target)
    seen.outcomes = len(k.outcomes)
    for day, speaker, text in k.channel_said[seen.channel :]:
        match = _PROPOSAL.search(text)
        if match is not None:
            aims = seen.proposals.setdefault((day, match.group(1)), {})
            aims[speaker] = int(match.group(2)) - 1
    seen.channel = len(k.channel_said)


def _enemies_known(ctx: Context) -> set[int]:
    """Seats this seat knows to be formally mafia: its investigations and Pythia answers,
    and for a good-camp seat the mafiosi it was introduced to (the Informant knows Known
    Mafioso A, the Rival Mafioso Known Mafioso B)."""
    seen = _seen(ctx)
    if _mafia_side(ctx):
        return seen.enemies
    k = ctx.view.knowledge
    introduced = {s for s, role in k.allies.items() if role in MAFIA_TEAM}
    return seen.enemies | introduced if introduced else seen.enemies


def _cleared(ctx: Context) -> set[int]:
    return _seen(ctx).cleared


def _mafia_side(ctx: Context) -> bool:
    return ctx.view.knowledge.role in _MAFIA_CAMP_ROLES and ctx.view.knowledge.faction == "mafia"


def _friends(ctx: Context) -> set[int]:
    k = ctx.view.knowledge
    if _mafia_side(ctx):
        return set(k.allies) | {ctx.view.seat}
    if k.role == "roommate":
        return set(k.allies) | {ctx.view.seat}
    return {ctx.view.seat}


def _ballots_now(ctx: Context) -> Mapping[int, int]:
    """The ballots cast this round, as the public ballot events show them (the fold's
    record of the current day's ballots)."""
    k = ctx.view.knowledge
    return k.ballots_cast if k.ballots_cast_day == k.day else {}


def _pick_vote(ctx: Context, options: list[Choice]) -> Choice | None:
    if not options:
        return None
    friends = _friends(ctx)
    aimed = {c.target: c for c in options if c.target is not None}
    targets = {t: c for t, c in aimed.items() if t not in friends} or aimed
    if not targets:
        return None
    if not _mafia_side(ctx):
        return targets[_town_aim(ctx, sorted(targets))]
    agreed = _proposal(ctx, "vote")
    if agreed in targets:
        return targets[agreed]
    backed = frames(ctx.view.knowledge, friends) if ctx.style.back_bluffer else []
    if backed and backed[0] in targets:
        return targets[backed[0]]
    counts: dict[int, int] = {}
    for target in _ballots_now(ctx).values():
        counts[target] = counts.get(target, 0) + 1
    cleared = _cleared(ctx)
    ranked = sorted(
        (t for t in targets if t not in cleared or _mafia_side(ctx)),
        key=lambda t: (-counts.get(t, 0), t),
    )
    if ranked and counts.get(ranked[0], 0) > 0:
        return targets[ranked[0]]
    return targets[ctx.rng.choice(sorted(targets))]


def _town_aim(ctx: Context, targets: list[int]) -> int:
    """The good camp's ballot among `targets` (not empty), the same at every like-minded
    seat so that their votes land together rather than spread:

    1. the first claimant the reveals showed lying (`palermo_claims.credibility`) who is
       still a target: only the mafia camp ever fakes a check claim;
    2. the first mafioso named publicly (by a believed check, Pythia or an
       introduction) who is still a target and not cleared by the seat's own results,
       unless the table's only Rival Mafioso claim says the check found him (he works
       with us): the first name, not the latest, so that a second name later in the day
       does not split the votes that already met on the first; a liar's claims, and
       those of two claimants of one unique role (one of them lies), are not believed;
    3. else a mafioso the seat knows itself and has not yet named, likewise;
    4. else that claimed Rival Mafioso: he turns killer, alone, once the mafiosi are
       gone, so with no other named mafioso left he is the town's last sure exit (and
       out of play he can never win alone);
    5. else the first seat of the day's public focal order that is neither cleared nor
       one who named a mafioso in a believed claim (a liar would not hand the town a
       target), so the town's votes meet on one name the mafia cannot pick for it.
    """
    k = ctx.view.knowledge
    rivals = {s.seat for s in k.said if s.claim.kind == "claim_role" and s.claim.value == RIVAL}
    spared = rivals if len(rivals) == 1 else set()
    cleared = _cleared(ctx)
    cred = credibility(k)
    for target in cred.liars:
        if target in targets:
            return target
    for target in named_mafia(k, cred):
        if target in targets and target not in cleared and target not in spared:
            return target
    known = _enemies_known(ctx)
    for target in targets:
        if target in known and (target not in spared or target in k.allies):
            return target
    for target in targets:
        if target in spared:
            return target
    accusers = {s.seat for s in k.said if s.claim.kind == "claim_result" and cred.believed(s.seat)}
    trusted = cleared | accusers | spared
    pool = [t for t in targets if t not in trusted] or targets
    return next(s for s in ctx.public_order("palermo_vote") if s in pool)


def _revote(ctx: Context, options: list[Choice]) -> Choice | None:
    """A good-camp seat's new ballot when its aim moved off its current one, else None.

    The ballot stays changeable until VOTE CLOSE (and once more in the change window),
    so a seat that voted before a check was published follows it rather than keep a
    vote cast blind."""
    current = _ballots_now(ctx).get(ctx.view.seat)
    aimed = {c.target: c for c in options if c.target is not None}
    if current is None or not aimed:
        return None
    standing = {current} if ctx.view.knowledge.alive[current] else set()
    aim = _town_aim(ctx, sorted(set(aimed) | standing))
    return aimed.get(aim) if aim != current else None


def _turn(ctx: Context) -> Decision:
    request = ctx.request
    seat = ctx.view.seat
    phase = str(request.info.get("phase", ""))
    by_verb: dict[str, list[Choice]] = {}
    # the engine lists a verb's choices together (ballots, a card, a night action), so
    # grouping runs of equal verbs reads a Pythia holder's hundreds of questions at C speed
    for verb, group in groupby(request.choices, _VERB):
        by_verb.setdefault(verb, []).extend(group)
    ballots = _ballots_now(ctx)
    night_done = ctx.notes.setdefault("night_done", set())
    night_key = (ctx.view.knowledge.day, phase if phase == "night_early" else "night")
    if "withdraw_snitch" in by_verb and _withdraw(ctx):
        return by_verb["withdraw_snitch"][0]
    if "snitch" in by_verb:
        allies = ctx.view.knowledge.allies  # naming a fellow mafioso is a sure miss
        snitches = [c for c in by_verb["snitch"] if c.target not in allies]
        partner = [c for c in snitches if c.value == "massacre_detective"]
        if partner and not any(c.value == "massacre_informant" for c in by_verb["snitch"]):
            pick = ctx.rng.choice(partner)  # a fellow mafioso opened a massacre: complete it
            ctx.notes["palermo_snitch"] = (pick, len(_comrades(ctx)))
            return pick
        if (night_key, "snitch") not in night_done:  # declared before the kill: free hands
            night_done.add((night_key, "snitch"))
            if ctx.rng.random() < 0.15:
                kind = ctx.rng.choice(("simple", "vendetta", "massacre_informant"))
                picks = [c for c in snitches if c.value == kind]
                if picks:
                    pick = ctx.rng.choice(picks)
                    ctx.notes["palermo_snitch"] = (pick, len(_comrades(ctx)))
                    return pick
    # a proposal in the channel before the pick it proposes (tonight's kill, today's vote)
    if "post_channel" in by_verb:
        post = _channel_post(ctx, by_verb, ballots)
        if post is not None:
            return post
    # the night ability, once a night
    for verb in ("block", "investigate", "assassinate"):
        if verb in by_verb and (night_key, verb) not in night_done:
            night_done.add((night_key, verb))
            return _night_pick(ctx, verb, by_verb[verb])
    card = _card_move(ctx, by_verb, phase, ballots)
    if card is not None:
        return card
    if "vote" in by_verb and seat not in ballots:
        ballot = _pick_vote(ctx, by_verb["vote"])
        if ballot is not None:
            return ballot
    if "post" in by_verb:
        reasons: dict[Choice, Reason] = {}
        acts = _post(ctx, phase, reasons)
        if acts:
            text = phrasebook(ctx).speech(acts, reasons, ctx.view.knowledge.day)
            # the acts in words alone: a post's speaking turn offers no act (only a pass)
            ctx.notes["palermo_post"] = Speech(text)
            return by_verb["post"][0]
    if "vote" in by_verb and not _mafia_side(ctx):
        ballot = _revote(ctx, by_verb["vote"])
        if ballot is not None:
            return ballot
    return PASS


def _comrades(ctx: Context) -> list[int]:
    """The Active fellow members of the seat's channel (the mafia team, the Roommates)."""
    k = ctx.view.knowledge
    return [s for s in k.allies if k.alive[s] and s != ctx.view.seat]


def _proposal(ctx: Context, kind: str) -> int | None:
    """Today's (tonight's) channel proposal to follow: the lowest proposing seat's."""
    aims = _seen(ctx).proposals.get((ctx.view.knowledge.day, kind), {})
    if not aims or not (_mafia_side(ctx) or ctx.view.knowledge.role == "roommate"):
        return None
    return aims[min(aims)]


def _channel_post(
    ctx: Context, by_verb: dict[str, list[Choice]], ballots: Mapping[int, int]
) -> Choice | None:
    """Propose tonight's victim (a mafioso about to pick) or today's ballot (about to
    vote) in the channel, once each, when a fellow member is there to read it."""
    if not _comrades(ctx):
        return None
    k = ctx.view.knowledge
    posted = ctx.notes.setdefault("palermo_proposed", set())
    pick: Decision | None
    if "assassinate" in by_verb and (k.day, "kill") not in posted and k.phase == "night_early":
        kind, pick = "kill", _night_pick(ctx, "assassinate", by_verb["assassinate"])
    elif "vote" in by_verb and ctx.view.seat not in ballots and (k.day, "vote") not in posted:
        kind, pick = "vote", _pick_vote(ctx, by_verb["vote"])
    else:
        return None
    posted.add((k.day, kind))
    if not isinstance(pick, Choice) or pick.target is None:
        return None
    line = phrasebook(ctx).pick(f"channel:{kind}", CHANNEL_LINES[kind])
    ctx.notes["palermo_post"] = Speech(line.format(n=pick.target + 1))
    return by_verb["post_channel"][0]


def _withdraw(ctx: Context) -> bool:
    """Withdraw my declaration? When it is a sure miss (the named player is no longer
    Active, or a result showed them formally a citizen where a vendetta needs the Rival
    Mafioso), or when a fellow mafioso was lost since I declared (a miss now costs more)."""
    declared = ctx.notes.get("palermo_snitch")
    if declared is None:
        return False
    choice, comrades = declared
    named = choice.target
    sure_miss = not ctx.view.knowledge.alive[named] or (
        choice.value == "vendetta" and named in _cleared(ctx)
    )
    if sure_miss or len(_comrades(ctx)) < comrades:
        ctx.notes.pop("palermo_snitch")
        return True
    return False


def _post(ctx: Context, phase: str, reasons: dict[Choice, Reason]) -> list[Choice]:
    """What to say now, if anything (the acts of one post). The good camp names each
    mafioso it knows (a check, Pythia, its introduction) as soon as it may, once each
    and only while no believed claim has named him yet, so the table can vote him the
    same day; a Detective or Medium says its role with its first result, and at once
    when someone else claims it (a counter-claim: the table must not believe the
    impostor alone); a Rival Mafioso named by a check says what he is (once). The mafia
    camp's designated fake checker (`palermo_claims.bluff_post`) posts its fake claim
    once a day; the others, in the afternoon and once a day, back a partner's fake
    result or now and then accuse a non-ally. Where an act rests on an earlier event
    (the impostor's claim, the table's doubts, the target's ballot today), `reasons`
    gets it, for the phrasebook to say first."""
    k = ctx.view.knowledge
    seat = ctx.view.seat
    alive = set(k.living())
    if not _mafia_side(ctx):
        acts: list[Choice] = []
        rival = k.role == RIVAL and k.faction != "rival"
        if rival and seat in named_mafia(k, EVERYONE) and not ctx.notes.get("palermo_rival_said"):
            ctx.notes["palermo_rival_said"] = True
            return [shared_choice("claim_role", None, RIVAL)]
        named = set(named_mafia(k, credibility(k)))
        found = sorted(t for t in _enemies_known(ctx) if t in alive and t not in named)
        checker = k.role in (DETECTIVE, MEDIUM) and not ctx.notes.get("palermo_role_said")
        impostors = [s for s in claimants(k, k.role or "") if s != seat]
        if checker and (found or impostors):
            ctx.notes["palermo_role_said"] = True
            claim = shared_choice("claim_role", None, k.role)
            acts.append(claim)
            if impostors:
                reasons[claim] = Reason("counter_claim", impostors[0])
        if found:
            acts.append(shared_choice("claim_result", found[0], "mafia"))
        return acts
    if phase in ("morning", "afternoon") and _bluffer(ctx):
        bluffed = ctx.notes.setdefault("palermo_bluff_days", set())
        if k.day not in bluffed and k.day >= ctx.style.bluff_day:
            bluffed.add(k.day)
            return bluff_post(k, seat, _friends(ctx), ctx.rng, ctx.notes, ctx.style)
    posted = ctx.notes.setdefault("palermo_posted", set())
    if phase != "afternoon" or k.day in posted:
        return []
    posted.add(k.day)
    backed = frames(k, _friends(ctx)) if ctx.style.back_bluffer else []
    if backed:
        accuse = shared_choice("accuse", backed[0])
        reasons[accuse] = Reason("pressure", backed[0])
        return [accuse]
    if ctx.rng.random() < 0.2:
        others = sorted(t for t in alive if t not in _friends(ctx))
        if not others:
            return []
        target = ctx.rng.choice(others)
        accuse = shared_choice("accuse", target)
        if target in _ballots_now(ctx):
            reasons[accuse] = Reason("vote", target, None, k.day)
        return [accuse]
    return []


def _bluffer(ctx: Context) -> bool:
    """Am I my team's fake checker this game? (Decided once, by `is_bluffer`.)"""
    if "palermo_bluffer" not in ctx.notes:
        k = ctx.view.knowledge
        chance = ctx.style.bluff_chance
        ctx.notes["palermo_bluffer"] = is_bluffer(k, ctx.view.seat, ctx.seed, chance)
    return bool(ctx.notes["palermo_bluffer"])


def _night_pick(ctx: Context, verb: str, options: list[Choice]) -> Decision:
    friends = _friends(ctx)
    known = _enemies_known(ctx) | _cleared(ctx)
    if verb == "assassinate":
        me = ctx.view.seat
        mine = [c for c in options if c.value == str(me)] or options
        agreed = _proposal(ctx, "kill")
        if agreed is not None and agreed not in friends:
            chosen = [c for c in mine if c.target == agreed]
            if chosen:
                return chosen[0]
            if any(c.target == agreed for c in options):
                return PASS  # the agreed kill stands already, by me (it is not offered)
        fresh = [c for c in mine if c.target not in friends]
        return ctx.rng.choice(fresh or mine)
    fresh = [c for c in options if c.target not in friends and c.target not in known]
    return ctx.rng.choice(fresh or options)


def _card_move(
    ctx: Context, by_verb: dict[str, list[Choice]], phase: str, ballots: Mapping[int, int]
) -> Choice | None:
    rng = ctx.rng
    friends = _friends(ctx)
    enemies = _enemies_known(ctx)
    mafia = _mafia_side(ctx)
    seat = ctx.view.seat
    if "failed_assassination" in by_verb:
        return by_verb["failed_assassination"][0]
    if "cancel_imprisonment" in by_verb:
        mine = [c for c in by_verb["cancel_imprisonment"] if c.target in friends]
        if mine or (not mafia and rng.random() < 0.5):
            return (mine or by_verb["cancel_imprisonment"])[0]
    if "resurrection" in by_verb:
        mine = [c for c in by_verb["resurrection"] if c.target in friends]
        others = [c for c in by_verb["resurrection"] if c.target not in enemies]
        if mine:
            return mine[0]
        if not mafia and others and rng.random() < 0.5:
            return rng.choice(others)
    if "pythia" in by_verb and phase == "morning":
        asks = [c for c in by_verb["pythia"] if c.value == "mafia" and c.target not in friends]
        known = enemies | _cleared(ctx)
        fresh = [c for c in asks if c.target not in known]
        if fresh:
            return rng.choice(fresh)
    if "immediate_imprisonment" in by_verb and phase == "afternoon":
        foes = [c for c in by_verb["immediate_imprisonment"] if c.target in enemies]
        if not mafia and foes:
            return foes[0]
        if mafia and rng.random() < 0.2:
            others = [c for c in by_verb["immediate_imprisonment"] if c.target not in friends]
            if others:
                return rng.choice(others)
    if "grave_robbing" in by_verb and rng.random() < 0.3:
        return rng.choice(by_verb["grave_robbing"])
    if "echo" in by_verb and phase == "afternoon" and rng.random() < 0.4:
        return by_verb["echo"][0]
    on_me = sum(1 for t in ballots.values() if t == seat)
    if "vote_exemption" in by_verb and (on_me >= 2 or (phase == "morning" and rng.random() < 0.2)):
        return by_verb["vote_exemption"][0]
    if "extra_vote" in by_verb and phase == "afternoon":
        return _pick_vote(ctx, by_verb["extra_vote"])
    if "vote_cancellation" in by_verb and phase == "afternoon":
        hostile = {v for v, t in ballots.items() if t in friends and v not in friends}
        picks = [c for c in by_verb["vote_cancellation"] if c.target in hostile]
        if picks:
            return picks[0]
    return None


def _vote_end(ctx: Context) -> Decision:
    friends = _friends(ctx)
    counts: dict[int, int] = {}
    for target in _ballots_now(ctx).values():
        counts[target] = counts.get(target, 0) + 1
    if not counts:
        return PASS
    leader = max(sorted(counts), key=lambda t: counts[t])
    choices = ctx.request.choices
    defend = [c for c in choices if c.verb == "defend" and c.target == leader]
    if defend and (leader in friends or leader in _cleared(ctx)):
        return defend[0]
    if _mafia_side(ctx) and leader in friends:
        moves = [c for c in choices if c.verb == "transfer" and c.target == leader]
        away = [c for c in moves if int(c.value or -1) not in friends]
        if away:
            return ctx.rng.choice(away)
    return PASS
