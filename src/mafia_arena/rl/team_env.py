"""`TeamEnv`: one learner plays one side's chosen decisions; scripted players do the rest.

Why a single-agent view of a multi-agent game: the common RL question here is "can a
policy make this side's votes (or every decision of this side) better than a scripted
player does, against a given pool of opponents?". One policy then acts for every seat of
its side, each time from that seat's own observation (the same numeric view as the
PettingZoo env: `views.encode`, masks from `env.actions`), so nothing hidden from the
seat reaches the policy.

Each episode is one game. At `reset` the env draws a game seed and an opponent from the
pool with its own generator (so a seeded env replays its episodes exactly), seats
`co_player` agents on the learner's side and the opponent on the other side (each with
its own seat seed from the env's host key, never the game seed), and plays until a
learner decision is due. `step(action)` submits the learner's choice and plays on to the
next one. The reward is 0 until the end, then +1 if the learner's side won, -1 if it
lost, 0 on a draw; `info["signals"]` lists the players executed since the previous step
(seat and side; the engine's public `Death` events with cause ``execution``, and
Palermo's exits by the vote; the side the shown card says, None for a hidden card) for
shaping, and `shaping` adds them to the reward when set. They are read from the events,
not from the phase: the night's kills are announced at dawn, already by day.

`kinds` must name request kinds the variant can ask the learner's side (`request_kinds`,
read from the variant's data by `rl.kinds`), checked when the env is built (as are
the names of `co_player` and `opponents`: `check_players`), and a
`reset` that deals `MAX_DEALS` games in a row without a learner decision (a role that
changed sides) raises instead of dealing forever.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np

from mafia_arena.agents.advice import advice_id, with_advice
from mafia_arena.agents.base import SyncAgent
from mafia_arena.agents.policy_file import ALL_KINDS, answers
from mafia_arena.agents.registry import make_agent
from mafia_arena.engine import Game
from mafia_arena.engine.catalogue import Death, StateChanged
from mafia_arena.env.session import (
    GameSession,
    IllegalActionError,
    NotAMoveError,
    integer_action,
    reward_setting,
    whole_seed,
)
from mafia_arena.rl.kinds import asked_sides, request_kinds
from mafia_arena.rules import Variant
from mafia_arena.seat_seeds import new_host_key, seat_seeds
from mafia_arena.views.encode_history import ObservationSpec

Chooser = Callable[[np.ndarray, np.ndarray], int]
"""A policy as a function: (observation, boolean mask) -> action id."""
MAX_DEALS = 100
"""Games `reset` deals in a row without a learner decision before it gives up: a game
that ends before the learner's first turn is rare, a hundred in a row means the learner
is never asked (a kind its side never gets)."""


def unknown_kinds(kinds: Sequence[str], variant: Variant, players: int) -> list[str]:
    """The entries of `kinds` that are neither ``*`` nor a request kind of `variant`."""
    known = set(request_kinds(variant, players))
    return [k for k in kinds if k != ALL_KINDS and k not in known]


def check_side(variant: Variant, players: int, side: str) -> None:
    """Raise `ValueError` unless `side` is a side of `variant` that a role dealt at
    `players` seats starts on (`rl.kinds`): the learner plays the seats dealt to its
    side, so a side nobody is dealt (Palermo's solo side, whose Rival is dealt to the
    town) would have `reset` deal `MAX_DEALS` games for nothing, even with ``*``. The
    message names the side, the variant, the player count and the sides it deals."""
    sides = sorted({faction.side for faction in variant.factions.values()})
    if side not in sides:
        raise ValueError(f"{side!r} is not a side of {variant.name} ({', '.join(sides)})")
    dealt = sorted(set().union(*asked_sides(variant, players).values()))
    if side not in dealt:
        raise ValueError(
            f"{variant.name} deals no {side} seat at {players} players, so the learner "
            f"would never be asked (sides dealt: {', '.join(dealt)})"
        )


def check_kinds(
    kinds: Sequence[str], variant: Variant, players: int, side: str | None = None
) -> None:
    """Raise `ValueError` unless `kinds` names at least one kind and only kinds the
    variant can ask at `players` seats (of `side`, when given, which must be dealt
    there: `check_side`; `rl.kinds`): a learner asked nothing would have `reset` deal
    games forever. The message names the kind, the variant and the kinds it does ask.

    A bare string (``kinds="vote"``) is refused as such: it is a sequence of its
    letters, and the refusal would otherwise name ``'v'``, a kind nobody wrote."""
    if not kinds:
        raise ValueError("name at least one request kind (or '*' for every decision)")
    if side is not None:
        check_side(variant, players, side)
    asked = asked_sides(variant, players)
    mine = request_kinds(variant, players, side=side)
    listed = f"{', '.join(mine)}, or '*' for every decision"
    if isinstance(kinds, str):
        raise ValueError(
            f"kinds is the string {kinds!r}, not a sequence of request kinds: write "
            f"kinds=({kinds!r},) (the kinds of {variant.name} at {players} players: {listed})"
        )
    for kind in kinds:
        if kind == ALL_KINDS or kind in mine:
            continue
        if kind in asked and side is not None:
            raise ValueError(
                f"{kind!r} is asked only of the {' and '.join(sorted(asked[kind]))} side, "
                f"not of {side}, in {variant.name} at {players} players (it asks the "
                f"{side} side {listed})"
            )
        raise ValueError(
            f"{kind!r} is not a request kind of {variant.name} at {players} players ({listed})"
        )


def check_players(co_player: str, opponents: Sequence[str]) -> None:
    """Raise `ValueError` unless `co_player` and each of `opponents` (at least one) name
    a scripted player (`make_agent`), the message naming the field and the player.

    Checked when the env is built, as the kinds are: found by `reset` instead, an empty
    pool failed as the random module's ``IndexError`` ("Cannot choose from an empty
    sequence"), a bare string (``opponents="heuristic"``) drew one of its letters and
    was refused as ``unknown agent 't'``, and a misspelt opponent only in the game that
    happened to draw it."""
    if isinstance(opponents, str):
        raise ValueError(
            f"opponents is the string {opponents!r}, not a sequence of player names: "
            f"write opponents=({opponents!r},)"
        )
    if not opponents:
        raise ValueError("opponents: name at least one player for the other side")
    named = [("co_player", co_player)] + [(f"opponents[{i}]", o) for i, o in enumerate(opponents)]
    for key, name in named:
        if not isinstance(name, str):
            raise ValueError(f"{key}: {name!r} is not a player name (text)")
        try:
            TeamEnv.seat_agent(name)
        except ValueError as exc:
            raise ValueError(f"{key}: {' '.join(str(exc).split())}") from None


def _executed(fact: object) -> tuple[int, str | None] | None:
    """The seat a public fact removes by the table's vote and the role it shows (None
    where the card stays hidden), else None: an execution, or Palermo's exit by the vote
    (its players leave by player-state changes, not deaths). Night kills (the dictator's
    murders too), disqualifications and the like are not."""
    if isinstance(fact, Death) and fact.cause == "execution":
        return fact.seat, fact.role
    if isinstance(fact, StateChanged) and fact.cause == "vote":
        return fact.seat, fact.role
    return None


@dataclass(frozen=True)
class TeamSetup:
    """What the learner controls and whom it plays with and against.

    `kinds` are request kinds (``vote``, ``final_vote``, ``night:<step>``, …; see
    `request_kinds`) or ``*`` for every decision; `opponents` is the pool the other side
    is drawn from per game; `shaping` is the reward per execution (+ for the other
    side's player, - for one's own);
    `observation`, `history_days`, `egocentric`, `max_players` choose the observation
    layout (``"v0"`` or ``"history"``, `views.encode_history`; egocentric action ids
    are relative to the deciding seat as well);
    `advice` appends the co-player's own choice for the decision (one-hot over the
    action ids, `agents.advice`) to the observation;
    an illegal action ends the episode with `illegal_reward` (``info["illegal"]``), as
    PettingZoo's terminate-on-illegal policy does; a masked policy never takes one. An
    action that is no integer id at all (a float, None, an array of one), or an id
    outside the action table, is the caller's bug, not a move: `step` raises instead,
    as `MafiaVectorEnv.step` does.
    `illegal_reward` and `shaping` are finite numbers, checked when the env is built
    (`reward_setting`).
    """

    variant: str = "standard"
    players: int = 7
    overrides: dict[str, Any] = field(default_factory=dict)
    side: str = "town"
    kinds: tuple[str, ...] = ("vote",)
    co_player: str = "heuristic"
    opponents: tuple[str, ...] = ("heuristic",)
    shaping: float = 0.0
    illegal_reward: float = -1.0
    observation: str = "v0"
    history_days: int = 3
    egocentric: bool = False
    max_players: int | None = None
    advice: bool = False

    def learns(self, kind: str) -> bool:
        return answers(self.kinds, kind)

    def observation_spec(self) -> ObservationSpec:
        """The observation layout the learner sees (`views.encode_history`)."""
        return ObservationSpec(
            self.observation, self.history_days, self.egocentric, self.max_players
        )


class TeamEnv(gym.Env[np.ndarray, np.int64]):
    """A Gymnasium env over one side's decisions (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (gymnasium's own)

    def __init__(
        self,
        setup: TeamSetup | None = None,
        seed: int | None = None,
        *,
        host_key: bytes | None = None,
    ) -> None:
        """`host_key` derives the scripted seats' own seeds (`mafia_arena.seat_seeds`);
        default: a fresh key, or for a seeded env one made from its seed (so a seeded env
        replays its episodes exactly)."""
        self.setup = setup or TeamSetup()
        for name in ("illegal_reward", "shaping"):  # read only when their event comes
            reward_setting(name, getattr(self.setup, name))
        # no night clock: the learner is handed only its own decisions, never a step count
        self.session = GameSession(
            self.setup.variant,
            self.setup.players,
            self.setup.overrides,
            observation=self.setup.observation_spec(),
            fixed_nights=False,
        )
        check_kinds(self.setup.kinds, self.session.variant, self.setup.players, self.setup.side)
        check_players(self.setup.co_player, self.setup.opponents)
        self.actions = self.session.table.size
        self.observation_size = self.session.encoder.size + (
            self.actions if self.setup.advice else 0
        )
        self.observation_space = gym.spaces.Box(
            0.0, 1.0, (self.observation_size,), dtype=np.float32
        )
        self.action_space = gym.spaces.Discrete(self.actions)
        seed = whole_seed(seed)
        self._rng = random.Random(seed)
        self._given_key = host_key
        self._host_key = self._key_for(seed)
        self._agents: list[SyncAgent] = []
        self._sides: list[str] = []
        self._seat: int | None = None
        self._teacher: int | None = None  # the co-player's answer to the open decision
        self._asked = False  # whether `_teacher` holds it (None is an answer too)
        self._seen = 0  # the game's events already looked at for signals
        self.opponent = ""

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal the next game and play up to the learner's first decision.

        `seed` reseeds the env's generator (game seeds, opponents, the host key).
        ``options={"game_seed": g, "opponent": name}`` plays engine seed g and that
        opponent instead of the drawn ones (the generator draws the game seed all the
        same). Seeds are integers, as `seed` is: ``1.5`` raises `TypeError`, never
        truncated to another game."""
        seed = whole_seed(seed)
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
            self._host_key = self._key_for(seed)
        options = options or {}
        for _ in range(MAX_DEALS):
            drawn = self._rng.randrange(2**31)
            given = whole_seed(options.get("game_seed"))
            self._start(
                drawn if given is None else given,
                options.get("opponent") or self._rng.choice(self.setup.opponents),
            )
            _, signals = self._advance()
            if self._seat is not None:
                return self._observation(), self._info(signals)
            # the game ended before any learner decision (rare): play a fresh one
            options = {k: v for k, v in options.items() if k != "game_seed"}
        raise RuntimeError(
            f"{MAX_DEALS} games of {self.setup.variant} at {self.setup.players} players "
            f"dealt and none asked the {self.setup.side} side for "
            f"{', '.join(self.setup.kinds)}: each ended first, or that side's seats "
            "changed sides; check `side`, `kinds` and `players`"
        )

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Submit the learner's action for `info["seat"]` and play on to its next decision.

        An id of the action table that is not legal now (masked out) ends the episode
        with `illegal_reward`. Anything that is not an integer id (``1.5``, ``3.0``,
        None, a one-element array such as a batched ``predict`` returns) raises
        `NotAnActionError`, and an integer outside the table (``-1``, or at least the
        action space's ``n``) `ActionOutOfRangeError`, both `IllegalActionError`s, with
        the episode unchanged, as every env of the package does (`MafiaVectorEnv.step`,
        `parallel_env`, `env`): scored as a lost game, a policy's wrong dtype, shape or
        offset would only show as bad returns."""
        if self._seat is None:
            raise RuntimeError(
                "no episode is running (never reset, or the last one ended): "
                "reset() the environment before stepping it"
            )
        integer_action(f"player_{self._seat}", action)  # NotAnActionError, nothing changed
        try:
            self.session.act(self._seat, action)
            self.session.close_turn()  # the engine's next prompt is open again
        except NotAMoveError:
            raise  # no move to score (past the table): nothing changed
        except IllegalActionError as exc:
            self._seat = None
            obs = np.zeros(self.observation_size, dtype=np.float32)
            info: dict[str, Any] = {"side": self.setup.side, "signals": [], "illegal": str(exc)}
            return obs, self.setup.illegal_reward, True, False, info
        reward, signals = self._advance()
        if self._seat is None:
            outcome = self.session.team_rewards()
            mine = next(s for s, side in enumerate(self._sides) if side == self.setup.side)
            obs = np.zeros(self.observation_size, dtype=np.float32)
            return obs, reward + outcome[mine], True, False, self._info(signals, final=True)
        return self._observation(), reward, False, False, self._info(signals)

    def action_masks(self) -> np.ndarray:
        """The legal actions of the seat that must decide now (for masked policies)."""
        if self._seat is None:
            return np.ones(self.actions, dtype=bool)
        return self.session.observe(self._seat)["action_mask"].astype(bool)

    def teacher_action(self) -> int | None:
        """The co-player's choice for the seat deciding now, as this env's action id, or
        None where it has none (free text without an act the request offers: a
        mafioso's night talk or manner of death, a Palermo post).

        The co-player decides from that seat's own view, exactly as it would if it held
        the seat, so no hidden information enters: demonstrations for imitation
        (`rl.imitate`) pair this id with the seat's observation, and the ``advice``
        option shows it to the learner (a speech as the act it was made from, all zero
        for None, as the `rl` agent's fallback advises at play time: `agents.advice`).
        Stepping the env with it plays the co-player's game. Asked once per decision
        (the answer is kept), so the co-player's own generator advances as it does at
        play time.
        """
        if self._seat is None:
            raise RuntimeError("reset() the environment before asking for a decision")
        if not self._asked:
            seat = self._seat
            view = self.session.view(seat)
            assert view.request is not None, "the deciding seat is asked"
            decision = self._agents[seat].decide(view)
            self._teacher = advice_id(
                self.session.table, view.request, decision, self.setup.egocentric
            )
            self._asked = True
        return self._teacher

    def play(self, game_seed: int, opponent: str, choose: Chooser | None = None) -> bool:
        """Play one whole game outside the RL loop; True if the learner's side won.

        `choose(observation, mask) -> action` answers the learner's decisions; None lets
        the co-player make them (the scripted baseline). Used for evaluation, so the
        policy, random choices and the co-player are compared on the same seeded games.
        """
        self._start(game_seed, opponent)
        game = self.session.game
        assert game is not None
        while True:
            self._advance(learner_turns=choose is not None)
            if self._seat is None:
                return self.session.team_rewards()[self._sides.index(self.setup.side)] > 0
            assert choose is not None
            action = choose(self._observation(), self.action_masks())
            self.session.act(self._seat, action)
            self.session.close_turn()

    # ------------------------------------------------------------------ internals
    def _key_for(self, seed: int | None) -> bytes:
        """The given host key, else one made from the env's seed, else a fresh one."""
        if self._given_key is not None:
            return self._given_key
        return new_host_key() if seed is None else random.Random(f"host:{seed}").randbytes(32)

    def _start(self, game_seed: int, opponent: str) -> None:
        """A new game: the deal from `game_seed`, agents seated with keyed seat seeds."""
        self.opponent = opponent
        game = self.session.new_game(game_seed)
        self._sides = [self._side_of(game, s) for s in range(self.setup.players)]
        self._agents = [
            self.seat_agent(self.setup.co_player if side == self.setup.side else opponent)
            for side in self._sides
        ]
        agent_seeds = seat_seeds(self._host_key, game_seed, self.setup.players)
        for seat, agent in enumerate(self._agents):
            agent.reset(seat, agent_seeds[seat])  # never the game seed: it is the deal
            agent.set_variant(self.session.variant)
        self._seen = len(game.events)
        self._seat = None

    def _advance(self, learner_turns: bool = True) -> tuple[float, list[dict[str, Any]]]:
        """Play scripted decisions until a learner decision is due or the game ends."""
        game = self.session.game
        assert game is not None
        self._seat = None
        self._teacher = None
        self._asked = False
        while not game.over:
            pending = game.pending()
            learner = [
                s
                for s in sorted(pending)
                if learner_turns
                and self._sides[s] == self.setup.side
                and self.setup.learns(pending[s].kind)
            ]
            if learner:
                self._seat = learner[0]
                break
            seat = min(pending)
            game.submit(seat, self._agents[seat].decide(self.session.view(seat)))
        return self._signals(game)

    def _signals(self, game: Game) -> tuple[float, list[dict[str, Any]]]:
        """The executions since the last call, and their shaping.

        Read from the engine's public events by cause, not from the phase the
        game is in now: the night's kills are announced at dawn, so by the learner's
        next decision the game is already in the day. The side is the one the shown card
        says, None where the variant keeps the card hidden (and no shaping then): the
        dealt side of a hidden card is what the table is playing to find out."""
        signals = []
        reward = 0.0
        events = game.events
        for event in events[self._seen :]:
            found = _executed(event.fact)
            if found is None:
                continue
            seat, shown = found
            side = None if shown is None else self._side(self.session.variant.roles[shown].faction)
            signals.append({"seat": seat, "side": side})
            if side is not None:
                reward += -self.setup.shaping if side == self.setup.side else self.setup.shaping
        self._seen = len(events)
        return reward, signals

    def _observation(self) -> np.ndarray:
        """The deciding seat's observation as an array of the caller's own: the
        session's is read-only and handed out again while the seat's view is unchanged
        (`GameSession.observe`), and a Gymnasium learner may write into what `reset`
        and `step` return. One copy per learner decision, next to the scripted
        players' decisions it waits for."""
        assert self._seat is not None
        observation = self.session.observe(self._seat)["observation"]
        if not self.setup.advice:
            return observation.copy()
        return with_advice(observation, self.teacher_action(), self.actions)

    def _info(self, signals: list[dict[str, Any]], final: bool = False) -> dict[str, Any]:
        info: dict[str, Any] = {"side": self.setup.side, "signals": signals}
        if self._seat is not None:
            info["seat"] = self._seat
            info["action_mask"] = self.action_masks()
        if final:
            game = self.session.game
            assert game is not None
            info["winner"] = game.state.winner
            info["won"] = self.session.team_rewards()[self._sides.index(self.setup.side)] > 0
            info["opponent"] = self.opponent
        return info

    def _side_of(self, game: Game, seat: int) -> str:
        return self._side(game.state.seats[seat].faction)

    def _side(self, faction: str) -> str:
        factions = self.session.variant.factions
        return factions[faction].side if faction in factions else faction

    @staticmethod
    def seat_agent(name: str) -> SyncAgent:
        """A fresh scripted player `name`; `ValueError` for an unknown name or a player
        that is not scripted (an LLM, a human)."""
        agent = make_agent(name)
        if not isinstance(agent, SyncAgent):
            raise ValueError(f"{name!r} is not a scripted player; TeamEnv seats only those")
        return agent


def side_seats(sides: Sequence[str], side: str) -> list[int]:
    """The seats of `side` (a helper for evaluation and tests)."""
    return [s for s, name in enumerate(sides) if name == side]
