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
  team did not agree, the seat or a teammate passed or did not answer in time), the
  number of rounds from the variant's public rules;
- a team of one reads as a single player: "Your pick for the detectives' check" and
  "Your night action (...)", not "Team picks" and "Your team's" (`acts_alone`, the one
  decision every such line takes);
- a private line says whose it is (`channel_words`: "the mafia's kill", "game
  master"), the same words before the terminal's line and on the web page's tag;
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
    "acts_alone",
    "channel_words",
    "kind_words",
    "people_line",
    "people_prompt",
    "people_tag",
    "private_tag",
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


def private_tag(event: SeatEvent, names: DisplayNames) -> str:
    """The terminal's tag before a private line of the seat's (``"[the mafia's kill] "``,
    `channel_words`); empty for a public one."""
    return f"[{channel_words(event.channel, names)}] " if event.private else ""


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


def team_round_prompt(request: Request, knowledge: Knowledge, variant: Variant) -> str:
    """The prompt a person is shown for `request`: the engine's, and for a team's later
    round of picks at a night step, which round it is and why it is asked ("Night 1:
    choose tonight's victim (round 2 of 2: the team did not agree)"); the web page and
    the terminal game both show it (`people_prompt`).

    The engine asks every round with the same words, so a person read the second
    round as their first click lost. The round is known from the seat's own record of
    its team's picks tonight (`Knowledge.team_picks`: the previous round's `GroupPicks`,
    shown to the team before it is asked again); the number of rounds from the
    variant's public rules; why, from those picks alone (`_why_again`). Added here, not
    in the engine: the request's prompt is part of every stored log, which must replay
    unchanged, and of the prompt a model reads."""
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
    why = _why_again(last, knowledge.seat)
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


_PALERMO_TURN = re.compile(r".+? of round \d+: ")
"""The engine's date on a Palermo turn ("Night, before midnight of round 2: ")."""

_PALERMO_CLOCK = {"night_early": "before midnight", "night_late": "midnight to 02:00"}
"""The forum clock of the timed phases whose words do not give it (rules 3.2)."""


def people_prompt(request: Request, knowledge: Knowledge, variant: Variant) -> str:
    """The prompt a person is shown for `request` (the terminal game and the web page):
    a team's later round counted (`team_round_prompt`), and a Palermo turn dated as
    its header and its lines are: "Early night 1 (before midnight): one move, or done."
    where the engine writes "Night, before midnight of round 2: one move, or done."
    (`views.words.palermo_when`: round n's night is Night n-1, rules 3.1), so the
    prompt and the header do not give one moment two numbers. The engine's prompt is
    kept for the log and a model's prompt (see `team_round_prompt`)."""
    phase = request.info.get("phase")
    when = palermo_when(phase, knowledge.day) if variant.palermo is not None else None
    dated = _PALERMO_TURN.match(request.prompt) if request.kind == "turn" else None
    if when is None or dated is None or not isinstance(phase, str):
        return team_round_prompt(request, knowledge, variant)
    clock = _PALERMO_CLOCK.get(phase)
    said = when[0].upper() + when[1:] + (f" ({clock})" if clock else "")
    return f"{said}: {request.prompt[dated.end() :]}"
