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
- a team's picks say which round of how many they were ("round 1 of 3"), and the
  terminal's request for a later round says why it is asked (`team_round_prompt`, as
  the web page does), the number of rounds from the variant's public rules;
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

from mafia_arena.engine.catalogue import GameEnded, GroupPicks, SpeechMade, Votes
from mafia_arena.engine.choices import Request
from mafia_arena.engine.events import Event, SeatEvent
from mafia_arena.engine.game import Game
from mafia_arena.rules import Variant
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.endings import end_reason
from mafia_arena.views.knowledge import Knowledge
from mafia_arena.views.text import choice_text, game_over_line, render_event
from mafia_arena.views.words import name, phase_tag, quote_speech

__all__ = ["KIND_WORDS", "kind_words", "people_line", "people_tag", "team_round_prompt"]

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


def kind_words(kind: str) -> str:
    """A speech's or a vote's `kind` as a person reads it: "night_chat" is "team chat"."""
    return KIND_WORDS.get(kind) or kind.replace("_", " ")


def people_tag(phase: str, day: int) -> str:
    """A line's date for people: `phase_tag`'s, and ``[N0] `` for a line of the forum
    game's Night 0 (phase ``night`` on day 0), which `phase_tag` leaves undated."""
    if not day and phase == "night":
        return "[N0] "
    return phase_tag(phase, day)


def people_line(
    event: SeatEvent | Event,
    viewer: int | None,
    names: DisplayNames,
    variant: Variant | None = None,
    game: Game | None = None,
) -> str | None:
    """One line for `event` as a person reads it (see the module), or None where the
    transcript has none. `variant` gives a team's picks the number of rounds (without
    it: "round 1", as the transcript writes it); `game`, the finished game, gives the
    end its reason (without it the end's line is the transcript's)."""
    fact = event.fact
    prefix = people_tag(event.phase, event.day)
    if isinstance(fact, SpeechMade) and fact.kind != "discussion":
        return f"{prefix}{name(fact.seat)} ({kind_words(fact.kind)}): {quote_speech(fact.text)}"
    if isinstance(fact, Votes):
        votes = ", ".join(f"{name(v)}→{name(t)}" for v, t in fact.votes.items())
        return f"{prefix}Votes ({kind_words(fact.kind)}): {votes}."
    if isinstance(fact, GroupPicks):
        return _group_picks(fact, prefix, names, variant)
    if isinstance(fact, GameEnded) and game is not None:
        return game_over_line(fact, names, end_reason(game, fact))
    return render_event(event, viewer, names, prefix=prefix)


def _group_picks(
    fact: GroupPicks, prefix: str, names: DisplayNames, variant: Variant | None
) -> str:
    """A team's picks, the round of how many (the step's `rounds`) where `variant`
    names the step: "Team picks for the mafia's kill (round 1 of 3): P1→P7, P2→P5."."""
    steps = () if variant is None else variant.night
    step = next((s for s in steps if s.name == fact.step), None)
    of = "" if step is None else f" of {step.rounds}"
    picks = ", ".join(f"{name(s)}→{choice_text(c)}" for s, c in fact.picks.items())
    return f"{prefix}Team picks for {names.step(fact.step)} (round {fact.round}{of}): {picks}."


def team_round_prompt(request: Request, knowledge: Knowledge, variant: Variant) -> str:
    """The prompt a person is shown for `request`: the engine's, and for a team's later
    round of picks at a night step, which round it is and why it is asked ("Night 1:
    choose tonight's victim (round 2 of 2: the team did not agree)"); the web page and
    the terminal game both show it.

    The engine asks every round with the same words, so a person read the second
    round as their first click lost. The round is known from the seat's own record of
    its team's picks tonight (`Knowledge.team_picks`: the previous round's `GroupPicks`,
    shown to the team before it is asked again); the number of rounds from the
    variant's public rules. Added here, not in the engine: the request's prompt is part
    of every stored log, which must replay unchanged, and of the prompt a model reads."""
    if not request.kind.startswith("night:") or knowledge.phase != "night":
        return request.prompt
    step_name = request.info.get("step")
    done = [
        picks.round
        for day, picks in knowledge.team_picks
        if day == knowledge.day and picks.step == step_name
    ]
    step = next((s for s in variant.night if s.name == step_name), None)
    if not done or step is None:
        return request.prompt
    return f"{request.prompt} (round {max(done) + 1} of {step.rounds}: the team did not agree)"
