"""The text view as people read it: the terminal game (``mafia-arena play --human``), the
command line's ``play`` and ``replay`` transcripts, and the web page's lines (a seat's,
a spectator's, the after-game replay's and the moderator's: `web.render.lines`,
`web.storage.moderator_lines`).

A line starts from the one a model reads (`views.text.render_event`) and differs only
where the transcript writes an id or leaves out what a person asks for:

- a speech's or a vote's kind is said in words ("P9 (last word): ...", "Votes (final
  vote): ..."), where the transcript writes the turn's id ("last_word", "final_vote");
  a team's channel is its "team chat", which Palermo's teams hold by day too;
- the forum game's Night 0 is dated ("[N0] ") as every later night is: `phase_tag`
  dates nothing on day 0, which is the setup (cards, allies) in every other variant;
- a team's picks say which round of how many they were ("round 1 of 3"; nothing of
  rounds where the step has one), and the request for a later round says why it is
  asked, from the previous round's picks the seat was shown (`team_round_prompt`: the
  team did not agree, the seat or a teammate passed or did not answer in time) and,
  where the host tells how each member's answer came (`Answered`: the web table's
  timeouts, absences and stand-ins), what happened to the seat, and to a teammate
  where that tells nothing of whether a teammate was blocked (`_why_answered`); the
  number of rounds from the variant's public rules;
- a team of one reads as a single player: "Your pick for the detectives' check" and
  "Your night action (...)", not "Team picks" and "Your team's" (`acts_alone`, the one
  decision every such line takes);
- a private line says whose it is (`channel_words`: "the mafia's kill", "game
  master"), the same words before the terminal's line, the command line's view of a
  seat and on the web page's tag (`tag_words`), unless the line says them itself
  ("Team picks for the mafia's kill", "Private message P1 → P2"): a tag that repeats
  its line reads the words twice; the whole log's lines (the command line's omniscient
  transcript, the moderator's view) add the seats that saw the line (`audience_tag`);
- a Palermo turn is dated as its header and its lines are ("Early night 1 (before
  midnight): ...", `people_prompt`), where the engine writes "of round 2";
- the end says why the game ended (`views.endings.end_reason`: the engine's reason, or
  the win rule that held, in words, with the living counts) where the finished game is
  given: everything it draws on is public once the game is over. The web page does not
  give it: its end screen says why, and the end's line would say it twice.

Why a second rendering and not a change to the first: a seat's transcript, the LLM
prompts and the envs' text observations are built from `render_event` alone, and what
a model or a learner observes must stay byte for byte as it was (logged runs and the
golden playthroughs compare it, and a prompt's cached prefix depends on it). The events
and the requests' own prompts are untouched as well, so every stored log replays.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from mafia_arena.engine.catalogue import GameEnded, GroupPicks, NightAction, SpeechMade, Votes
from mafia_arena.engine.choices import Request
from mafia_arena.engine.events import Event, SeatEvent
from mafia_arena.engine.game import Game
from mafia_arena.rules import Variant
from mafia_arena.rules.spec import NightStep
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.endings import end_reason
from mafia_arena.views.knowledge import Knowledge, KnowledgeFold
from mafia_arena.views.text import choice_text, game_over_line, render_event
from mafia_arena.views.words import name, palermo_when, phase_tag, quote_speech

__all__ = [
    "CHANNEL_WORDS",
    "KIND_WORDS",
    "Answered",
    "acts_alone",
    "audience_tag",
    "channel_words",
    "kind_words",
    "log_line",
    "people_line",
    "people_prompt",
    "people_tag",
    "private_tag",
    "seat_line",
    "tag_words",
    "team_round_prompt",
]

KIND_WORDS = {
    "night_chat": "team chat",
    "last_word": "last word",
    "last_words": "last words",
    "introductions": "introduction",
    "plea": "final plea",
    "explain": "why they named them",
    "final_vote": "final vote",
    "revote": "re-vote",
}
"""A speech's or a vote's kind in words, where its id does not read as one; any other
kind is written as its id with spaces for underscores (`kind_words`)."""

CHANNEL_WORDS = {
    "mafia": "the mafia's channel",
    "roommates": "the roommates' channel",
    "gm": "game master",
    "pm": "private message",
    "watch": "your watch",
}
"""The engine's private channels that are not a night step, in words (`channel_words`):
Palermo's team channels, the forum game's game master and private messages, a watch's
sighting."""


def kind_words(kind: str) -> str:
    """A speech's or a vote's `kind` as a person reads it: "night_chat" is "team chat"."""
    return KIND_WORDS.get(kind) or kind.replace("_", " ")


def channel_words(channel: str | None, names: DisplayNames) -> str:
    """Whose a private line is, as a person reads it: a night step's channel by the
    step's name (`names`: "the mafia's kill"), the engine's other channels by
    `CHANNEL_WORDS`, any other by its id with spaces, and a line without a channel (a
    seat's own card, its allies) "private".

    Why here and not on the page: the terminal writes the words before the line
    (`private_tag`) and the web page shows the same words as the line's tag, sent with
    the line (`web.render.lines`); a page that turned ids into words read "mafia kill"
    where the lines say "the mafia's kill", and a new channel showed as its id."""
    if channel is None:
        return "private"
    return names.steps.get(channel) or CHANNEL_WORDS.get(channel) or channel.replace("_", " ")


_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
"""A player's quoted words in a line (`views.words.quote_speech`: one JSON string)."""


def tag_words(channel: str | None, line: str, names: DisplayNames) -> str:
    """The words a private `line` of `channel` is tagged with (`channel_words`), or ""
    where the line already says them outside a player's quoted words: "Team picks for
    the mafia's kill", "Your night action (the doctor's protection)", "Private message
    P1 → P2", "Game master to you".

    Why: the tag came before every private line, so those lines read the same words
    twice ("[the mafia's kill] [N1] Team picks for the mafia's kill"); a line that says
    whose it is needs no tag. A player's words never count: a team chat that names its
    step keeps its tag."""
    words = channel_words(channel, names)
    outside_quotes = _QUOTED.sub("", line).casefold()
    return "" if words.casefold() in outside_quotes else words


def private_tag(event: SeatEvent, names: DisplayNames, line: str) -> str:
    """The tag before a private `line` of the seat's in the terminal and the command
    line's view of one seat (``"[the mafia's kill] "``, `tag_words`); empty for a public
    line and for one that says whose it is itself."""
    words = tag_words(event.channel, line, names) if event.private else ""
    return f"[{words}] " if words else ""


def audience_tag(event: Event, names: DisplayNames, line: str) -> str:
    """Whose a private `line` of the whole log is and who saw it, as the moderator's
    view tags it and the command line's omniscient transcript writes it in brackets:
    "the mafia's kill: P1, P2" (`tag_words` and the seats; only the seats where the
    line says whose it is, or where it has no channel); "" for a public line."""
    visibility = event.visibility
    if visibility.scope != "seats":
        return ""
    seen_by = ", ".join(name(s) for s in sorted(visibility.seats))
    words = tag_words(visibility.channel, line, names) if visibility.channel else ""
    if not seen_by:
        return words or channel_words(visibility.channel, names)
    return f"{words}: {seen_by}" if words else seen_by


def people_tag(phase: str, day: int) -> str:
    """A line's date for people: `phase_tag`'s, and ``[N0] `` for a line of the forum
    game's Night 0 (phase ``night`` on day 0), which `phase_tag` leaves undated."""
    if not day and phase == "night":
        return "[N0] "
    return phase_tag(phase, day)


def _step(variant: Variant | None, step_name: object) -> NightStep | None:
    """The variant's night step of that name, if the variant is given and has it."""
    steps = () if variant is None else variant.night
    return next((s for s in steps if s.name == step_name), None)


def acts_alone(
    event: SeatEvent | Event,
    variant: Variant | None = None,
    knowledge: Knowledge | None = None,
) -> bool:
    """Did a team step's line (`GroupPicks`, a team's `NightAction`) come from a team of
    one (a lone detective, the last mafioso)? Then the line reads as a single player's
    ("Your pick for ...", "Your night action"), not a team's.

    The one decision every such line takes, from what its reader knows: a night action
    lists the seats that acted; the whole log's picks (no seat's view: the command
    line's omniscient transcript, the moderator's replay) go to exactly the team asked;
    a seat's picks are its own alone when they name no other seat and the seat's view
    (`knowledge`) knew no living ally who held one of the step's roles when the picks
    reached it (`_known_then`). Without `knowledge`, a seat's picks read as a team's:
    never a single player's by guess."""
    fact = event.fact
    if isinstance(fact, NightAction):
        return len(fact.seats) == 1
    if not isinstance(fact, GroupPicks):
        return False
    if isinstance(event, Event):
        return len(event.visibility.seats) == 1
    step = _step(variant, fact.step)
    if knowledge is None or step is None or set(fact.picks) - {knowledge.seat}:
        return False
    then = _known_then(knowledge, event)
    return not any(then.alive[seat] for seat, role in then.allies.items() if role in step.actors)


def _known_then(knowledge: Knowledge, event: SeatEvent) -> Knowledge | KnowledgeFold:
    """What the seat knew when `event` reached it: its view folded up to that event
    (`knowledge` itself where the event is not in its stream).

    Why not `knowledge` as it is: the lines are drawn again from a later view (a page
    that reconnects, the terminal's lines shown at the seat's next turn, the view after
    the game), and an ally who passed and died later read as never there, so the same
    picks said "Team picks" live and "Your pick" afterwards."""
    events = knowledge.events
    index = next((i for i in reversed(range(len(events))) if events[i] is event), None)
    if index is None or index == len(events) - 1:
        return knowledge
    fold = KnowledgeFold(knowledge.seat)
    fold.extend(events[: index + 1])
    return fold


def people_line(
    event: SeatEvent | Event,
    viewer: int | None,
    names: DisplayNames,
    variant: Variant | None = None,
    game: Game | None = None,
    knowledge: Knowledge | None = None,
) -> str | None:
    """One line for `event` as a person reads it (see the module), or None where the
    transcript has none. `variant` gives a team's picks the number of rounds (without
    it: "round 1", as the transcript writes it); `game`, the finished game, gives the
    end its reason (without it the end's line is the transcript's); `knowledge`, the
    viewer's view, tells its own picks of a team of one (`acts_alone`)."""
    fact = event.fact
    prefix = people_tag(event.phase, event.day)
    if isinstance(fact, SpeechMade) and fact.kind != "discussion":
        return f"{prefix}{name(fact.seat)} ({kind_words(fact.kind)}): {quote_speech(fact.text)}"
    if isinstance(fact, Votes):
        votes = ", ".join(f"{name(v)}→{name(t)}" for v, t in fact.votes.items())
        return f"{prefix}Votes ({kind_words(fact.kind)}): {votes}."
    if isinstance(fact, GroupPicks):
        return _group_picks(fact, prefix, names, variant, acts_alone(event, variant, knowledge))
    if isinstance(fact, NightAction) and fact.team and acts_alone(event):
        plain = render_event(event, viewer, names, prefix=prefix) or ""
        return plain.replace(f"{prefix}Your team's night action", f"{prefix}Your night action", 1)
    if isinstance(fact, GameEnded) and game is not None:
        return game_over_line(fact, names, end_reason(game, fact))
    return render_event(event, viewer, names, prefix=prefix)


def seat_line(
    event: SeatEvent,
    knowledge: Knowledge,
    names: DisplayNames,
    variant: Variant,
    game: Game | None = None,
) -> str | None:
    """A line of one seat's view as it is printed for a person, whose it is first
    (`private_tag`) and then the line (`people_line`, read with the seat's `knowledge`,
    which must hold `event`): the terminal game and the command line's ``play --seat``
    and ``replay --seat`` print the same lines; None where the transcript has none."""
    line = people_line(event, knowledge.seat, names, variant, game, knowledge)
    return private_tag(event, names, line) + line if line else None


def log_line(
    event: Event, names: DisplayNames, variant: Variant, game: Game | None = None
) -> str | None:
    """A line of the whole log as the command line's omniscient ``play`` and ``replay``
    print it: a private one after whose it is and who saw it, in brackets, as the
    moderator's view tags it (`audience_tag`: "[the mafia's kill: P1, P2] "); None
    where the transcript has none."""
    line = people_line(event, None, names, variant, game)
    if not line:
        return None
    tag = audience_tag(event, names, line)
    return f"[{tag}] {line}" if tag else line


def _group_picks(
    fact: GroupPicks, prefix: str, names: DisplayNames, variant: Variant | None, alone: bool
) -> str:
    """A team's picks, the round of how many (the step's `rounds`) where `variant`
    names the step: "Team picks for the mafia's kill (round 1 of 3): P1→P7, P2→P5.";
    no round where the step has one ("Team picks for the mafia's kill: P1→P7."); a team
    of one's (`alone`) as the player's own: "Your pick for the detectives' check: P3."."""
    step = _step(variant, fact.step)
    if step is None:
        rounds = f" (round {fact.round})"
    elif step.rounds > 1:
        rounds = f" (round {fact.round} of {step.rounds})"
    else:
        rounds = ""
    if alone:
        chosen = ", ".join(choice_text(c) for c in fact.picks.values()) or "none"
        return f"{prefix}Your pick for {names.step(fact.step)}{rounds}: {chosen}."
    picks = ", ".join(f"{name(s)}→{choice_text(c)}" for s, c in fact.picks.items())
    return f"{prefix}Team picks for {names.step(fact.step)}{rounds}: {picks}."


Answered = Callable[[GroupPicks], Mapping[int, str] | None]
"""How the members asked in a round of picks answered, as the host knows it: for a
round's `GroupPicks`, seat → ``player`` or ``bot`` (the seat's own decision),
``stand-in`` (the bot that plays for an absent person), ``removed`` (disqualified after
answering: the answer was dropped), or the reason a default was played instead
(``timeout``, ``absent``, a bot's fallback); None where the host cannot tell. The web
table gives it (`web.session.GameSession.answered`): its clocks, absences and stand-ins
are what a seat's picks do not show."""

OWN_ANSWER = frozenset({"player", "bot"})
"""`Answered`'s words for a member's own decision."""


def team_round_prompt(
    request: Request, knowledge: Knowledge, variant: Variant, answered: Answered | None = None
) -> str:
    """The prompt a person is shown for `request`: the engine's, and for a team's later
    round of picks at a night step, which round it is and why it is asked ("Night 1:
    choose tonight's victim (round 2 of 2: the team did not agree)"); the web page and
    the terminal game both show it (`people_prompt`).

    The engine asks every round with the same words, so a person read the second
    round as their first click lost. The round is known from the seat's own record of
    its team's picks tonight (`Knowledge.team_picks`: the previous round's `GroupPicks`,
    shown to the team before it is asked again); the number of rounds from the
    variant's public rules; why, from those picks (`_why_again`) and, where the host
    says how each member answered (`answered`), from what happened
    (`_why_answered`). Added here, not in the engine: the request's prompt is part of
    every stored log, which must replay unchanged, and of the prompt a model reads."""
    if not request.kind.startswith("night:") or knowledge.phase != "night":
        return request.prompt
    step_name = request.info.get("step")
    done = [
        picks
        for day, picks in knowledge.team_picks
        if day == knowledge.day and picks.step == step_name
    ]
    step = _step(variant, step_name)
    if not done or step is None:
        return request.prompt
    last = max(done, key=lambda picks: picks.round)
    how = answered(last) if answered is not None else None
    if how is None:
        why = _why_again(last, knowledge.seat)
    else:
        why = _why_answered(last, knowledge, how, _knows_every_actor(knowledge, variant, step))
    return f"{request.prompt} (round {last.round + 1} of {step.rounds}: {why})"


def _why_again(picks: GroupPicks, seat: int) -> str:
    """Why a team is asked again after `picks`, as far as they show it: different
    picks ("the team did not agree"), the seat's own pick missing ("you passed or did
    not answer in time"), else a teammate's ("a teammate passed or did not answer in
    time"; the engine asks again when picks differ or a member asked did not pick).

    Which it was, a pass or the clock, the picks do not say (each is recorded only in
    the host's log), and which teammate was asked neither (a blocked one is not): the
    words say no more than the seat was shown."""
    reasons = []
    if len(set(picks.picks.values())) > 1:
        reasons.append("the team did not agree")
    if seat not in picks.picks:
        reasons.append("you passed or did not answer in time")
    if not reasons:
        reasons.append("a teammate passed or did not answer in time")
    return "; ".join(reasons)


def _why_answered(
    picks: GroupPicks, knowledge: Knowledge, how: Mapping[int, str], knows_team: bool
) -> str:
    """Why a team is asked again after `picks`, from how each member asked answered
    (`Answered`), saying no more of a teammate than the seat may know: "the team did not
    agree" where the members' own picks (a stand-in's too) differ; what happened to the
    seat's own answer ("you did not answer in time", "you were away"); a teammate whose
    pick the seat was shown but was a default ("a teammate did not answer in time (a
    random pick was made)"); and, where nothing of that explains the round, what
    happened to the one living teammate with no pick shown ("a teammate is away", "a
    teammate's stand-in passed"), else the words of the picks alone (`_why_again`).

    Why: from the picks alone, a teammate whose clock ran out or who was replaced read
    "a teammate passed or did not answer in time", and one whose timeout drew a random
    default (club's kills) "the team did not agree"; neither is what happened. Why no
    more: whether a teammate with no pick shown was asked the seat was not shown (a
    blocked one is not, and the block is another side's secret). Words for such a
    teammate where another reason is given, or where two teammates show no pick, would
    tell an asked one from a blocked one; where they are the only reason and one
    teammate shows no pick, the round itself says that one was asked, but only where
    the seat knows every member the step may ask (`knows_team`, `_knows_every_actor`):
    a member it does not know could be the one who did not pick, while the known
    teammate sat blocked. A member removed after answering gives no reason: the engine
    does not ask again for that."""
    seat = knowledge.seat
    defaulted = {s for s, by in how.items() if by not in OWN_ANSWER and by != "stand-in"}
    chosen = {pick for s, pick in picks.picks.items() if s not in defaulted}
    reasons = ["the team did not agree"] if len(chosen) > 1 else []
    shown = [seat] if seat in how else []
    shown += sorted(s for s in how if s != seat and s in picks.picks)  # asked, as shown
    for member in shown:
        words = _answer_words(how[member], member == seat, member in picks.picks)
        if words and words not in reasons:
            reasons.append(words)
    if reasons:
        return "; ".join(reasons)
    lacking = [s for s in _living_teammates(knowledge) if s not in picks.picks]
    if knows_team and len(lacking) == 1 and lacking[0] in how:
        words = _answer_words(how[lacking[0]], False, False)
        if words:
            return words
    return _why_again(picks, seat)


def _knows_every_actor(knowledge: Knowledge, variant: Variant, step: NightStep) -> bool:
    """Whether the seat's role knows the holders of every role `step` wakes (its
    ``knows_roles``), so that every member the step may ask is among the seat's allies.

    Why: a variant may wake roles together that do not know one another (a hitman the
    mafiosi were never shown); one of them who did not pick explains a second round as
    well as a known teammate does, and the seat cannot tell which it was."""
    role = variant.roles.get(knowledge.role) if knowledge.role is not None else None
    return role is not None and set(step.actors) <= set(role.knows_roles)


def _living_teammates(knowledge: Knowledge) -> list[int]:
    """The seats the seat knows as its allies and alive, itself left out."""
    alive = knowledge.alive
    return [s for s in knowledge.allies if s != knowledge.seat and (s >= len(alive) or alive[s])]


def _answer_words(by: str, you: bool, picked: bool) -> str:
    """What happened to one member's answer (`Answered`'s `by`), for the seat itself
    (`you`) or a teammate, given whether the round's picks hold a pick of theirs: ""
    where nothing calls for another round (their own pick, a removal)."""
    if by == "removed" or (picked and (by in OWN_ANSWER or by == "stand-in")):
        return ""
    if by in OWN_ANSWER:
        return "you passed" if you else "a teammate passed"
    if by == "stand-in":
        return "your stand-in passed" if you else "a teammate's stand-in passed"
    if by == "timeout":
        said = "you did not answer in time" if you else "a teammate did not answer in time"
    elif by == "absent":
        said = "you were away" if you else "a teammate is away"
    else:
        said = "your answer failed" if you else "a teammate's answer failed"
    return said + (" (a random pick was made)" if picked else "")


_PALERMO_TURN = re.compile(r".+? of round \d+: ")
"""The engine's date on a Palermo turn ("Night, before midnight of round 2: ")."""

_PALERMO_CLOCK = {"night_early": "before midnight", "night_late": "midnight to 02:00"}
"""The forum clock of the timed phases whose words do not give it (rules 3.2)."""


def people_prompt(
    request: Request, knowledge: Knowledge, variant: Variant, answered: Answered | None = None
) -> str:
    """The prompt a person is shown for `request` (the terminal game and the web page):
    a team's later round counted (`team_round_prompt`), and a Palermo turn dated as
    its header and its lines are: "Early night 1 (before midnight): one move, or done."
    where the engine writes "Night, before midnight of round 2: one move, or done."
    (`views.words.palermo_when`: round n's night is Night n-1, rules 3.1), so the
    prompt and the header do not give one moment two numbers. The engine's prompt is
    kept for the log and a model's prompt (see `team_round_prompt`, which `answered`
    is handed to)."""
    phase = request.info.get("phase")
    when = palermo_when(phase, knowledge.day) if variant.palermo is not None else None
    dated = _PALERMO_TURN.match(request.prompt) if request.kind == "turn" else None
    if when is None or dated is None or not isinstance(phase, str):
        return team_round_prompt(request, knowledge, variant, answered)
    clock = _PALERMO_CLOCK.get(phase)
    said = when[0].upper() + when[1:] + (f" ({clock})" if clock else "")
    return f"{said}: {request.prompt[dated.end() :]}"
