"""`GameSession`: the engine-facing core shared by the AEC and the Parallel env.

It owns one `Game` and, per seat, a `SeatTracker` (the seat's `View`), the numeric
encoder and an incremental text transcript; it maps action ids to choices and back.
The PettingZoo classes only add the agent bookkeeping of their API.

Nights run on the `NightClock` (`engine/night_clock.py`): every night takes the same
number of env *slots* whoever is alive, a seat is asked only in its prompt's slot and
sees the log cut at the current night step. `pending_seats`, `view`, `observe`, `info`
and `over` all speak in slots; `submit` answers the engine and `close_turn` ends an env
turn (a Parallel step, an AEC day decision or a whole AEC night slot). A forum game's
windows run on `ForumPace` (`env/forum_pace.py`) the same way: a round's outcome is
shown when the round ends, and every window takes the same number of rounds, the ones
the engine did not need waited out with views cut.

Pickling: a running `Game` holds a generator and does not pickle, so a session pickles
as ``(variant, players, overrides, seed, deal, decisions, night clock)`` and rebuilds
the game on load by replaying the decisions — the engine's determinism makes that exact.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Real
from pathlib import Path
from typing import Any, overload

import numpy as np

from mafia_arena.engine import Choice, Game, IllegalDecision, Request, Speech
from mafia_arena.engine.night_clock import NightClock
from mafia_arena.env.actions import ActionTable, build_action_table
from mafia_arena.env.forum_pace import ForumPace
from mafia_arena.rules import Variant, load_variant
from mafia_arena.views.encode_history import ObservationSpec, StateEncoder, make_encoder
from mafia_arena.views.knowledge import KnowledgeFold
from mafia_arena.views.text import render_view, render_with_request
from mafia_arena.views.view import SeatTracker, View


class IllegalActionError(ValueError):
    """An action that is not legal for the seat now; nothing was changed."""


class NotAMoveError(IllegalActionError):
    """A value no env plays or scores as a move; nothing was changed.

    Every env raises it, whatever its illegal-move policy (the terminate-on-illegal
    wrappers, `MafiaVectorEnv`'s and `TeamEnv`'s ``illegal_reward``): such a value can
    only come from a bug in the caller's code, and scoring it as a lost game would show
    that bug only as bad returns. A masked-out id of the action table is a move, and
    meets the policy; these are not: `NotAnActionError`, `ActionOutOfRangeError`,
    `SpeechTooLongError`."""


class NotAnActionError(NotAMoveError, TypeError):
    """An action that is no integer action id at all (``2.0``, ``2.5``, None for a seat
    that must decide, a numpy bool, an array of one); nothing was changed.

    A policy that emits such a value has a bug in its own code (a float output, the
    array a batched `predict` returns). It is an `IllegalActionError`, as the raw envs
    always raised, and a `TypeError`, which is what it says."""


class ActionOutOfRangeError(NotAMoveError):
    """An integer action id outside the action table (negative, or at least its size
    K, the `Discrete(K)` action space's ``n``); nothing was changed.

    The table has no such move, so no env can play it, and a masked policy never emits
    one: it is an off-by-one or a sentinel (``-1``) in the caller's code. Raised alike
    by every env, the message naming the agent, the value and the valid ids, where
    `env()` used to fail with PettingZoo's bare ``AssertionError`` and the others
    scored it as an illegal move that ended the game."""


class SpeechTooLongError(NotAMoveError):
    """Free text longer than the speaking turn's ``max_chars`` (`request["max_chars"]`
    in the info); nothing was changed.

    Refused, never cut: the env does not choose which words of a speech to drop (a
    language agent caps its own, `agents.llm`), and the AEC env's `step_text` always
    refused it, so `parallel_env()` refuses it the same way instead of scoring it as
    an illegal move."""


class UnknownAgentError(KeyError, ValueError):
    """A name that is not one of the env's agents (``possible_agents``).

    A `KeyError`, as the lookup of a space by an unknown name always raised, and a
    `ValueError`, as `raw_parallel_env.check_agents` always raised for an unknown key
    in a step's actions; unlike a bare `KeyError` its message names the agent and the
    possible ones."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def unknown_agent(agent: Any, possible: list[str], where: str) -> UnknownAgentError:
    """The `UnknownAgentError` for `agent`, not among `possible`, met in `where` (what
    the caller asked for: ``"the actions"``, ``"observation_space()"``)."""
    listed = f"{possible[0]} … {possible[-1]}" if len(possible) > 2 else ", ".join(possible)
    return UnknownAgentError(
        f"unknown agent {agent!r} in {where}; the agents are {listed} ({len(possible)} seats)"
    )


NOT_RESET = "reset() was never called: reset() the environment before stepping it"
GAME_OVER = "the game is over; reset() the environment"


def whole_seed(seed: Any) -> int | None:
    """`seed` as a Python int (None stays None): a numpy integer too, which a seed drawn
    with numpy is and Gymnasium's own seeding refuses; `TypeError` for anything that is
    not an integer (``3.0`` included), as Gymnasium's refusal is."""
    import operator

    return None if seed is None else operator.index(seed)


@overload
def reward_setting(name: str, value: Any) -> float: ...
@overload
def reward_setting(name: str, value: Any, *, none: str) -> float | None: ...
def reward_setting(name: str, value: Any, *, none: str | None = None) -> float | None:
    """`value`, the env setting `name` that is a reward (``illegal_reward``,
    ``shaping``), as a float; checked when the env is built.

    A real number that is finite passes (a numpy float or integer too); `TypeError`
    naming the setting for anything else (text, a bool, None), `ValueError` for NaN or
    an infinity. `none`, where given, says what None means for this setting, and lets
    it through. Why: a reward setting is only read when its event comes, so ``"x"`` or
    None failed in the middle of a game (or came back as the reward itself), a bool
    scored as 0 or 1, and NaN or an infinity poisoned every return it reached."""
    if value is None and none is not None:
        return None
    if isinstance(value, bool) or not isinstance(value, Real):
        allowed = "a number" if none is None else f"a number or None ({none})"
        raise TypeError(f"{name} must be {allowed}, not {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, not {value!r}")
    return float(value)


def action_index(action: Any) -> int | None:
    """`action` as an action id if it is an integer: a Python int (a bool is 0 or 1, as
    for Gymnasium's `Discrete`), a numpy integer scalar or a 0-d integer array; None for
    anything else. A float such as 3.5 is refused, never truncated to 3: a policy that
    emits one has a bug to see."""
    if type(action) is int:  # the usual case first: a step costs little else
        return action
    if isinstance(action, int | np.integer):
        return int(action)
    if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
        return int(action)
    return None


def integer_action(agent: str, action: Any) -> int:
    """`action` as an action id (`action_index`), or `NotAnActionError` naming `agent`
    and the value: one wording for every env that refuses it."""
    index = action_index(action)
    if index is None:
        raise NotAnActionError(
            f"{agent}: action {action!r} is not an integer action id (an int, a numpy "
            "integer or a 0-d integer array; a float is refused even when whole, never "
            "truncated: cast it with int() where the policy makes it)"
        )
    return index


def out_of_range(agent: str, index: int, size: int) -> ActionOutOfRangeError:
    """The `ActionOutOfRangeError` for `agent`'s id `index` in a table of `size` ids:
    one wording for every env that refuses it."""
    return ActionOutOfRangeError(
        f"{agent}: action {index} is outside the action table; valid ids are "
        f"0..{size - 1} (Discrete({size})), the legal ones marked by the action mask"
    )


def speech_too_long(agent: str, text: str, max_chars: int) -> SpeechTooLongError:
    """The `SpeechTooLongError` for `agent`'s `text` over the turn's `max_chars`."""
    return SpeechTooLongError(
        f"{agent}: speech of {len(text)} characters is longer than this turn's "
        f"{max_chars} (request['max_chars']); shorten it, the env does not cut it"
    )


@dataclass(slots=True)
class _Observed:
    """A seat's last observation and what it was built from (`GameSession.observe`)."""

    stamp: tuple[Any, ...]
    fold: KnowledgeFold
    count: int
    request: Request | None
    obs: dict[str, np.ndarray]


@dataclass(slots=True)
class _Informed:
    """A seat's last info and what it was built from (`GameSession.info`)."""

    stamp: tuple[Any, ...]
    over: bool
    fold: KnowledgeFold
    count: int
    request: Request | None
    info: dict[str, Any]


class GameSession:
    """A variant at a player count, and the current game with its per-seat views."""

    def __init__(
        self,
        variant: str | Path | Variant,
        players: int,
        overrides: Mapping[str, Any] | None = None,
        max_text: int | None = None,
        observation: ObservationSpec | None = None,
        *,
        fixed_nights: bool = True,
    ) -> None:
        """`fixed_nights=False` drops the night clock: views show the whole log and the
        engine's prompt is open at once. Only for drivers that hand a seat nothing but
        its own decisions (`rl.TeamEnv`), never for multi-agent envs whose step count
        every seat sees. It drops the forum pacing too (`ForumPace`)."""
        self.source = variant
        self.overrides = dict(overrides or {})
        self.variant = (
            variant if isinstance(variant, Variant) else load_variant(variant, self.overrides)
        )
        self.players = players
        if max_text is not None and (
            isinstance(max_text, bool) or not isinstance(max_text, int | np.integer) or max_text < 0
        ):  # -1 kept all but the first character, 1.5 failed at the first info
            raise ValueError(
                f"max_text must be None (the whole text) or a whole number of characters "
                f"(0 leaves the text out), not {max_text!r}"
            )
        self.max_text = None if max_text is None else int(max_text)
        self.table: ActionTable = build_action_table(self.variant, players)
        self.observation = observation or ObservationSpec()
        self.encoder = make_encoder(self.variant, players, self.observation)
        self.egocentric = self.observation.egocentric
        self._state: StateEncoder | None = None
        self.game: Game | None = None
        self.seed = 0
        self.deal: list[str] | None = None
        self.hands: dict[int, str] | None = None
        self.fixed_nights = fixed_nights
        self.clock = NightClock(self.variant, players, enabled=fixed_nights)
        self.forum = ForumPace.for_variant(self.variant, enabled=fixed_nights)
        self._completed = False
        self._trackers: list[SeatTracker] = []
        self._views: list[View | None] = []
        self._stamps: list[tuple[Any, ...] | None] = []
        self._observed: list[_Observed | None] = []
        self._advanced: list[tuple[Any, ...] | None] = []
        self._infos: list[_Informed | None] = []

    # ------------------------------------------------------------------ lifecycle
    def new_game(
        self, seed: int, deal: list[str] | None = None, hands: dict[int, str] | None = None
    ) -> Game:
        """Start a game; `deal` forces the cards (seat order) and `hands` the intrigue
        cards (seat → card, Palermo), as `Game` takes them."""
        self.seed = seed
        self.deal = None if deal is None else list(deal)
        self.hands = None if hands is None else dict(hands)
        self.game = Game(self.variant, self.players, seed, deal=self.deal, hands=self.hands)
        self._trackers = [SeatTracker(s) for s in range(self.players)]
        self._views = [None] * self.players
        self._stamps = [None] * self.players
        self._observed = [None] * self.players
        self._advanced = [None] * self.players
        self._infos = [None] * self.players
        self.encoder.reset()
        self.clock.reset()
        self.forum.start(self.game)
        self.clock.sync(self.game, new_prompt=True)
        self._completed = False
        return self.game

    @property
    def over(self) -> bool:
        """The game is over and its last night's slots (or its last forum round and
        the window's waiting rounds) have all been played."""
        return (
            self.game is not None
            and self.game.over
            and self.clock.plan is None
            and not self.forum.waiting
            and not (self.forum.enabled and self._completed)
        )

    @property
    def at_night(self) -> bool:
        """Whether the env is inside a night's slots (see `engine.night_clock`)."""
        return self.clock.plan is not None

    @property
    def in_rounds(self) -> bool:
        """Whether every living seat takes one turn per engine prompt, those not asked
        waiting: in a night's slots, and throughout a forum game, whose windows ask again
        only the seats that have not said they are done (`engine.forum.window`) and
        whose rounds the engine did not need are waited out (`ForumPace`). Why: taken
        prompt by prompt, the turn order would show who is still handing in forms (a
        night role's), which no seat's own events say."""
        return self.at_night or self.variant.rules.flow == "dictator"

    def pending_seats(self) -> list[int]:
        """Seats that must decide now (in this slot, at night), in seat order."""
        if self.game is None or not self._asking():
            return []
        return sorted(self.game.pending())

    def asks(self, seat: int) -> bool:
        """Whether `seat` must decide now (`seat in pending_seats()`, without the list:
        the AEC env asks it at every step)."""
        game = self.game
        return game is not None and self._asking() and game.request(seat) is not None

    def _asking(self) -> bool:
        """Whether the engine's prompt is open now: in its night slot, and not answered
        in full (its successor is placed when the turn closes, `close_turn`)."""
        return not self._completed and self.clock.in_slot() and not self.forum.waiting

    def living_seats(self) -> list[int]:
        """The living seats as the seats know it, in seat order: at night, those alive
        when it began (the dawn's deaths are shown after the night's last slot)."""
        if self.game is None:
            return []
        if self.clock.plan is not None:
            return list(self.clock.plan.living)
        if self.forum.enabled:
            return list(self.forum.living)
        return list(self.game.state.living_seats())

    @property
    def current(self) -> Game:
        """The game being played (`new_game` must have dealt one)."""
        if self.game is None:
            raise RuntimeError("no game yet: reset() the env first")
        return self.game

    def submit(self, seat: int, decision: Choice | Speech) -> None:
        """Answer the engine for a pending seat; remembers a completed prompt."""
        game = self.current
        last = game.unanswered() <= 1  # only this seat's answer is missing (or none)
        game.submit(seat, decision)
        self._completed = self._completed or last

    def close_turn(self) -> None:
        """End an env turn: follow the engine's new prompt, and move the night (or the
        forum window) on."""
        game = self.current
        night = self.clock.plan is not None
        self.clock.sync(game, self._completed)
        self._completed = False
        if night:
            self.clock.tick(game)
        self.forum.close_round(game)

    # ------------------------------------------------------------------ views
    def view(self, seat: int) -> View:
        """The seat's view now (in slots at night). The last one comes back while
        neither the seat's knowledge nor its request changed: an env step reads a seat's
        view for its observation and again for its info, and at night most slots change
        nothing for most seats; the identity tells `observe` and `info` to reuse theirs."""
        game = self.current
        stamp = self._stamp(game)
        last = self._views[seat]
        if last is not None and self._stamps[seat] == stamp:
            return last
        self._stamps[seat] = stamp
        knowledge = self._trackers[seat].update(game, self._cut(game))
        request = game.request(seat) if self._asking() else None
        if last is not None and last.knowledge is knowledge and last.request is request:
            return last
        view = self._views[seat] = View(seat, game.variant, knowledge, request)
        return view

    def _cut(self, game: Game) -> int | None:
        """How many events of the log the seats may see now (None: all)."""
        forum = self.forum.cut
        return forum if forum is not None else self.clock.cut(game)

    def _stamp(self, game: Game) -> tuple[Any, ...]:
        """What a view depends on, in a few numbers: the log's length (the engine
        changes nothing without logging it, a decision first of all), the step marks,
        and where the night clock (or the forum's waiting) stands. Equal stamps, equal
        views."""
        plan = self.clock.plan
        if plan is None:
            return (len(game.events), len(game.step_marks), self._completed, self.forum.shown)
        marks = len(game.step_marks)
        return (len(game.events), marks, self._completed, plan, plan.slot, plan.prompt_slot)

    def _advance(self, seat: int, game: Game, stamp: tuple[Any, ...]) -> KnowledgeFold:
        """The seat's live fold with what it may see at `stamp`, pulled once per stamp:
        an AEC step reads the selected seat's info and then its observation, a Parallel
        step the same for every seat, and the second read would only find the stream
        empty. (Pulling again is harmless, so a view that pulled meanwhile is no harm.)"""
        tracker = self._trackers[seat]
        if self._advanced[seat] != stamp:
            tracker.advance(game, self._cut(game))
            self._advanced[seat] = stamp
        return tracker.fold

    def observe(self, seat: int) -> dict[str, np.ndarray]:
        """The seat's observation and action mask.

        Built only when the seat's knowledge or request changed since its last
        observation; otherwise the same arrays come back. A Parallel step observes
        every seat, and most seats' views do not change in most steps (a night step, a
        vote being cast). Encoded from the seat's live fold (`SeatTracker.advance`):
        equal to encoding its `view`, without freezing a snapshot that only `info`
        needs. New entries the encoding does not show (a narration, a ballot before its
        tally) also give the same arrays back (`ObservationEncoder.encode_seat`).

        So the arrays are read-only (`numpy.ndarray.flags.writeable` is False): a caller
        that wrote into one in place (a normalising wrapper, a preprocessing step) would
        otherwise see its writes again in the seat's later observations, and a mask's
        in those of every seat offered the same choices (`ActionTable.shared_mask`). A
        write raises ``ValueError``; copy an array to change it. The dict is a new one
        at every call (two entries), so a caller may take the mask out of it.
        """
        game = self.current
        stamp = self._stamp(game)
        last = self._observed[seat]
        if last is not None and last.stamp == stamp:
            return last.obs.copy()
        fold = self._advance(seat, game, stamp)
        request = game.request(seat) if self._asking() else None
        count = len(fold.entries)
        if last is not None and last.request is request:
            if last.fold is fold and last.count == count:
                last.stamp = stamp
                return last.obs.copy()
            mask = last.obs["action_mask"]  # same request, same legal actions
        else:
            mask = self.table.shared_mask(request)  # read-only already
            if self.egocentric:  # ids relative to the seat (`ActionTable.rotation`)
                mask = mask[self.table.rotation(seat)]
                mask.flags.writeable = False
        observation = self.encoder.encode_seat(fold, request)
        if (
            last is not None
            and last.obs["observation"] is observation  # new entries it does not show
            and last.obs["action_mask"] is mask
        ):
            last.stamp, last.fold, last.count, last.request = stamp, fold, count, request
            return last.obs.copy()
        # the encoder hands out an array it never writes again (a new state is a copy)
        observation.flags.writeable = False
        obs = {"observation": observation, "action_mask": mask}
        self._observed[seat] = _Observed(stamp, fold, count, request, obs)
        return obs.copy()

    def state(self) -> np.ndarray:
        """The omniscient encoding of the game now, for centralised critics only
        (`views.encode_history.StateEncoder`): never part of a seat's observation."""
        if self.game is None:
            raise RuntimeError("reset() the environment before asking for its state")
        return self.state_encoder.encode(self.game)

    @property
    def state_encoder(self) -> StateEncoder:
        if self._state is None:
            self._state = StateEncoder(self.variant, self.players, self.observation)
        return self._state

    def absolute(self, seat: int, action: int) -> int:
        """The action table id of `seat`'s action (egocentric ids are turned back)."""
        if self.egocentric and 0 <= action < self.table.size:
            return int(self.table.rotation(seat)[action])
        return action

    def info(self, seat: int) -> dict[str, Any]:
        """The seat's text view and its legal choices with labels (for language agents).

        Built once per change of the seat's knowledge or request (or the game's end):
        the same contents come back until then, as `observe` does with its arrays. Read
        from the seat's live fold (its transcript and entry count), as `observe` is: the
        text equals `views.text.render_view` of the seat's `view`, without freezing a
        snapshot the info does not keep.

        The info is the caller's own, every dict and list in it included (`_own_info`):
        the kept info comes back again while nothing changed, and its choice rows are
        the action table's, shared by every seat offered the same choices
        (`ActionTable.rows`). So a wrapper that adds a key to an info (an episode's
        statistics) or changes a row in it (a label it shortens) does not see that in
        the seat's later infos, nor in another seat's."""
        game = self.current
        stamp = self._stamp(game)
        over = self.over
        last = self._infos[seat]
        if last is not None and last.stamp == stamp and last.over == over:
            return _own_info(last.info)
        fold = self._advance(seat, game, stamp)
        request = game.request(seat) if self._asking() else None
        count = len(fold.entries)
        if (
            last is not None
            and last.fold is fold
            and last.count == count
            and last.request is request
            and last.over == over
        ):
            last.stamp = stamp
            return _own_info(last.info)
        relative = self.table.rotation(seat) if self.egocentric else None
        info: dict[str, Any] = {
            "seat": seat,
            "request": _request_info(request, self.table, relative),
        }
        if self.max_text != 0:
            text = render_with_request(fold.transcript.text(count), seat, request)
            if self.max_text is not None and len(text) > self.max_text:
                text = text[-self.max_text :]
            info["text"] = text
        if over:
            state = game.state
            info["result"] = {"winner": state.winner, "winners": list(state.winners)}
        self._infos[seat] = _Informed(stamp, over, fold, count, request, info)
        return _own_info(info)

    def waiting_info(self, seat: int) -> dict[str, Any]:
        """The short info of a seat with nothing to decide (``seat``, no ``request``):
        a new dict at every call, as `info` gives (a key a wrapper adds stays its own)."""
        return {"seat": seat, "request": None}

    def text(self, seat: int) -> str:
        """The seat's whole text view (equal to `views.text.render_view`)."""
        return render_view(self.view(seat))

    def render(self, render_mode: str | None, seat: int) -> str | None:
        """PettingZoo `render` for both environments: the seat's text view, printed in
        ``"human"`` mode (returning None), returned in ``"ansi"`` mode; None before a game."""
        if render_mode is None or self.game is None:
            return None
        text = self.text(seat)
        if render_mode == "human":
            print(text)
            return None
        return text

    # ------------------------------------------------------------------ acting
    def check_action(self, seat: int, action: Any) -> Choice:
        """The choice `action` stands for, if it is legal for `seat` now; else raise."""
        request = self._request(seat)
        index = integer_action(f"player_{seat}", action)
        if not 0 <= index < self.table.size:
            raise out_of_range(f"player_{seat}", index, self.table.size)
        choice = self.table.choice_of(self.absolute(seat, index))
        if not request.offers(choice):  # by identity first: the table's choices are shared
            raise IllegalActionError(
                f"player_{seat}: action {index} ({choice.key}) is not legal for "
                f"{request.kind!r}; legal ids: {self.legal_ids(seat, request)}"
            )
        return choice

    def legal_ids(self, seat: int, request: Request) -> list[int]:
        """The ids of `request`'s choices as `seat` numbers them, ascending: the
        table's, or with an egocentric layout the seat's relative ids (those its mask
        marks and its actions use), so a refusal lists ids the caller can send."""
        ids = self.table.ids(request)
        if not self.egocentric:
            return sorted(ids)
        inverse = np.argsort(self.table.rotation(seat))
        return sorted(int(inverse[i]) for i in ids)

    def check_wait(self, seat: int, action: Any) -> None:
        """A seat with nothing to decide in a night slot (or a forum round) may only
        wait (action 0); an id outside the table is `ActionOutOfRangeError` here too."""
        index = integer_action(f"player_{seat}", action)
        if not 0 <= index < self.table.size:
            raise out_of_range(f"player_{seat}", index, self.table.size)
        if index != 0:
            raise IllegalActionError(
                f"player_{seat} has nothing to decide in this round of turns (a night slot or "
                "a forum round); only action 0 (wait)"
            )

    def act(self, seat: int, action: Any) -> None:
        self.submit(seat, self.check_action(seat, action))

    def say(self, seat: int, text: str) -> None:
        """Submit free text for a speaking turn (requests with `free_text`)."""
        request = self._request(seat)
        if not request.free_text:
            raise IllegalActionError(
                f"player_{seat}: {request.kind!r} does not accept free text; use an action id"
            )
        if len(str(text)) > request.max_chars:
            raise speech_too_long(f"player_{seat}", str(text), request.max_chars)
        try:
            self.submit(seat, Speech(str(text)))
        except IllegalDecision as exc:
            raise IllegalActionError(f"player_{seat}: {exc.reason}") from None

    def _request(self, seat: int) -> Request:
        if self.game is None:
            raise RuntimeError(NOT_RESET)
        request = self.game.request(seat) if self._asking() else None
        if request is None:
            raise IllegalActionError(f"player_{seat} has nothing to decide now")
        return request

    def team_rewards(self) -> dict[int, float]:
        """+1 for the winning faction's seats, -1 for the others, 0 for all on a draw."""
        state = self.current.state
        if state.winner is None:
            return dict.fromkeys(range(self.players), 0.0)
        winners = set(state.winners)
        return {s: 1.0 if s in winners else -1.0 for s in range(self.players)}

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "overrides": self.overrides,
            "players": self.players,
            "max_text": self.max_text,
            "fixed_nights": self.fixed_nights,
            "observation": self.observation,
            "seed": self.seed,
            "deal": self.deal,
            "hands": self.hands,
            "decisions": None if self.game is None else list(self.game.decisions),
            "clock": (self.clock.plan, self.clock.last_night, self._completed),
            "forum": self.forum,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        GameSession.__init__(
            self,
            state["source"],
            state["players"],
            state["overrides"],
            state["max_text"],
            state.get("observation"),
            fixed_nights=state["fixed_nights"],
        )
        self.seed = state["seed"]
        if state["decisions"] is not None:
            self.new_game(self.seed, state["deal"], state.get("hands"))
            for record in state["decisions"]:
                self.current.resubmit(record)
            self.clock.plan, self.clock.last_night, self._completed = state["clock"]
            self.forum = state.get("forum", self.forum)


def _own_info(info: dict[str, Any]) -> dict[str, Any]:
    """A copy of a kept info (`GameSession.info`) whose dicts and lists are all new: the
    top dict, the request, its choice rows and the result. Everything else in it is a
    string, a number or None, which nobody can change in place. Written for the info's
    known shape rather than with `copy.deepcopy`, which walks every string and costs
    many times more: a step hands out an info, a speaking turn's with some forty rows."""
    own = dict(info)
    request = own["request"]
    if request is not None:
        request = own["request"] = request.copy()
        request["choices"] = list(map(dict.copy, request["choices"]))
    result = own.get("result")
    if result is not None:
        own["result"] = {"winner": result["winner"], "winners": list(result["winners"])}
    return own


def _request_info(
    request: Request | None, table: ActionTable, relative: np.ndarray | None = None
) -> dict[str, Any] | None:
    """The request as plain data; `relative` (egocentric → absolute ids) renumbers the
    choices' action ids into the seat's egocentric ids."""
    if request is None:
        return None
    return {
        "kind": request.kind,
        "prompt": request.prompt,
        "free_text": request.free_text,
        "max_chars": request.max_chars,
        "default": request.default,
        "choices": _choice_rows(request, table, relative),
    }


def _choice_rows(
    request: Request, table: ActionTable, relative: np.ndarray | None
) -> list[dict[str, Any]]:
    """The request's choices as info rows (action id, key, label), egocentric ids
    renumbered through `relative`."""
    if relative is None:
        return table.rows(request)
    ids = table.ids(request)
    inverse = np.argsort(relative)
    return [
        {"action": int(inverse[i]), "key": table.keys[i], "label": label}
        for i, label in zip(ids, request.labels, strict=True)
    ]
