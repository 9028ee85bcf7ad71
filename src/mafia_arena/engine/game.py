"""`Game`: a variant, a player count, a seed and the players' decisions → an event log.

The rules run as a generator (`engine.flow.play`) that yields the requests it needs and
receives the answers, so each procedure reads top to bottom like the rule text. The
game is pure: no I/O, and its only randomness is two seeded generators (the deal and
play), every draw of which is logged as a host event. `(variant, players, seed,
decisions)` therefore determines the log byte for byte, and a log replays.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Generator, Iterable, Mapping, Sequence
from typing import Any

from mafia_arena.engine.catalogue import DecisionRecord, Fact, RandomDraw
from mafia_arena.engine.choices import (
    PASS,
    SHARED_KEYS,
    Choice,
    Decision,
    Request,
    Speech,
    names_any,
)
from mafia_arena.engine.errors import (
    GameOver,
    IllegalDecision,
    IllegalDisqualification,
    IllegalModeration,
)
from mafia_arena.engine.events import HOST, PUBLIC, Event, SeatStream, Visibility
from mafia_arena.engine.per_variant import per_variant
from mafia_arena.engine.state import GameState, SeatState
from mafia_arena.rules import Variant
from mafia_arena.rules.composition import deck
from mafia_arena.rules.expressions import evaluate

Prompt = dict[int, Request]
Answers = dict[int, Decision]
Flow = Generator[Prompt, Answers, Any]


def seat_name(seat: int) -> str:
    """Players are called P1..Pn in every text; seats are 0-based internally."""
    return f"P{seat + 1}"


class Game:
    """One game of a variant. Drive it with `pending()` and `submit()`.

    `pending()` maps each seat that must decide now to its `Request`. `submit(seat,
    decision)` validates the decision against that request, raising `IllegalDecision`
    (state untouched) if it is not one of the legal choices; once every pending seat has
    answered, the rules advance to the next requests. Where the variant allows it, the
    host may also `disqualify` a player between any two decisions.
    """

    def __init__(
        self,
        variant: Variant,
        players: int,
        seed: int,
        *,
        deal: Sequence[str] | None = None,
        hands: Mapping[int, str] | None = None,
    ) -> None:
        if hands is not None and variant.palermo is None:
            raise ValueError("only a variant with intrigue cards takes a forced card deal")
        self.variant = variant
        self.players = players
        self.seed = seed
        self.events: list[Event] = []
        self.decisions: list[dict[str, Any]] = []
        self.derived: dict[Any, Any] = {}
        """Values the rule modules derive from the (immutable) variant and player count,
        computed on first use and kept for the game (e.g. the speech vocabulary)."""
        self.step_marks: list[tuple[int, int, str]] = []
        """``(night, event index, step name)`` where each night step that runs tonight
        starts in `events` (whether or not its role is alive), then ``"dawn"``. Host-side
        bookkeeping, not an event: drivers that must give every night the same visible
        structure (`engine.night_clock`) cut a seat's view at these points."""
        self.window_ends: list[tuple[int, tuple[int, ...]]] = []
        """``(event index, living seats)`` where each forum window's rounds ended, before
        its thread is published. Host-side bookkeeping, like `step_marks`: the envs give
        every window the same number of rounds (`env.forum_pace`) and cut a seat's view
        here while the rounds a window did not need are waited out."""
        self.form_checks: dict[str, Callable[[Request, Speech], str]] = {}
        """Checks of a free-text decision by request kind, installed by the rules that
        ask it (the forum's written forms, `engine.forum.window`): a non-empty reason
        refuses the decision as illegal, before anything changes."""
        self.rng = random.Random(f"{seed}:play")
        self.max_rounds: int = per_variant(
            variant,
            ("max_rounds", players),
            lambda: int(evaluate(str(variant.rules.max_rounds), {"n": players})),
        )
        cards = list(deck(variant, players)) if deal is None else list(deal)
        if deal is None:
            random.Random(f"{seed}:deal").shuffle(cards)
        elif sorted(cards) != sorted(deck(variant, players)):
            raise ValueError("forced deal does not match the variant's deck")
        self.state = GameState(
            seats=[
                SeatState(i, card, card, variant.roles[card].faction)
                for i, card in enumerate(cards)
            ]
        )
        if hands is not None:  # a forced card deal (Palermo tests), read by its setup
            self.derived["palermo_cards"] = dict(hands)
        self._pending: Prompt = {}
        self._answers: Answers = {}
        from mafia_arena.engine.extensions import hooks_for  # local: they import this module
        from mafia_arena.engine.flow import play
        from mafia_arena.engine.forum import play_forum

        self.hooks = hooks_for(variant)
        """The night primitives and trait hooks this variant uses (`engine.hooks`)."""

        self._flow: Flow = play_forum(self) if variant.rules.flow == "dictator" else play(self)
        self._advance(None)

    # ------------------------------------------------------------------ driving
    @property
    def over(self) -> bool:
        return self.state.over

    def pending(self) -> Prompt:
        """Requests still waiting for an answer, by seat (empty once the game is over)."""
        if not self._answers:
            return dict(self._pending)
        return {s: r for s, r in self._pending.items() if s not in self._answers}

    def request(self, seat: int) -> Request | None:
        """The seat's waiting request, or None (what `pending().get(seat)` gives, without
        building the map: the envs ask this for every seat on every step)."""
        if seat in self._answers:
            return None
        return self._pending.get(seat)

    def unanswered(self) -> int:
        """How many pending requests still wait for an answer (`len(pending())`,
        without building the map)."""
        return len(self._pending) - len(self._answers)

    def submit(self, seat: int, decision: Decision | str, *, fallback: str = "") -> None:
        """Record one seat's decision; advance when all pending seats have answered."""
        state = self.state
        if state.over:
            raise GameOver("the game is over")
        request = self._pending.get(seat)
        answers = self._answers
        if request is None or seat in answers:
            raise IllegalDecision(seat, self._why_not_pending(seat))
        if decision.__class__ is not Choice or not request.offers(decision):
            decision = self._validate(request, decision, fallback)  # (an offered one is)
        answers[seat] = decision
        kind = request.kind
        record: dict[str, Any]
        if decision.__class__ is Choice:
            key = SHARED_KEYS.get(id(decision)) or decision.key
            record = {"seat": seat, "kind": kind, "choice": key}
            if fallback:
                record["fallback"] = fallback
                fact = DecisionRecord(seat, kind, key, None, None, fallback)
            else:
                fact = DecisionRecord(seat, kind, key)
        else:
            text, act = decision.text, decision.act  # type: ignore[union-attr]
            record = {"seat": seat, "kind": kind, "text": text}
            if act is not None:
                record["act"] = act.key
            fact = DecisionRecord(seat, kind, None, text, record.get("act"), fallback or None)
            if fallback:
                record["fallback"] = fallback
        self.decisions.append(record)
        events = self.events  # `emit`, inlined: every decision logs one
        events.append(Event(len(events), state.day, state.phase, fact, HOST))
        if len(answers) == len(self._pending):
            self._answers = {}
            self._advance(answers)

    def resubmit(self, record: dict[str, Any]) -> None:
        """Submit a logged decision record again (the inverse of what `submit` logs).

        A fallback whose default was a random draw is redrawn with `submit_default`, so
        the game's RNG advances exactly as it did when the game was played. A host
        action (a record marked ``host``) is applied again at the same point.
        """
        if record.get("host"):
            self._host_action(record)
            return
        seat = record["seat"]
        request = self.request(seat)
        if (
            record.get("fallback")
            and request is not None
            and request.default == "random"
            and record.get("choice") is not None
        ):
            self.submit_default(seat, record["fallback"])
            return
        if "text" in record:
            act = Choice.parse(record["act"]) if "act" in record else None
            decision: Decision = Speech(record["text"], act)
        else:
            decision = Choice.parse(record["choice"])
        self.submit(seat, decision, fallback=record.get("fallback", ""))

    def submit_default(self, seat: int, reason: str = "timeout") -> Decision:
        """Record the request's default for `seat` (a timeout or an agent's fallback)."""
        request = self._pending.get(seat)
        if request is None or seat in self._answers:
            raise IllegalDecision(seat, self._why_not_pending(seat))
        if request.default == "random" and request.choices:
            decision: Decision = self.draw(f"fallback:{seat_name(seat)}", request.choices)
        else:
            decision = PASS
        self.submit(seat, decision, fallback=reason)
        return decision

    # ------------------------------------------------------------------ host actions
    def disqualify(self, seat: int, reason: str = "") -> None:
        """Remove `seat` from the game now, between two decisions (club 3.6, D34).

        Allowed where the variant's ``rules.disqualification`` switch is on, and in every
        Palermo game, whose moderator may always remove a player (the penalty exit of
        Palermo 4.4: permanently out, revealed, `engine.palermo.moderator`); raises
        `GameOver` after the end and `IllegalDisqualification` (the state untouched) for
        a missing or dead seat or a variant without the switch. The removal is recorded
        like a decision (a host ``decision`` event with ``host: true``), so `resubmit`
        and `runner.replay` apply it again at the same point. The rules' side (the
        announcement, the death with its card shown and its triggers, the win check) is
        in `engine.disqualification`. Then the waiting prompt is fitted to the smaller
        table: the seat's own request and answer are dropped, choices naming it are
        withdrawn from the other requests, an answer that named it is asked again, and
        the game advances if every remaining request is answered.
        """
        if self.state.over:
            raise GameOver("the game is over")
        why = self._why_not_removable(seat)
        if why:
            raise IllegalDisqualification(seat, why)
        record: dict[str, Any] = {"seat": seat, "kind": "disqualify", "host": True}
        if reason:
            record["reason"] = reason
        self.decisions.append(record)
        self.emit(DecisionRecord(**record), HOST)
        if self.variant.palermo is not None:  # the moderator's penalty exit (Palermo 4.4)
            from mafia_arena.engine.palermo.moderator import penalty  # local: imports this

            penalty(self, seat, reason)
        else:
            from mafia_arena.engine.disqualification import remove  # local: it imports this

            remove(self, seat, reason)
        self._fit_prompt()

    def moderate(self, kind: str, seat: int, value: str = "") -> None:
        """A ruling of the game's moderator between two decisions. The judgement is the
        host's; the effects are rules.

        - A forum game (dictator.md 8.4, 8.5.3, `engine.forum.moderation`):
          ``irrelevant`` (a post of this phase stops counting against inactivity;
          `value` its number among the seat's posts, empty for all), ``warning`` or
          ``forfeit`` (a sanction; `value` the reason).
        - Palermo (4.4, `engine.palermo.moderator`): ``sanction`` (the Active seat is
          imprisoned without a card, the vote kept; `value` the reason) and ``release``
          (only the moderator frees it; released while the CHANGE WINDOW waits, the seat
          is added to that prompt). Its penalty exit is `disqualify`.

        Raises `GameOver` after the end and `IllegalModeration` (the state untouched)
        for a ruling that is not possible now. Recorded like a decision (a host
        ``decision`` event with ``host: true``), so `resubmit` applies it again at the
        same point; a forfeit ends the game and closes the waiting prompt, a sanction
        takes the seat out of the waiting prompt.
        """
        if self.state.over:
            raise GameOver("the game is over")
        palermo = self.variant.palermo is not None
        if palermo:
            from mafia_arena.engine.palermo import moderator  # local: it imports this

            why = moderator.refusal(self, kind, seat, value)
        else:
            from mafia_arena.engine.forum import moderation  # local: it imports this

            why = moderation.refusal(self, kind, seat, value)
        if why:
            raise IllegalModeration(seat, why)
        record: dict[str, Any] = {"seat": seat, "kind": kind, "host": True}
        if value:
            record["reason"] = value
        self.decisions.append(record)
        self.emit(DecisionRecord(**record), HOST)
        if palermo:
            added = moderator.apply(self, kind, seat, value)
            self._fit_prompt({seat} if kind == "sanction" else (), added)
        else:
            moderation.apply(self, kind, seat, value)
            self._fit_prompt()

    def _host_action(self, record: dict[str, Any]) -> None:
        kind = record.get("kind")
        if kind == "disqualify":
            self.disqualify(record["seat"], record.get("reason", ""))
            return
        from mafia_arena.engine.forum.moderation import KINDS
        from mafia_arena.engine.palermo.moderator import KINDS as PALERMO_KINDS

        if kind not in KINDS and kind not in PALERMO_KINDS:
            raise ValueError(f"unknown host action {kind!r}")
        self.moderate(kind, record["seat"], record.get("reason", ""))

    def _why_not_removable(self, seat: int) -> str:
        if not self.variant.rules.disqualification and self.variant.palermo is None:
            return (
                f"the {self.variant.name} variant has no disqualification "
                "(rules.disqualification is off)"
            )
        if not 0 <= seat < self.players:
            return f"there is no seat {seat}"
        if not self.state.alive(seat):
            return f"{seat_name(seat)} is already out of the game"
        return ""

    def _fit_prompt(self, out_of_play: Collection[int] = (), added: Prompt | None = None) -> None:
        """Bring the waiting prompt in line with the removals (see `disqualify`), with
        `out_of_play`: seats taken out of play for now (a sanction), and with `added`:
        requests of seats brought back into play that the waiting prompt must ask too
        (a release during a phase that asks once), screened like the others."""
        if self.state.over:
            self._pending, self._answers = {}, {}
            self._flow.close()
            return
        removed = self.state.disqualified | set(out_of_play)
        prompt: Prompt = {}
        for seat, request in self._pending.items():
            screened = request.screened(removed)
            if screened is None:
                self._answers.pop(seat, None)
                continue
            prompt[seat] = screened
            if names_any(self._answers.get(seat), removed):
                del self._answers[seat]  # that choice is void: the seat chooses again
        for seat, request in (added or {}).items():
            screened = request.screened(removed)
            if screened is not None and seat not in prompt:
                prompt[seat] = screened
        self._pending = prompt
        if len(self._answers) == len(prompt):
            answers, self._answers = self._answers, {}
            self._advance(answers)

    def _why_not_pending(self, seat: int) -> str:
        if not 0 <= seat < self.players:
            return f"there is no seat {seat}"
        if seat in self._answers:
            return "you have already decided this turn"
        if not self.state.alive(seat):
            return "dead players cannot act"
        return "it is not your turn to act"

    def _validate(self, request: Request, decision: Decision | str, fallback: str = "") -> Decision:
        """`decision` as the engine applies it (text parsed), or `IllegalDecision`.

        A pass that `request` does not offer is taken only as a recorded fallback (a
        timeout, an agent's failure: its `default`), never as a seat's own choice: where
        abstaining is forbidden, an agent that sent it would otherwise abstain unrecorded.
        A speech's attached act must be one the request offers (`_act_refusal`), or what
        the kind's form check (the forum's written forms) admits.
        """
        if isinstance(decision, str):
            decision = (
                Choice.parse(decision)
                if ":" in decision or decision == "pass"
                else Speech(decision)
            )
        if isinstance(decision, Speech):
            if not request.free_text:
                raise IllegalDecision(
                    request.seat, "this decision needs one of the listed choices, not free text"
                )
            if len(decision.text) > request.max_chars:
                raise IllegalDecision(
                    request.seat, f"speech longer than {request.max_chars} characters"
                )
            check = self.form_checks.get(request.kind)
            reason = (
                check(request, decision)
                if check is not None
                else _act_refusal(request, decision.act)
            )
            if reason:
                raise IllegalDecision(request.seat, reason)
            return decision
        if request.offers(decision):
            return decision
        if decision == PASS and request.default == "pass" and fallback:
            return decision  # a recorded abstention where voting is otherwise mandatory
        raise IllegalDecision(
            request.seat,
            f"{decision.key!r} is not a legal choice; "
            f"legal: {', '.join(c.key for c in request.choices)}",
        )

    def _advance(self, answers: Answers | None) -> None:
        try:
            prompt = self._flow.send(answers) if answers is not None else next(self._flow)
        except StopIteration:
            self._pending = {}
            return
        self._pending = prompt

    # ------------------------------------------------------------------ used by rules
    def emit(self, fact: Fact, visibility: Visibility = PUBLIC) -> Event:
        """Append one catalogued fact to the log with its audience."""
        event = Event(len(self.events), self.state.day, self.state.phase, fact, visibility)
        self.events.append(event)
        return event

    def stream(self, seat: int) -> SeatStream:
        """A new stream of the events admitted to `seat` (see `SeatStream`)."""
        return SeatStream(self.events, seat)

    def draw(self, purpose: str, options: Iterable[Any]) -> Any:
        """A uniform draw from the game's RNG, logged as a host event."""
        options = list(options)
        result = options[self.rng.randrange(len(options))] if len(options) > 1 else options[0]
        self.emit(RandomDraw(purpose, [_jsonable(o) for o in options], _jsonable(result)), HOST)
        return result

    def sample(self, purpose: str, options: Sequence[Any], k: int) -> list[Any]:
        """k distinct uniform draws, logged."""
        result = self.rng.sample(list(options), k)
        self.emit(
            RandomDraw(purpose, [_jsonable(o) for o in options], [_jsonable(r) for r in result]),
            HOST,
        )
        return result

    def view_seats(self) -> range:
        return range(self.players)


def _act_refusal(request: Request, act: Choice | None) -> str:
    """Why a speech's attached `act` is refused on `request` ("" if it is not).

    The act is logged with the speech (its decision record; a discussion's `SpeechMade`
    event) as the structured act the words were made from, so one the turn does not
    offer (a kill on a speaking turn, a claim about a seat not in the game) would be
    logged as given: a speech carries no act, or one of `request.choices`. Refused like
    any illegal decision: the runner then records the request's default as a fallback.
    """
    if act is None or request.offers(act):
        return ""
    offered = ", ".join(c.key for c in request.choices) or "none"
    return f"attached act {act.key!r} is not offered on this turn; offered: {offered}"


def _jsonable(value: Any) -> Any:
    if isinstance(value, Choice):
        return value.key
    return value
