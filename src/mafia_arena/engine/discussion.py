"""Speaking turns: day discussion in the variant's order, and night channel talk.

A turn accepts free text or a structured speech act (accuse, vouch, claim a role, claim
a check result, pass); an act is rendered to its canonical sentence, so everyone reads
text and the claim extractor can read any speech back.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from mafia_arena.engine.asking import ask_one
from mafia_arena.engine.catalogue import SpeechMade
from mafia_arena.engine.choices import Choice, Request, Speech
from mafia_arena.engine.events import PUBLIC, Visibility
from mafia_arena.engine.game import Flow, Game
from mafia_arena.engine.speech_acts import render_act, speech_acts


def speak_request(game: Game, seat: int, kind: str, prompt: str, max_chars: int = 1000) -> Request:
    """A speaking turn: free text, or one of the structured acts about living players."""
    living = game.state.living_seats()
    if seat in living:  # a dead speaker (a last word) speaks about all the living
        at = living.index(seat)
        living = living[:at] + living[at + 1 :]
    acts, labels = _acts_for(_vocabulary(game), living)
    return Request(
        seat, kind, prompt, acts, labels, default="pass", free_text=True, max_chars=max_chars
    )


def _vocabulary(game: Game) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(roles, check results) a speech act may name, kept in `game.derived`.

    Derived from the variant alone (immutable), so it is computed once per game instead
    of at every speaking turn.
    """
    vocabulary = game.derived.get("speech_vocabulary")
    if vocabulary is None:
        variant = game.variant
        roles = tuple(variant.roles)
        results = tuple(sorted({variant.appearance(r) for r in roles} | {"mafia", "innocent"}))
        vocabulary = game.derived["speech_vocabulary"] = (roles, results)
    return vocabulary


@lru_cache(maxsize=8192)
def _acts_for(
    vocabulary: tuple[tuple[str, ...], tuple[str, ...]], others: tuple[int, ...]
) -> tuple[tuple[Choice, ...], tuple[str, ...]]:
    """Speech acts about `others` with their sentences (the list is the same whoever
    speaks).

    Cached: the living sets repeat all game, and across games. Keyed by plain tuples:
    a `Variant` holds dicts and is not hashable."""
    roles, results = vocabulary
    acts = tuple(speech_acts(-1, others, roles, results))
    return acts, tuple(render_act(a) for a in acts)


def say(
    game: Game, seat: int, decision: Choice | Speech, kind: str, visibility: Visibility = PUBLIC
) -> None:
    """Record a speech as an event the `visibility` admits."""
    if isinstance(decision, Speech):
        text = decision.text.strip() or "I have nothing to add."
        act = decision.act.key if decision.act else None
    else:
        text, act = render_act(decision), decision.key
    game.emit(SpeechMade(seat, text, kind, act or None), visibility)


def speaking_order(game: Game, first: int, seats: Sequence[int]) -> list[int]:
    """`seats` in seat order starting from `first` and wrapping around."""
    ordered = sorted(seats)
    start = next((i for i, s in enumerate(ordered) if s >= first), 0)
    return ordered[start:] + ordered[:start]


def first_speaker_today(game: Game) -> int:
    """Day 1: the lowest living seat; later days: the next living seat after yesterday's."""
    state = game.state
    living = state.living()
    if state.first_speaker is None:
        first = living[0]
    else:
        later = [s for s in living if s > state.first_speaker]
        first = later[0] if later else living[0]
    state.first_speaker = first
    return first


def discussion(game: Game, rounds: int, kind: str = "discussion", topic: str = "") -> Flow:
    """`rounds` rounds; each living, non-silenced player speaks once per round (on the
    host's `topic`, if one is set: the club introductions' theme)."""
    state = game.state
    for round_no in range(rounds):
        speakers = [s for s in state.living() if s not in state.silenced_today]
        for seat in speaking_order(game, state.first_speaker or 0, speakers):
            if not state.alive(seat):
                continue
            prompt = f"Day {state.day}, {kind} round {round_no + 1} of {rounds}: your turn."
            if topic:
                prompt += f" Theme: {topic}."
            # `ask_one` inlined: the most frequent decision of a game, and the helper
            # costs a generator per turn. The speaker is alive, so never disqualified
            # before his turn; one disqualified during it has no answer and says nothing.
            decision = (yield {seat: speak_request(game, seat, "speak", prompt)}).get(seat)
            if decision is not None:
                say(game, seat, decision, kind)


def channel_chat(
    game: Game, members: list[int], rounds: int, visibility: Visibility, prompt: str
) -> Flow:
    """Night talk in a faction channel: members speak in seat order, seen by members."""
    for _ in range(rounds):
        for seat in members:
            decision = yield from ask_one(
                game, speak_request(game, seat, "night_chat", prompt, max_chars=500)
            )
            if decision is not None:
                say(game, seat, decision, "night_chat", visibility)
