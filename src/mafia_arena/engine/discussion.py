"""Speaking turns: day discussion under a named protocol, and night channel talk.

A turn accepts free text or a structured speech act (accuse, vouch, claim a role, claim
a check result, pass); an act is rendered to its canonical sentence, so everyone reads
text and the claim extractor can read any speech back.

Discussion protocols (`rules.params.DiscussionParams`, any variant's ``discussion``
step): ``round_robin`` (seat order from the day's first speaker), ``random`` (an order
drawn each round, logged), ``bidding`` (before each statement every speaker bids 0 to
``max_bid`` at once, request kind ``bid``; the highest bid gets the floor, a tie goes to
the tied seats the previous statement named, then by draw; a public `FloorGranted` says
who and with what bid), ``parallel`` (every speaker writes at once; the statements are
published together, in seat order). With ``intentions`` every living player is asked,
all at once, whom they would vote for now (request kind ``vote_intent``, undecided
allowed) before the day's first statement and after each statement (after each round
for ``parallel``); the answers are a host-only `VoteIntentions` that never counts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from mafia_arena.engine.asking import ask, ask_one, picked_seat, target_request
from mafia_arena.engine.catalogue import FloorGranted, SpeechMade, VoteIntentions
from mafia_arena.engine.choices import PASS, Choice, Request, Speech, shared_choice
from mafia_arena.engine.events import HOST, PUBLIC, Visibility
from mafia_arena.engine.game import Flow, Game
from mafia_arena.engine.speech_acts import render_act, speech_acts
from mafia_arena.rules.params import DiscussionParams

ROUND_ROBIN = DiscussionParams()
_SEAT_NAME = re.compile(r"\bP(\d+)\b")


def speak_request(game: Game, seat: int, kind: str, prompt: str, max_chars: int = 1000) -> Request:
    """A speaking turn: free text, or one of the structured acts about living players."""
    living = game.state.living_seats()
    # The acts by speaker for the current living seats. `living_seats` hands out one
    # tuple until someone dies, so an identity test replaces hashing the tuple.
    cached = game.derived.get("speech_acts")
    if cached is None or cached[0] is not living:
        fresh: dict[int, tuple[tuple[Choice, ...], tuple[str, ...]]] = {}
        cached = game.derived["speech_acts"] = (living, fresh)
    known = cached[1]
    found = known.get(seat)
    if found is None:  # the first turn of this speaker with these living players
        others = living
        if seat in others:  # a dead speaker (a last word) speaks about all the living
            at = others.index(seat)
            others = others[:at] + others[at + 1 :]
        found = known[seat] = _acts_for(_vocabulary(game), others)
    acts, labels = found
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
) -> SpeechMade:
    """Record a speech as an event the `visibility` admits; returns the fact."""
    if isinstance(decision, Speech):
        text = decision.text.strip() or "I have nothing to add."
        act = decision.act.key if decision.act else None
    else:
        text, act = _sentence(decision)
    fact = SpeechMade(seat, text, kind, act or None)
    game.emit(fact, visibility)
    return fact


_SENTENCES: dict[int, tuple[Choice, tuple[str, str]]] = {}


def _sentence(act: Choice) -> tuple[str, str]:
    """(sentence, key) of a speech act, kept by identity: the engine offers shared
    choices (`shared_choice`), and an identity lookup skips the dataclass hash that
    `render_act`'s cache computes. The entry holds its choice, so its id stays unique;
    a choice built elsewhere (parsed from a log) is rendered without being kept."""
    known = _SENTENCES.get(id(act))
    if known is not None and known[0] is act:
        return known[1]
    found = render_act(act), act.key
    if shared_choice(act.verb, act.target, act.value) is act:
        _SENTENCES[id(act)] = (act, found)
    return found


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


def discussion(
    game: Game,
    rounds: int,
    kind: str = "discussion",
    topic: str = "",
    protocol: DiscussionParams = ROUND_ROBIN,
) -> Flow:
    """`rounds` rounds under `protocol` (module docstring); each living, non-silenced
    player makes one statement per round (on the host's `topic`, if one is set: the club
    introductions' theme)."""
    talk = _Talk(game, kind, topic, rounds, protocol)
    if protocol.intentions:
        yield from talk.poll(())
    for round_no in range(rounds):
        speakers = [s for s in game.state.living() if s not in game.state.silenced_today]
        if protocol.order == "parallel":
            yield from talk.parallel(round_no, speakers)
        elif protocol.order == "bidding":
            for _ in speakers:
                yield from talk.bid_turn(round_no)
        else:
            if protocol.order == "random":
                order = game.sample(
                    f"{kind} round {round_no + 1}: speaking order", speakers, len(speakers)
                )
            else:
                order = speaking_order(game, game.state.first_speaker or 0, speakers)
            for seat in order:
                yield from talk.turn(round_no, seat)


class _Talk:
    """One discussion step's state: the statements so far and the last one's text."""

    def __init__(
        self, game: Game, kind: str, topic: str, rounds: int, protocol: DiscussionParams
    ) -> None:
        self.game, self.kind, self.topic = game, kind, topic
        self.rounds, self.protocol = rounds, protocol
        self.statements = 0
        self.last_text = ""
        self._prompts: dict[int, str] = {}

    def _prompt(self, round_no: int) -> str:
        """The turn prompt of round `round_no`, built once per round: a discussion step
        runs within one day, so every speaker of a round reads the same words."""
        prompt = self._prompts.get(round_no)
        if prompt is None:
            day = self.game.state.day
            prompt = f"Day {day}, {self.kind} round {round_no + 1} of {self.rounds}: your turn."
            if self.topic:
                prompt += f" Theme: {self.topic}."
            self._prompts[round_no] = prompt
        return prompt

    def _can_speak(self, seat: int) -> bool:
        state = self.game.state
        return state.alive(seat) and seat not in state.silenced_today

    def turn(self, round_no: int, seat: int) -> Flow:
        """One statement by `seat` (then the intentions poll, if on)."""
        game = self.game
        state = game.state
        if not state.seats[seat].alive or seat in state.silenced_today:  # `_can_speak`
            return
        # `ask_one` inlined: the most frequent decision of a game, and the helper costs
        # a generator per turn. The speaker is alive, so never disqualified before his
        # turn; one disqualified during it has no answer and says nothing.
        prompt = self._prompts.get(round_no) or self._prompt(round_no)
        request = speak_request(game, seat, "speak", prompt)
        decision = (yield {seat: request}).get(seat)
        if decision is not None:
            self.last_text = say(game, seat, decision, self.kind).text
            self.statements += 1
            if self.protocol.intentions:
                yield from self.poll((seat,))

    def parallel(self, round_no: int, speakers: Sequence[int]) -> Flow:
        """Everyone writes at once; the statements are published together, seat order."""
        prompt = self._prompt(round_no) + " Everyone speaks at once this round."
        requests = {s: speak_request(self.game, s, "speak", prompt) for s in speakers}
        answers = yield from ask(self.game, requests)
        spoke = []
        for seat in sorted(answers):
            if self._can_speak(seat):
                say(self.game, seat, answers[seat], self.kind)
                spoke.append(seat)
                self.statements += 1
        if spoke and self.protocol.intentions:
            yield from self.poll(tuple(spoke))

    def bid_turn(self, round_no: int) -> Flow:
        """Every speaker bids for the floor at once; the winner makes one statement."""
        game = self.game
        speakers = [s for s in game.state.living() if s not in game.state.silenced_today]
        if not speakers:
            return
        top = self.protocol.max_bid
        choices, labels = _bid_options(top)
        prompt = (
            f"Day {game.state.day}, {self.kind} round {round_no + 1}: bid 0-{top} for the next "
            "statement (the highest bid speaks)."
        )
        requests = {s: Request(s, "bid", prompt, choices, labels, default="pass") for s in speakers}
        answers = yield from ask(game, requests)
        bids = {s: _bid_value(answers.get(s)) for s in speakers if self._can_speak(s)}
        if not bids:
            return
        best = max(bids.values())
        tied = sorted(s for s, b in bids.items() if b == best)
        named = {int(m) - 1 for m in _SEAT_NAME.findall(self.last_text)}
        favoured = [s for s in tied if s in named] or tied
        seat = favoured[0] if len(favoured) == 1 else game.draw("floor: tied bids", favoured)
        game.emit(FloorGranted(seat, best, tuple(tied)), PUBLIC)
        yield from self.turn(round_no, seat)

    def poll(self, after: tuple[int, ...]) -> Flow:
        """Ask every living player's vote intention at once (host-only, never counts)."""
        game = self.game
        living = game.state.living()
        prompt = (
            f"Day {game.state.day}: a poll, not a vote (it is never counted or shown): whom "
            "would you vote to execute if the vote were now?"
        )
        requests = {
            s: target_request(
                game,
                s,
                "vote_intent",
                prompt,
                [t for t in living if t != s],
                allow_pass=True,
                pass_label="undecided",
            )
            for s in living
        }
        answers = yield from ask(game, requests)
        intents = {s: picked_seat(answers[s]) for s in sorted(answers)}
        game.emit(VoteIntentions(self.statements, after, intents), HOST)


@lru_cache(maxsize=16)
def _bid_options(top: int) -> tuple[tuple[Choice, ...], tuple[str, ...]]:
    """Bid 0 is the pass (a player who does not want the floor), then bids 1 … `top`."""
    choices = (PASS, *(shared_choice("bid", None, str(b)) for b in range(1, top + 1)))
    return choices, tuple(f"bid {b}" for b in range(top + 1))


def _bid_value(decision: object) -> int:
    if isinstance(decision, Choice) and decision.verb == "bid" and decision.value:
        return int(decision.value)
    return 0


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
