"""Text views: a compact, append-only transcript of what one seat knows.

Player words (speech, a described manner of death) are always written as one JSON
string (:func:`quote_speech`): inside it a quotation mark is ``\\"`` and a line break
is ``\\n`` (``\\u2028`` and the like for the Unicode line breaks), so whatever a
player types stays inside its own quotation on its own line and can never close the
quotation early or start a line that reads as the host's.

The transcript only grows (events are rendered in log order and never rewritten), so an
LLM prompt built from it keeps a stable prefix between turns and server-side prompt
caching works. The lines people read in the terminal game and in ``mafia-arena play``
and ``replay`` start from these (`views.people_text`: kinds in words, the forum game's
Night 0 dated, a team's rounds counted, why the game ended) and leave them unchanged.

Roles, intrigue cards and night steps are written by the variant's own names where it
gives one (`views.display_names`: "Known Mafioso A", "Echo from Beyond", "the mafia's
kill"), the id kept beside the name on the lines that tell a seat its own role or card;
a seat's tracker hands its game's names to the seat's transcript, and `render_event`
without them writes the ids.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from mafia_arena.engine.catalogue import (
    Absence,
    Allies,
    Ballot,
    Blocked,
    CardDealt,
    CardPlayed,
    CardsShown,
    Death,
    Disqualified,
    FloorGranted,
    GameEnded,
    GroupPicks,
    LastDeadDecision,
    Narration,
    NightAction,
    NightResult,
    NoDeath,
    NoExecution,
    Nomination,
    NominationTally,
    Nominees,
    OracleAnswer,
    PhaseStart,
    Protected,
    Reveal,
    RoleChange,
    RoleDealt,
    Runoff,
    Setup,
    Silenced,
    SpeechMade,
    StateChanged,
    UsageRecord,
    Votes,
)
from mafia_arena.engine.choices import Request
from mafia_arena.engine.events import Event, SeatEvent
from mafia_arena.views.display_names import PLAIN, DisplayNames
from mafia_arena.views.forum_text import FORUM_RENDER
from mafia_arena.views.words import name as name
from mafia_arena.views.words import phase_tag
from mafia_arena.views.words import quote_speech as quote_speech

if TYPE_CHECKING:  # the fold's transcript renders with this module: types only here
    from mafia_arena.views.knowledge import Knowledge
    from mafia_arena.views.view import View


def choice_text(key: str) -> str:
    """``target:4`` → ``P5``; ``kill:2`` → ``kill P3``; speech acts by their key."""
    parts = key.split(":")
    if len(parts) >= 2 and parts[1].isdigit():
        who = name(int(parts[1]))
        return who if parts[0] == "target" else f"{parts[0]} {who}"
    return key


def render_event(
    event: SeatEvent | Event,
    viewer: int | None = None,
    names: DisplayNames = PLAIN,
    *,
    prefix: str | None = None,
) -> str | None:
    """One line for an event (as a seat or the host sees it), or None for events that
    carry nothing to read. `names`: the variant's readable names for role, card and
    night step ids (`views.display_names`; a seat's transcript gets its game's from its
    tracker); without them every id is written as it is. `prefix`: the line's date
    where the caller writes its own (`views.people_text`); None, as every transcript
    and prompt renders it: `phase_tag`'s."""
    fact = event.fact
    render = _RENDER.get(type(fact))
    if render is None:
        return None
    if prefix is None:
        prefix = phase_tag(event.phase, event.day)
    return render(fact, prefix, names)


def _setup(f: Setup, prefix: str, names: DisplayNames) -> str:
    comp = ", ".join(f"{c} {names.role(r)}" for r, c in f.composition.items())
    return f"Game of {f.variant} with {f.players} players: {comp}."


def _role(f: RoleDealt, prefix: str, names: DisplayNames) -> str:
    """The seat's own role: by its name with the id beside it (`DisplayNames`), so the
    line meets the rules text's role list, which goes by id."""
    party = f.faction if f.faction is not None else "your party is not told"
    shown = names.roles.get(f.role)
    if shown is None:
        return f"You are {name(f.seat)}; your role is {f.role} ({party})."
    return f"You are {name(f.seat)}; your role is {shown} ({f.role}; {party})."


def _allies(f: Allies, prefix: str, names: DisplayNames) -> str:
    allies = ", ".join(f"{name(s)} ({names.role(r)})" for s, r in f.allies.items())
    return f"You know: {allies or 'nobody'}."


def _phase(f: PhaseStart, prefix: str, names: DisplayNames) -> str:
    return f"--- {f.phase.capitalize()} {f.number} ---"


_DEATH_HOW = {
    "night": "was killed in the night",
    "execution": "was executed",
    "disqualification": "leaves the game",
    "murder": "was murdered",
    "jail": "was thrown into jail and leaves the game",
    "deposed": "was overthrown and leaves the game",
    "attack": "died in the attack",
    "attacker": "blew himself up",
}


def _death(f: Death, prefix: str, names: DisplayNames) -> str:
    how = _DEATH_HOW.get(f.cause, f"died ({f.cause})")
    text = f"{prefix}{name(f.seat)} {how}"
    if f.manner is not None:
        text += f": {quote_speech(f.manner)}"
    return text + (f". Role: {names.role(f.role)}." if f.role is not None else ".")


def _reveal(f: Reveal, prefix: str, names: DisplayNames) -> str:
    return f"{prefix}{name(f.seat)}'s card: {names.role(f.role)}."


def _text(
    f: NoDeath | Runoff | LastDeadDecision | Narration | Disqualified | Protected,
    prefix: str,
    names: DisplayNames,
) -> str:
    return f"{prefix}{f.text}"


def _silenced(f: Silenced, prefix: str, names: DisplayNames) -> str:
    return f"{prefix}Silenced today: {', '.join(name(s) for s in f.seats)}."


def _speech(f: SpeechMade, prefix: str, names: DisplayNames) -> str:
    where = "" if f.kind == "discussion" else f" ({f.kind})"
    return f"{prefix}{name(f.seat)}{where}: {quote_speech(f.text)}"


def _running_total(tally: Mapping[int, int]) -> str:
    """`` Running total: P2 1, P4 3.``: the count so far, where the rules make it public."""
    return " Running total: " + ", ".join(f"{name(s)} {c}" for s, c in tally.items()) + "."


def _nomination(f: Nomination, prefix: str, names: DisplayNames) -> str:
    line = f"{prefix}{name(f.seat)} nominates {name(f.target)}."
    return line if f.tally is None else line + _running_total(f.tally)


def _nomination_tally(f: NominationTally, prefix: str, names: DisplayNames) -> str:
    tally = ", ".join(f"{name(s)} {c}" for s, c in f.tally.items())
    return f"{prefix}Nominations (round {f.round}): {tally}."


def _ballot(f: Ballot, prefix: str, names: DisplayNames) -> str:
    """The ballot, with the running total only where the rules make it public
    (`Ballot.total_public`: club 6.1); other variants' ballots read as before."""
    again = " (re-vote)" if f.revote else ""
    line = f"{prefix}{name(f.seat)} votes against {name(f.target)}{again}."
    return line + _running_total(f.tally) if f.total_public else line


def _floor(f: FloorGranted, prefix: str, names: DisplayNames) -> str:
    tie = (
        f" (tied with {', '.join(name(s) for s in f.tied if s != f.seat)})"
        if len(f.tied) > 1
        else ""
    )
    return f"{prefix}{name(f.seat)} has the floor with a bid of {f.bid}{tie}."


def _nominees(f: Nominees, prefix: str, names: DisplayNames) -> str:
    return f"{prefix}Nominated for the final vote: " + " and ".join(name(s) for s in f.seats) + "."


def _votes(f: Votes, prefix: str, names: DisplayNames) -> str:
    votes = ", ".join(f"{name(v)}→{name(t)}" for v, t in f.votes.items())
    return f"{prefix}Votes ({f.kind}): {votes}."


def _no_execution(f: NoExecution, prefix: str, names: DisplayNames) -> str:
    return f"{prefix}Nobody is executed ({f.reason})."


def _group_picks(f: GroupPicks, prefix: str, names: DisplayNames) -> str:
    picks = ", ".join(f"{name(s)}→{choice_text(c)}" for s, c in f.picks.items())
    return f"{prefix}Team picks for {names.step(f.step)} (round {f.round}): {picks}."


def _night_action(f: NightAction, prefix: str, names: DisplayNames) -> str:
    """The step by its name; a step without one by its id with spaces ("mafia kill"),
    as this line has always written it."""
    whose = "Your team's" if f.team else "Your"
    step = names.steps.get(f.step) or f.step.replace("_", " ")
    return f"{prefix}{whose} night action ({step}): {', '.join(choice_text(c) for c in f.choices)}."


def _night_result(f: NightResult, prefix: str, names: DisplayNames) -> str:
    target = " & ".join(name(t) for t in f.targets)
    if f.attackers is not None:
        result = ", ".join(name(s) for s in f.attackers) or "nobody"
    else:
        result = f.result
    return f"{prefix}Result of your {f.action} on {target}: {result}."


def _blocked(f: Blocked, prefix: str, names: DisplayNames) -> str:
    return f"{prefix}You could not act tonight ({names.step(f.step)})."


def _role_change(f: RoleChange, prefix: str, names: DisplayNames) -> str:
    records = "".join(f" {_record(r, names)}" for r in f.inherited or ())
    return f"{prefix}Your role is now {names.role_and_id(f.role)}.{records}"


def _game_over(f: GameEnded, prefix: str, names: DisplayNames) -> str:
    return game_over_line(f, names)


def game_over_line(f: GameEnded, names: DisplayNames, why: str = "") -> str:
    """The end's line: who won and every card; with `why` (the lines people read,
    `views.people_text`), why it ended between the two. A transcript writes it without:
    a model's prompt keeps the text it always had."""
    roles = ", ".join(f"{name(s)} {names.role(r)}" for s, r in f.roles.items())
    outcome = f"{f.winner} won" if f.winner else "a draw"  # "citizens won", not "wins"
    because = f" Why it ended: {why.rstrip('.')}." if why else ""
    return f"Game over: {outcome}.{because} Roles: {roles}."


def _state(f: StateChanged, prefix: str, names: DisplayNames) -> str:
    ban = f" {name(f.seat)} is barred from the next game." if f.banned else ""
    if f.role is None:
        return f"{prefix}{f.text}{ban}"
    return f"{prefix}{f.text} {name(f.seat)}'s card: {names.role(f.role)}.{ban}"


def _card_played(f: CardPlayed, prefix: str, names: DisplayNames) -> str:
    return f"{prefix}{f.text}"


def _card(f: CardDealt, prefix: str, names: DisplayNames) -> str:
    if not f.card:
        return f"{prefix}You no longer hold an intrigue card."
    return f"{prefix}Your intrigue card: {names.card_and_id(f.card)}."


def _oracle(f: OracleAnswer, prefix: str, names: DisplayNames) -> str:
    about = "formally a mafioso" if f.question == "mafia" else f"the {names.role(f.question)}"
    return f"{prefix}Pythia: is {name(f.target)} {about}? {'Yes' if f.answer else 'No'}."


def _absence(f: Absence, prefix: str, names: DisplayNames) -> str:
    return (
        f"{prefix}{name(f.seat)} did not vote: absences {f.total} in all, {f.consecutive} in a row."
    )


def _cards_shown(f: CardsShown, prefix: str, names: DisplayNames) -> str:
    held = ", ".join(f"{name(s)} {names.card(c)}" for s, c in f.cards.items())
    return f"{prefix}Cards still held: {held or 'none'}."


_RENDER: dict[type, Callable[[Any, str, DisplayNames], str]] = {
    StateChanged: _state,
    CardPlayed: _card_played,
    CardDealt: _card,
    OracleAnswer: _oracle,
    Absence: _absence,
    CardsShown: _cards_shown,
    Setup: _setup,
    RoleDealt: _role,
    Allies: _allies,
    PhaseStart: _phase,
    Death: _death,
    Reveal: _reveal,
    NoDeath: _text,
    Silenced: _silenced,
    SpeechMade: _speech,
    Nomination: _nomination,
    NominationTally: _nomination_tally,
    Ballot: _ballot,
    FloorGranted: _floor,
    Runoff: _text,
    LastDeadDecision: _text,
    Narration: _text,
    Disqualified: _text,
    Nominees: _nominees,
    Votes: _votes,
    NoExecution: _no_execution,
    GroupPicks: _group_picks,
    NightAction: _night_action,
    NightResult: _night_result,
    Blocked: _blocked,
    RoleChange: _role_change,
    Protected: _text,
    GameEnded: _game_over,
    **FORUM_RENDER,
}


def _record(record: UsageRecord, names: DisplayNames) -> str:
    """An inherited usage record: "You take over its record for the doctor's
    protection: ..." (the step by its name, `names`)."""
    parts = [f"used {record.uses} time{'s' if record.uses != 1 else ''}"]
    if record.last is not None:
        parts.append(f"last on {name(record.last)} (night {record.last_night})")
    counts = ", ".join(f"{name(t)} {c}x" for t, c in record.counts.items())
    if counts:
        parts.append(f"picks: {counts}")
    return f"You take over its record for {names.step(record.step)}: {'; '.join(parts)}."


def render_transcript(knowledge: Knowledge) -> str:
    """The seat's transcript: its fold's lines (each event rendered once per seat)."""
    return knowledge.text()


def render_view(view: View) -> str:
    """The transcript followed by the current decision and its labelled choices."""
    return render_with_request(render_transcript(view.knowledge), view.seat, view.request)


def render_with_request(transcript: str, seat: int, request: Request | None) -> str:
    """`render_view` from its parts: the seat's `transcript` (its fold's text, which a
    driver holding the live fold reads without a snapshot) and its `request`."""
    if request is None:
        return transcript
    options = _options(request.labels, request.free_text)
    return f"{transcript}\n\nNOW ({name(seat)}): {request.prompt}\n{options}"


@lru_cache(maxsize=4096)
def _options(labels: tuple[str, ...], free_text: bool) -> str:
    """A request's numbered choices (and the free-text note), memoised: the engine
    offers the same label tuples all game (a speaking turn has some forty)."""
    options = "\n".join(f"  [{i}] {label}" for i, label in enumerate(labels))
    return options + ("\n  (or say anything in your own words)" if free_text else "")
