"""The heuristic player in a forum game (dictator): channels and every dictator role.

At a phase's first ``forum`` request the player plans the phase from what it knows
(its status, its comrades, game-master results, private messages and testaments it
received, public reveals: the fold's forum records, each read once from a cursor
and interpreted here) and then hands in one planned item per request, ending with
``pass``. Plans use only offered forms or written forms the request allows, so every
decision is legal. What it does:

- every phase: one thread post (naming its prime suspect, or quiet for a mafioso),
  in German like everything it writes here, in varied words (`forum_words`);
- town: the detective and matchmaker investigate away from the dictator (no jail) and
  from what they already know, tell every other living player each new result in one
  group message (`passed_on`: a citizen dictator executes the mafioso, the citizens
  gather their ballots on the cleared); whoever has a prime suspect names him to the
  dictator; a town dictator executes the best-founded suspect (a result, a received
  message, a testament), else a drawn unconfirmed player, and no longer counts the
  private word of a sender who named a player whose exit then showed a citizen;
  citizens call a revolution when the
  dictator's executions revealed two citizens; the angel protects a drawn non-dictator;
- mafia: the informed vote and revolt for a comrade, write to each other in a group
  message, murder a drawn non-comrade with a death message, mark and forge on their
  own side's behalf, point at a plain citizen; the terrorist attacks the dictator once
  he learns he was investigated; a lying team (the style's `bluff_chance`) frames a
  non-comrade in private messages to the dictator (`framing`);
- now and then an ad under its own pseudonym, and a testament with its results.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from operator import attrgetter

from mafia_arena.agents.heuristic.context import Context
from mafia_arena.agents.heuristic.forum_words import (
    ADS,
    DEATH_NOTES,
    EXIT_POSTS,
    GUILTY_NOTES,
    INNOCENT_NOTES,
    LAST_WORDS,
    POSTS,
    QUESTIONS,
    REPLIES,
    REPLY_SUSPECTS,
    SUSPECT_POSTS,
    TEAM_NOTES,
    WATCH_ADS,
    say,
)
from mafia_arena.agents.heuristic.talk import phrasebook
from mafia_arena.engine.catalogue import (
    DeliveredTestament,
    Fact,
    GameMasterNotice,
    Office,
    PrivateMessage,
    StatusShown,
)
from mafia_arena.engine.choices import PASS, Choice, Decision, Speech, shared_choice
from mafia_arena.views.knowledge import Knowledge, Noted

GUILTY = re.compile(r"\bP(\d+) ist Mafioso\.")
INNOCENT = re.compile(r"\bP(\d+) ist kein Mafioso\.")


def name(seat: int) -> str:
    return f"P{seat + 1}"


class _Seen:
    """The forum records the seat has read so far, each once (kept in the agent's
    notes): a cursor per append-only record tuple of the fold, and what was read."""

    def __init__(self) -> None:
        self.read: dict[str, int] = {}  # record tuple → how many of it are read
        self.guilty: dict[int, int] = {}
        self.cleared: set[int] = set()
        self.citizen_executions = 0
        self.dictator: int | None = None
        self.investigated_me = False
        self.results: list[str] = []
        self.unanswered: list[int] = []
        self.discredited: set[int] = set()
        self.told: list[tuple[int, int]] = []  # (sender, named) of each private "ist Mafioso"
        self.last_exit: tuple[int, str] | None = None  # (seat, status shown) of the latest
        self.own_guilty: list[int] = []  # named "ist Mafioso" in the seat's own results
        self.own_cleared: list[int] = []  # named "ist kein Mafioso" in them

    def advance(self, k: Knowledge, me: int) -> None:
        """Read the records the fold gained since the last call, in stream order (a
        status shown discredits only the senders who wrote before it)."""
        tuples: dict[str, Sequence[Noted[Fact]]] = {
            "result": k.notices.get("result", ()),
            "investigations": k.notices.get("investigations", ()),
            "messages": k.messages,
            "testaments": k.testaments,
            "offices": k.offices,
            "statuses": k.statuses,
        }
        new: list[Noted[Fact]] = []
        for key, records in tuples.items():
            start = self.read.get(key, 0)
            if len(records) > start:
                new += records[start:]
                self.read[key] = len(records)
        new.sort(key=_AT)
        for noted in new:
            self._apply(noted.fact, me)

    def _apply(self, fact: Fact, me: int) -> None:
        if isinstance(fact, GameMasterNotice) and fact.topic == "result":
            self.results.append(fact.text)
            self._read(fact.text, weight=3)
            self.own_guilty += [int(m.group(1)) - 1 for m in GUILTY.finditer(fact.text)]
            self.own_cleared += [int(m.group(1)) - 1 for m in INNOCENT.finditer(fact.text)]
        elif isinstance(fact, GameMasterNotice):  # the investigations list
            self.investigated_me |= f"queried: {name(me)}" in fact.text
        elif isinstance(fact, PrivateMessage) and fact.sender != me:
            self.told += [(fact.sender, int(m.group(1)) - 1) for m in GUILTY.finditer(fact.text)]
            self._read(fact.text, weight=1)
            notice = len(fact.recipients) > 1 and (
                GUILTY.search(fact.text) or INNOCENT.search(fact.text)
            )
            if not notice and fact.sender not in self.unanswered:  # a passed-on result
                self.unanswered.append(fact.sender)  # to the table needs no answer
        elif isinstance(fact, PrivateMessage):
            self.unanswered = [s for s in self.unanswered if s not in fact.recipients]
        elif isinstance(fact, DeliveredTestament):
            self._read(fact.text, weight=2)
        elif isinstance(fact, Office):
            self.dictator = fact.dictator
            self.citizen_executions = 0
        elif isinstance(fact, StatusShown):
            self.last_exit = (fact.seat, fact.status)
            if fact.status.startswith("Bürger"):
                self.citizen_executions += 1
                self.discredited |= {sender for sender, named in self.told if named == fact.seat}

    def _read(self, text: str, weight: int) -> None:
        for match in GUILTY.finditer(text):
            seat = int(match.group(1)) - 1
            self.guilty[seat] = self.guilty.get(seat, 0) + weight
        for match in INNOCENT.finditer(text):
            self.cleared.add(int(match.group(1)) - 1)


_AT = attrgetter("at")


class Reading:
    """What the seat has read from the fold's forum records that a forum plan needs
    (game-master results and investigations, private messages, testaments, the office,
    statuses shown), up to this decision."""

    def __init__(self, ctx: Context) -> None:
        seen: _Seen = ctx.notes.setdefault("forum_seen", _Seen())
        seen.advance(ctx.k, ctx.me)
        self.cleared = set(seen.cleared)
        self.citizen_executions = seen.citizen_executions
        self.dictator = seen.dictator
        self.investigated_me = seen.investigated_me
        self.results = list(seen.results)
        self.unanswered = list(seen.unanswered)
        """Who wrote to the seat privately since it last wrote back to them."""
        self.discredited = set(seen.discredited)
        """Who named in a private message a player whose exit then showed a citizen."""
        self.last_exit = seen.last_exit
        """The latest exit's seat and the status shown for it, if any."""
        self.own_guilty = [s for s in seen.own_guilty if s not in seen.cleared]
        """The seats the game master's results named mafiosi, in the order found."""
        self.own_cleared = list(seen.own_cleared)
        """The seats the game master's results named no mafiosi, in the order found."""
        self.guilty = dict(seen.guilty)
        for sender, named in seen.told:  # a word from a discredited sender weighs nothing
            if sender in self.discredited and named in self.guilty:
                self.guilty[named] -= 1
                if self.guilty[named] <= 0:
                    del self.guilty[named]


def forum_decision(ctx: Context) -> Decision:
    """The next planned item of this phase (see the module doc)."""
    key = f"forum:{ctx.k.phase}:{ctx.day}"
    plan = ctx.notes.get(key)
    if plan is None:
        plan = ctx.notes[key] = make_plan(ctx)
    else:  # a message that came in during the window is answered at once
        plan[:0] = answers(ctx, Reading(ctx))
    while plan:
        decision = plan.pop(0)
        if allowed(ctx, decision):
            return decision
    return PASS


def allowed(ctx: Context, decision: Decision) -> bool:
    request = ctx.request
    act = decision.act if isinstance(decision, Speech) else decision
    if act is None:
        return True
    if act in request.choices:
        return True
    if act.verb == "ad":
        owned = request.info.get("pseudonyms") or []
        return act.value in owned  # type: ignore[operator]
    if act.verb == "testament":
        return shared_choice("testament", None, "public") in request.choices
    if act.verb == "give":
        owned = request.info.get("pseudonyms") or []
        return act.value in owned and act.target in ctx.k.living() and act.target != ctx.me  # type: ignore[operator]
    if act.verb == "pm" and act.value:
        living = set(ctx.k.living())
        return all(int(s) in living and int(s) != ctx.me for s in act.value.split("."))
    return False


def offered(ctx: Context, verb: str) -> list[int]:
    return [c.target for c in ctx.request.choices if c.verb == verb and c.target is not None]


def make_plan(ctx: Context) -> list[Decision]:
    """This phase's items, in order (see the module doc)."""
    read = Reading(ctx)
    rng, me, town = ctx.rng, ctx.me, ctx.town
    words = phrasebook(ctx)
    comrades = sorted(s for s in ctx.k.allies if ctx.k.alive[s])
    living = [s for s in ctx.k.living() if s != me]
    suspects = [s for s in sorted(read.guilty, key=lambda s: -read.guilty[s]) if s in living]
    suspect = suspects[0] if suspects and town else None
    plan: list[Decision] = []
    night = ctx.k.phase == "night"
    # an investigator's new results first: a phase's window may close on a long plan
    plan += passed_on(ctx, read)
    # the thread
    plan.append(Speech(thread_post(ctx, read, suspect), shared_choice("post")))
    # the office
    ballots = offered(ctx, "ballot") or offered(ctx, "revolution")
    if ballots and night:
        pick = ballot(ctx, read, comrades, ballots)
        if pick is not None:
            plan.append(shared_choice("ballot" if offered(ctx, "ballot") else "revolution", pick))
    executable = offered(ctx, "execute")
    if executable:
        plan.append(shared_choice("execute", execution(ctx, read, comrades, executable)))
    attackable = offered(ctx, "attack")
    if attackable and read.investigated_me and read.dictator in attackable:
        plan.append(shared_choice("attack", read.dictator))
    # role forms at night
    plan += role_forms(ctx, read, comrades)
    # the kill authority's successor
    heirs = offered(ctx, "successor")
    if heirs and ctx.notes.get("successor") not in heirs:
        ctx.notes["successor"] = heirs[0]
        plan.append(shared_choice("successor", heirs[0]))
    # private messages: first an answer to whoever wrote, then the seat's own results
    plan += answers(ctx, read)
    if suspect is not None and read.dictator is not None and read.dictator != me:
        text = say(words, "guilty", GUILTY_NOTES, t=name(suspect))
        plan.append(Speech(text, shared_choice("pm", read.dictator)))
    elif comrades and night and len(comrades) > 1:
        group = ".".join(str(s) for s in comrades)
        plan.append(Speech(say(words, "team", TEAM_NOTES), Choice("pm", None, group)))
    elif comrades:
        plan.append(Speech(say(words, "team", TEAM_NOTES), shared_choice("pm", comrades[0])))
    elif living and rng.random() < 0.5:
        question = say(words, "question", QUESTIONS)
        plan.append(Speech(question, shared_choice("pm", rng.choice(living))))
    frame = framing(ctx, read, comrades)
    if frame is not None:
        plan.append(frame)
    # the newspaper
    if rng.random() < 0.3:
        owned = ctx.request.info.get("pseudonyms") or []
        if suspect is not None:
            text = say(words, "watch", WATCH_ADS, t=name(suspect))
        else:
            text = say(words, "ad", ADS)
        if owned:
            plan.append(Speech(text, Choice("ad", None, str(owned[0]))))  # type: ignore[index]
        else:
            plan.append(Speech(text, shared_choice("ad", None, "new")))
    # a comrade takes over a pseudonym now and then (an ad voice the mafia share)
    owned = ctx.request.info.get("pseudonyms") or []
    if owned and comrades and rng.random() < 0.1:
        plan.append(Speech("", Choice("give", rng.choice(comrades), str(owned[0]))))  # type: ignore[index]
    # the testament: an investigator's results go to the whole table (a dictator alone
    # may be a mafioso, and every citizen's ballot reads them)
    if not ctx.notes.get("testament") or (
        read.results and ctx.notes.get("testament") != read.results
    ):
        ctx.notes["testament"] = list(read.results) or True
        words_left = " ".join(read.results) or say(words, "last", LAST_WORDS)
        dictator = read.dictator
        if read.results and dictator is not None and dictator != me and dictator not in read.guilty:
            plan.append(Speech(words_left, Choice("testament", None, str(dictator))))
        else:
            plan.append(Speech(words_left, shared_choice("testament", None, "public")))
    return plan


def thread_post(ctx: Context, read: Reading, suspect: int | None) -> str:
    """This phase's thread post: the prime suspect (a citizen with a lead), now and
    then a look back at the latest exit, else a remark with nothing in it."""
    words = phrasebook(ctx)
    if suspect is not None:
        return say(words, "suspect", SUSPECT_POSTS, t=name(suspect))
    exit_ = read.last_exit
    if exit_ is not None and words.rng.random() < 0.4:
        seat, status = exit_
        kind = (
            "citizen"
            if status.startswith("Bürger")
            else "mafia"
            if status.startswith("Mafia")
            else "hidden"
        )
        return say(words, f"exit:{kind}", EXIT_POSTS[kind], s=name(seat))
    return say(words, "post", POSTS)


def passed_on(ctx: Context, read: Reading) -> list[Decision]:
    """An investigator's new results, told at once to every other living player in one
    group message, in the game master's own words ("P<n> ist Mafioso.", "P<n> ist kein
    Mafioso."): each citizen's reading then counts them, so a citizen dictator (this
    one or the next) executes the mafioso, and the citizens' election and revolution
    ballots gather on the cleared player (`ballot` trusts the cleared; scattered
    ballots hand the office to the mafia's united ones). Each result
    once, and only about a player still in the game; never to the named mafioso."""
    if not ctx.town:
        return []
    told: set[int] = ctx.notes.setdefault("forum_passed_on", set())
    living = [s for s in ctx.k.living() if s != ctx.me]
    guilty = [s for s in read.own_guilty if s not in told and s in living]
    cleared = [s for s in read.own_cleared if s not in told and s in living and s not in guilty]
    others = [s for s in living if s not in read.own_guilty]
    if not (guilty or cleared) or not others:
        return []
    told.update(guilty + cleared)
    words = phrasebook(ctx)
    text = " ".join(
        [say(words, "guilty", GUILTY_NOTES, t=name(s)) for s in guilty]
        + [say(words, "innocent", INNOCENT_NOTES, t=name(s)) for s in cleared]
    )
    return [Speech(text, Choice("pm", None, ".".join(str(s) for s in others)))]


def framing(ctx: Context, read: Reading, comrades: list[int]) -> Speech | None:
    """A lying mafioso's private word to the dictator, once a day: "P<n> ist Mafioso.",
    the form a town dictator reads as a result passed on to him.

    Whether a team lies is one coin per team against the style's `bluff_chance`, and
    whom it frames is one seeded order of the seats per team, so every member computes
    both alike from its own allies: the lowest living member writes from the style's
    `bluff_day` on (on `frame_rate` of the days), and with `back_bluffer` the others
    write the same name. Never to a comrade dictator, never naming a comrade, and only
    by a mafioso who knows his comrades."""
    k, me, style = ctx.k, ctx.me, ctx.style
    dictator = read.dictator
    if ctx.town or not k.allies or dictator is None or dictator == me or dictator in comrades:
        return None  # a mafioso who was told no comrades might frame one: he keeps quiet
    days: set[int] = ctx.notes.setdefault("forum_framed", set())
    if ctx.day < style.bluff_day or ctx.day in days:
        return None
    days.add(ctx.day)
    team = sorted(set(k.allies) | {me})
    if random.Random(f"forum-bluff:{team}").random() >= style.bluff_chance:
        return None
    if me != min([*comrades, me]) and not style.back_bluffer:
        return None
    if ctx.rng.random() >= style.frame_rate:
        return None
    order = sorted(range(k.players), key=lambda s: random.Random(f"forum-goat:{team}:{s}").random())
    goats = [s for s in order if k.alive[s] and s not in team and s != dictator]
    if not goats:
        return None
    text = say(phrasebook(ctx), "guilty", GUILTY_NOTES, t=name(goats[0]))
    return Speech(text, shared_choice("pm", dictator))


def answers(ctx: Context, read: Reading) -> list[Decision]:
    """A private answer to each player who wrote since the seat last wrote to him (two
    at most, each once per phase)."""
    answered = ctx.notes.setdefault(f"answered:{ctx.k.phase}:{ctx.day}", set())
    living = set(ctx.k.living())
    out: list[Decision] = []
    words = phrasebook(ctx)
    town_suspect = (
        [s for s in sorted(read.guilty, key=lambda s: -read.guilty[s])] if ctx.town else []
    )
    for sender in [s for s in read.unanswered if s in living and s not in answered][:2]:
        answered.add(sender)
        text = say(words, "reply", REPLIES, s=name(sender))
        named = [s for s in town_suspect if s != sender and s in living]
        if named:
            text += say(words, "reply_suspect", REPLY_SUSPECTS, t=name(named[0]))
        out.append(Speech(text, shared_choice("pm", sender)))
    return out


def ballot(ctx: Context, read: Reading, comrades: list[int], targets: list[int]) -> int | None:
    """Whom to elect, or to revolt for (None: no revolution tonight).

    The informed mafia vote as a bloc for their lowest comrade. A citizen names `focal`
    (the election and a vacancy are plurality votes with ties by lot, and a
    revolution's successor is the most-named, so the citizens who hold the same clears
    name one seat); he revolts once the dictator's executions revealed two citizens."""
    me = ctx.me
    electing = read.dictator is None or ctx.day == 0
    if not ctx.town:
        if read.dictator in comrades or read.dictator == me:
            return None
        picks = [s for s in comrades if s in targets] or ([me] if me in targets else [])
        return picks[0] if picks else None
    if not electing and read.citizen_executions < 2:
        return None
    return focal(read, me, targets)


def focal(read: Reading, me: int, targets: list[int]) -> int | None:
    """The town's candidate for the office: the lowest seat cleared by a result the
    reader holds (its own or one passed on to it: every investigator tells every living
    player, so the citizens who read the same results name the same seat), else the
    reader himself, the one seat he knows to be a citizen. Never a seat the reader
    suspects (a result, a private word or a testament naming him a mafioso).

    A focal seat from public information alone (the lowest unsuspected living seat)
    measured weaker in the strength benchmark: the mafia outlive the citizens, so that
    seat is ever more often a mafioso, while scattered self-votes each name a citizen."""
    suspected = set(read.guilty) | set(read.own_guilty)
    cleared = [s for s in targets if s in read.cleared and s not in suspected]
    if cleared:
        return min(cleared)
    if me in targets:
        return me
    unsuspected = [s for s in targets if s not in suspected]
    return min(unsuspected or targets) if targets else None


def execution(ctx: Context, read: Reading, comrades: list[int], targets: list[int]) -> int:
    if not ctx.town:
        return ctx.rng.choice([t for t in targets if t not in comrades] or targets)
    ranked = [t for t in sorted(read.guilty, key=lambda s: -read.guilty[s]) if t in targets]
    if ranked:
        return ranked[0]
    unknown = [t for t in targets if t not in read.cleared]
    return ctx.rng.choice(unknown or targets)


def role_forms(ctx: Context, read: Reading, comrades: list[int]) -> list[Decision]:
    rng = ctx.rng
    out: list[Decision] = []
    enemies = lambda seats: [s for s in seats if s not in comrades]  # noqa: E731
    murder = enemies(offered(ctx, "murder"))
    if murder:
        victim = rng.choice(murder)
        out.append(
            Speech(
                say(phrasebook(ctx), "death", DEATH_NOTES, t=name(victim)),
                shared_choice("murder", victim),
            )
        )
    for verb in ("mark", "point", "copy_status", "protect"):
        targets = offered(ctx, verb)
        if verb in ("mark", "point"):
            targets = enemies(targets)
        if targets:
            out.append(shared_choice(verb, rng.choice(targets)))
    passport = [s for s in offered(ctx, "passport") if s in comrades] or offered(ctx, "passport")
    if passport:
        out.append(shared_choice("passport", rng.choice(passport)))
    known = read.cleared | set(read.own_guilty)
    queries = [s for s in offered(ctx, "query") if s != read.dictator and s not in known]
    if queries:
        out.append(shared_choice("query", rng.choice(queries)))
    pairs = [
        c
        for c in ctx.request.choices
        if c.verb == "compare" and read.dictator not in (c.target, int(c.value or -1))
    ]
    if pairs:
        out.append(rng.choice(pairs))
    return out
