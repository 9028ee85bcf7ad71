"""`MafiaVectorEnv`: many games stepped together, for RL, as a Gymnasium `VectorEnv`.

How a multi-agent game becomes a batch row: **each row is one game**, and a row always
shows the observation and action mask of the seat that must decide next in that game
(the lowest pending seat, as the AEC env's `agent_selection` by day). `step(actions)`
takes one action id per row, for that seat; `infos["seat"]` says whose observation each
row holds, so a learner that keeps one trajectory per seat (or per team) files each
transition under its seat.

Nights run without the night clock (`engine/night_clock.py`): a row shows a seat only when
it decides, so its turns are the engine's prompts and no seat observes the others'
steps. A row therefore equals the AEC env with the AEC env's waiting turns (a seat whose
only legal action is 0, wait) left out.

- Observations: ``{"observation": float32 (n, D), "action_mask": int8 (n, K)}`` — the
  AEC env's spaces stacked (`single_observation_space` is the AEC agent's space,
  `single_action_space` its `Discrete(K)`, `action_space` a `MultiDiscrete`), in the
  layout `env()`'s ``observation`` options name (with ``egocentric`` the mask and the
  actions are the deciding seat's relative ids, as in the AEC env).
- Actions: integer ids, as the AEC env takes them; a float or a numpy bool raises
  `NotAnActionError` (an `IllegalActionError`) naming the row, before any row changes,
  and so does an id outside the action table (negative, or at least K):
  `ActionOutOfRangeError`, whatever `illegal_reward` says.
- Rewards: ``rewards[i]`` is the reward of the seat that just acted in row i: 0 during
  play, its team reward at the end (+1 win, -1 loss, 0 draw). The other seats' end
  rewards are in ``infos["final_rewards"][i]`` (one per seat), to credit to each seat's
  last transition.
- Autoreset, same step (`AutoresetMode.SAME_STEP`, the default): a row whose game ended
  is dealt a new game in the same `step`; the returned row is the new game's first
  observation, the ended game's last observation of the acting seat is
  ``infos["final_obs"][i]`` and ``infos["_final_obs"][i]`` is true (Gymnasium's
  convention), with ``infos["final_rewards"]`` / ``infos["final_seed"]`` beside it.
  Gymnasium's vector observation wrappers (``FlattenObservation``,
  ``NormalizeObservation``, …) refuse this mode (`VectorObservationWrapper` checks
  ``metadata["autoreset_mode"]``): they would transform the returned observations and
  miss the final ones. `RecordEpisodeStatistics` and the reward wrappers take it.
- Autoreset, next step (``autoreset_mode=AutoresetMode.NEXT_STEP``): the row shows the
  ended game's last observation itself (no ``final_obs``; ``final_rewards``,
  ``final_seed`` and ``illegal`` as above, in the step that ends it), and the next
  `step` deals it the next game, ignores that row's action (any value; the raise policy
  does not judge it) and returns reward 0, no termination and the new game's first
  observation. A row's games are the same in both modes. The observation wrappers
  accept it.
- Where the masks go: ``action_mask="observation"`` (the default) gives the `Dict`
  above; ``action_mask="info"`` gives the observation array alone (the space is the
  `Box` of the Dict's ``"observation"``) and the masks in ``infos["action_mask"]``
  (``final_obs`` holding arrays too), as `TeamEnv` hands its masks out. The wrappers
  that need a `Box` (``NormalizeObservation``, ``DtypeObservation``,
  ``RescaleObservation``) need this: on the `Dict`, Gymnasium refuses the last two by
  name, and ``NormalizeObservation`` fails at the first reset with an ``AxisError``.
- Rows as sub-environments: `call` / `get_attr` / `set_attr` as Gymnasium's
  `SyncVectorEnv` has them, a row being one game (`MafiaVectorEnv.call`).
- Seeding, per game: ``reset(seed=s)`` deals row i the engine seed ``s + i`` (so row i's
  first game is the AEC env's ``reset(seed=s + i)``, decision for decision, its
  waiting turns left out); each later
  game of row i takes its seed from a generator seeded with ``(s, i)``.
  A game's engine seed, which replays it, is given when it has ended
  (``infos["final_seed"]``), never while it is played: the seed fixes the deal, and an
  info that a learner's loop can read is no place for the hidden roles. Ended games'
  seeds are still the host's: a row's first is ``s + i``, which gives ``s`` and so
  every later game of the row, so a loop must not hand ``final_seed`` to a policy.
  A list of seeds gives each row its own first seed (None: one drawn from the env's
  generator, as Gymnasium's vector envs take it); ``options={"reset_mask": mask}``
  deals new games in the marked rows only. Seeds are integers, as the AEC env's:
  a float (``1.0`` too), in the list or alone, raises `TypeError` naming it, never
  truncated to another game's seed.
- Illegal actions (ids of the table the mask leaves out): with ``illegal_reward`` a
  number (the default, -1 as in `env()`), an illegal action ends that row's game with
  that reward for the mover and 0 for everyone else (``infos["illegal"][i]`` true), and
  the row is dealt a new game; with ``illegal_reward=None`` the step raises
  `IllegalActionError` before any row changes. Anything else (text, a bool, NaN, an
  infinity) is refused when the env is built or the setting is set (`reward_setting`).

The env pickles and deep-copies mid-game: each row's game is rebuilt by replaying its
decisions (as the AEC and Parallel envs do).

Only numbers cross the API unless ``text=True`` (then ``infos["text"][i]`` is row i's
text view of its seat, as the AEC env's ``infos``): a learner reads the stacked arrays,
and rendering the text costs more than the numbers. For the labelled choices and free
text use the AEC env with language agents.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from mafia_arena.engine import Game, Request
from mafia_arena.env.actions import ActionTable, build_action_table
from mafia_arena.env.session import (
    IllegalActionError,
    NotAnActionError,
    action_index,
    out_of_range,
    reward_setting,
    whole_seed,
)
from mafia_arena.env.spaces import build_spaces, env_name, observation_spec
from mafia_arena.env.wrappers import ILLEGAL_REWARD
from mafia_arena.rules import Variant, load_variant
from mafia_arena.views.encode_history import ObservationSpec, make_encoder
from mafia_arena.views.text import render_with_request
from mafia_arena.views.view import SeatTracker

Obs = dict[str, np.ndarray]
Batch = Any
"""The observations `reset` and `step` return: an `Obs` by default, the observation
array alone with ``action_mask="info"``. Typed loosely so that a caller of either
setting reads its own without a cast."""
MODES = (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)
"""The autoreset modes the env offers (`MafiaVectorEnv`'s ``autoreset_mode``)."""

RAISE = "an illegal action raises"
"""What ``illegal_reward=None`` means, in the refusal of a bad one (`reward_setting`)."""


def _seed(seed: Any, row: int | None = None) -> int | None:
    """`seed` (row `row`'s in a list) as `whole_seed` takes it: an int or a numpy integer;
    `TypeError` naming it otherwise. A list used to truncate ``1.5`` to 1 and a lone
    float to fail as "not iterable"."""
    try:
        return whole_seed(seed)
    except TypeError:
        where = "" if row is None else f" (row {row})"
        raise TypeError(
            f"reset: seed {seed!r}{where} is not an integer; seeds are ints or numpy integers"
        ) from None


class MafiaVectorEnv(VectorEnv):
    """`num_envs` games of one variant at one player count (see the module docstring)."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012

    def __init__(
        self,
        variant: str | Path | Variant = "standard",
        players: int = 7,
        num_envs: int = 8,
        overrides: Mapping[str, Any] | None = None,
        illegal_reward: float | None = ILLEGAL_REWARD,
        copy: bool = True,
        text: bool = False,
        observation: str | ObservationSpec = "v0",
        history_days: int = 3,
        egocentric: bool = False,
        max_players: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        action_mask: Literal["observation", "info"] = "observation",
    ) -> None:
        """`variant`, `players`, `overrides` as for `env()` (overrides apply to a variant
        name or path); `illegal_reward`, `autoreset_mode` (`MODES`, or its value such
        as ``"NextStep"``) and `action_mask` (where the masks go) as in the module
        docstring; `copy`: return fresh
        arrays from `reset`/`step` (False: read-only views of the env's own buffers,
        overwritten by the next call — faster, for loops that consume them at once);
        `text`: also return each row's text view in ``infos["text"]`` (off by default:
        rendering it costs more than the numbers, and a learner reads the arrays);
        `observation`, `history_days`, `egocentric`, `max_players`: the observation
        layout and its options, as for `env()` (`docs/env.md`)."""
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer):
            raise TypeError(f"num_envs must be a whole number of games, not {num_envs!r}")
        if num_envs < 1:
            raise ValueError("num_envs must be at least 1")
        num_envs = int(num_envs)
        mode = _autoreset_mode(autoreset_mode)
        if action_mask not in ("observation", "info"):
            raise ValueError(
                f"action_mask must be 'observation' (a Dict observation holding the mask) "
                f"or 'info' (a Box observation, the masks in infos), not {action_mask!r}"
            )
        self.autoreset_mode = mode
        self.action_mask = action_mask
        self._masks_in_info = action_mask == "info"
        spec = variant if isinstance(variant, Variant) else load_variant(variant, overrides)
        self.variant = spec
        self.num_envs = num_envs
        self.players = players
        self.illegal_reward = reward_setting("illegal_reward", illegal_reward, none=RAISE)
        self.copy = copy
        self.text = text
        self.observation = observation_spec(observation, history_days, egocentric, max_players)
        # one action table for every row: its masks are kept per choices tuple, and the
        # engine shares those tuples between games, so the rows share the masks too
        self.table: ActionTable = build_action_table(spec, players)
        # per row: one encoder, and one tracker per seat (each follows only its seat's
        # stream, and rebinds itself to the row's next game)
        layout = self.observation
        self._encoders = [make_encoder(spec, players, layout) for _ in range(num_envs)]
        self._rotations: list[np.ndarray] | None = None
        """With an egocentric layout, per seat: its relative action ids → the table's
        (`ActionTable.rotation`), as the AEC env maps them; None otherwise."""
        if layout.egocentric:
            self._rotations = [self.table.rotation(seat) for seat in range(players)]
        self._trackers = [[SeatTracker(s) for s in range(players)] for _ in range(num_envs)]
        self.games: list[Game] = []
        """The game of each row (after `reset`)."""
        size, actions = self._encoders[0].size, self.table.size
        self.metadata = {
            **type(self).metadata,
            "autoreset_mode": mode,
            "name": f"{env_name(spec)}_vector",
            "observation": {**layout.header(), "size": size},
        }
        row_spaces, row_actions = build_spaces(["row"], size, actions)
        row_space: spaces.Dict = row_spaces["row"]
        self.single_observation_space: spaces.Dict | spaces.Box = (
            row_space["observation"] if self._masks_in_info else row_space  # type: ignore[assignment]
        )
        self.single_action_space: spaces.Discrete = row_actions["row"]
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, actions))
        self._obs = np.zeros((num_envs, size), dtype=np.float32)
        self._masks = np.zeros((num_envs, actions), dtype=np.int8)
        self._shared: Obs = {
            "observation": _read_only(self._obs),
            "action_mask": _read_only(self._masks),
        }
        """What ``copy=False`` hands out: read-only views of the buffers, which the env
        rewrites at every call and a caller's write must not reach (an illegal move's
        final observation is copied from them)."""
        self._shown: list[np.ndarray] = [self.table.shared_mask(None)] * num_envs
        """The mask each row shows, the table's own read-only array: legality is judged
        on it, not on the buffers a caller may hold (`copy=False`)."""
        self._seats = [0] * num_envs
        self._row_seeds: list[np.random.Generator] = []
        self._ended: set[int] = set()
        """With `AutoresetMode.NEXT_STEP`, the rows showing the last observation of a
        game that ended in the last `step`: the next `step` deals them a new game and
        ignores their actions. Always empty with `AutoresetMode.SAME_STEP`."""

    @property
    def seats(self) -> np.ndarray:
        """The seat each row shows (as ``infos["seat"]``)."""
        return np.array(self._seats, dtype=np.int64)

    # ------------------------------------------------------------------ API
    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Batch, dict[str, Any]]:
        """Deal a new game in every row; `seed` as in the module docstring.

        ``options={"reset_mask": mask}`` (a bool array, one per row, at least one true)
        deals new games in the rows it marks only, as Gymnasium's `SyncVectorEnv` does;
        the other rows go on with their games (the seeds of the rows left out are not
        used). Other options are ignored, as a sub-environment's unknown ones are."""
        n = self.num_envs
        rows = self._reset_rows(options)
        if seed is None:
            first = [int(s) for s in self.np_random.integers(2**31, size=n)]
            keys = first
        elif isinstance(seed, str | bytes) or not (
            isinstance(seed, Sequence) or (isinstance(seed, np.ndarray) and seed.ndim)
        ):
            whole = _seed(seed)
            assert whole is not None  # None took the first branch
            super().reset(seed=whole)
            first = [whole + i for i in range(n)]
            keys = [whole] * n
        else:
            seeds = [_seed(s, row) for row, s in enumerate(seed)]
            if len(seeds) != n:
                raise ValueError(f"reset: {len(seeds)} seeds for {n} games")
            draw = self.np_random.integers
            first = keys = [int(draw(2**31)) if s is None else s for s in seeds]
        # row i's later games: a generator keyed by (its seed key, i), independent of
        # how many games the other rows have played
        if rows is None:
            rows = list(range(n))
            self._row_seeds = [np.random.default_rng([k, i]) for i, k in enumerate(keys)]
            self.games = [self._new_game(row, s) for row, s in enumerate(first)]
            self._ended = set()
        else:
            for row in rows:
                self._row_seeds[row] = np.random.default_rng([keys[row], row])
                self.games[row] = self._new_game(row, first[row])
                self._ended.discard(row)
        for row in rows:
            self._show(row, self.games[row])
        infos: dict[str, Any] = {"seat": self.seats}
        if self.text:
            infos["text"] = self._texts()
        return self._out(infos), infos

    def _reset_rows(self, options: Mapping[str, Any] | None) -> list[int] | None:
        """The rows ``options["reset_mask"]`` marks, None without one (every row); checked
        as Gymnasium's `SyncVectorEnv` checks it, and refused before the first reset,
        when the rows it leaves out have no game to go on with."""
        if options is None or "reset_mask" not in options:
            return None
        mask = options["reset_mask"]
        if not isinstance(mask, np.ndarray):
            raise TypeError(f"options['reset_mask'] must be a numpy array, got {type(mask)}")
        if mask.shape != (self.num_envs,):
            raise ValueError(
                f"options['reset_mask'] must have shape ({self.num_envs},), got {mask.shape}"
            )
        if mask.dtype != np.bool_:
            raise TypeError(f"options['reset_mask'] must have dtype bool, got {mask.dtype}")
        if not mask.any():
            raise ValueError("options['reset_mask'] must mark at least one row")
        if not self.games:  # nothing to go on with: every row, or a refusal
            if not mask.all():
                raise RuntimeError("reset() every row before resetting some with reset_mask")
            return None
        return np.flatnonzero(mask).tolist()

    def step(
        self, actions: Any
    ) -> tuple[Batch, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One decision per row, for the seat that row showed; see the module docstring."""
        if not self.games:
            raise RuntimeError("reset() the vector env before stepping it")
        ids = self._ids(actions)
        resetting = self._ended  # next-step autoreset: these rows' actions are ignored
        for row in resetting:
            ids[row] = 0
        self._check_range(ids)
        legal = [mask[a] == 1 for a, mask in zip(ids, self._shown, strict=True)]
        for row in resetting:
            legal[row] = True
        if self.illegal_reward is None and not all(legal):
            row = legal.index(False)
            raise IllegalActionError(f"row {row}: {self._refusal(row, actions)}")
        if self._rotations is not None:  # egocentric ids → the table's, once judged legal
            rotations = self._rotations
            ids = [
                int(rotations[seat][a]) if ok else a
                for a, ok, seat in zip(ids, legal, self._seats, strict=True)
            ]
        n = self.num_envs
        rewards = np.zeros(n, dtype=np.float32)
        terminations = np.zeros(n, dtype=bool)
        ended: dict[int, tuple[Obs, np.ndarray, bool]] = {}
        choices, seats = self.table.choices, self._seats
        for row, game in enumerate(self.games):
            if resetting and row in resetting:
                self._next_game(row)
                continue
            seat = seats[row]
            if legal[row]:
                game.submit(seat, choices[ids[row]])
                if not game.state.over:
                    self._show(row, game)
                    continue
                final = _team_rewards(game, self.players)
                ended[row] = (self._observe(row, game, seat), final, False)
            else:  # illegal, under the terminate policy
                final = np.zeros(self.players, dtype=np.float32)
                final[seat] = self.illegal_reward or 0.0
                shown = {"observation": self._obs[row].copy(), "action_mask": self._shown[row]}
                ended[row] = (shown, final, True)
            rewards[row] = final[seat]
            terminations[row] = True
        infos = self._final_infos(ended)
        if self.autoreset_mode is AutoresetMode.SAME_STEP:
            for row in ended:
                self._next_game(row)
        else:  # the rows show their ended games' last observations until the next step
            for row, (last, _, _) in ended.items():
                self._obs[row] = last["observation"]
                self._masks[row] = self._shown[row] = last["action_mask"]
            self._ended = set(ended)
        infos["seat"] = self.seats
        if self.text:
            infos["text"] = self._texts()
        return self._out(infos), rewards, terminations, np.zeros(n, dtype=bool), infos

    def close_extras(self, **kwargs: Any) -> None:
        self.games = []

    # ------------------------------------------------------------------ rows as envs
    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """`name` of every row, one value per row, as Gymnasium's `SyncVectorEnv.call`
        asks each sub-environment. A row is one game, so:

        - `ROW_VALUES` differ per row: ``"seat"`` (the seat the row shows) and
          ``"action_masks"`` (its mask as bools, what `TeamEnv.action_masks` gives and
          sb3-contrib's masked algorithms read);
        - `SHARED` settings are the env's, the same for every row (``"players"``,
          ``"metadata"``, …; ``"observation_space"`` / ``"action_space"`` are a row's,
          the single spaces).

        Anything else is refused with `AttributeError`, the env's own methods
        (``"reset"``, ``"step"``) included: rows have none of their own, and calling
        the env's once per row would deal or step every game `num_envs` times."""
        per_row = ROW_VALUES.get(name)
        if per_row is not None:
            if not self.games:
                raise RuntimeError("reset() the vector env before reading its rows")
            return tuple(per_row(self, row, *args, **kwargs) for row in range(self.num_envs))
        if name not in SHARED:
            raise AttributeError(
                f"{name!r} is not an attribute of a row of {self!r}; per row: "
                f"{sorted(ROW_VALUES)}, shared by the rows: {sorted(SHARED)}"
            )
        return (getattr(self, SHARED[name]),) * self.num_envs

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """`call(name)` without arguments, as Gymnasium's vector envs define it."""
        return self.call(name)

    def set_attr(self, name: str, values: Any) -> None:
        """Set one of the env's options (`SETTABLE`: ``"illegal_reward"``, ``"copy"``,
        ``"text"``), as Gymnasium's `SyncVectorEnv.set_attr` sets it on every
        sub-environment: `values` is one value, or a list or tuple of one per row. The
        rows share these options, so a list must hold one value `num_envs` times;
        differing values are refused rather than silently merged."""
        if name not in SETTABLE:
            raise AttributeError(f"set_attr: {name!r} is not settable; settable: {SETTABLE}")
        if isinstance(values, list | tuple):
            if len(values) != self.num_envs:
                raise ValueError(
                    f"set_attr: {len(values)} values for {self.num_envs} rows "
                    "(give one value, or one per row)"
                )
            if any(value != values[0] for value in values):
                raise ValueError(
                    f"set_attr: {name!r} is one setting for every row, got {list(values)}"
                )
            values = values[0]
        if name == "illegal_reward":
            values = reward_setting("illegal_reward", values, none=RAISE)
        else:
            values = bool(values)
        setattr(self, name, values)

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        """A running `Game` does not pickle (nor do the seats' folds), so each row is
        stored as its game's seed and decisions and rebuilt by replaying them, as
        `GameSession` does; the generators of the later games go as they are."""
        return {
            "variant": self.variant,
            "players": self.players,
            "num_envs": self.num_envs,
            "illegal_reward": self.illegal_reward,
            "copy": self.copy,
            "text": self.text,
            "observation": self.observation,
            "autoreset_mode": self.autoreset_mode,
            "action_mask": self.action_mask,
            "ended": {row: self._seats[row] for row in self._ended},
            "rows": [(game.seed, list(game.decisions)) for game in self.games],
            "row_seeds": self._row_seeds,
            "np_random": (self._np_random, self._np_random_seed),
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        MafiaVectorEnv.__init__(
            self,
            state["variant"],
            state["players"],
            state["num_envs"],
            illegal_reward=state["illegal_reward"],
            copy=state["copy"],
            text=state["text"],
            observation=state["observation"],
            autoreset_mode=state.get("autoreset_mode", AutoresetMode.SAME_STEP),
            action_mask=state.get("action_mask", "observation"),
        )
        self._row_seeds = state["row_seeds"]
        self._np_random, self._np_random_seed = state["np_random"]
        ended: dict[int, int] = state.get("ended", {})
        self._ended = set(ended)
        for row, (seed, decisions) in enumerate(state["rows"]):
            game = self._new_game(row, seed)
            for record in decisions:
                game.resubmit(record)
            self.games.append(game)
            if row in ended and game.state.over:  # showing the game's last view
                self._seats[row] = ended[row]
                last = self._observe(row, game, ended[row])
                self._obs[row] = last["observation"]
                self._masks[row] = self._shown[row] = last["action_mask"]
            else:  # playing, or ended by an illegal move: the view it showed
                self._show(row, game)

    # ------------------------------------------------------------------ internals
    def _ids(self, actions: Any) -> list[int]:
        """Every row's action as an int; `ValueError` unless there is one action per row,
        `NotAnActionError` (an `IllegalActionError`; before any row changes, whatever
        `illegal_reward` says) unless the actions are integers.

        As the AEC env's `step` takes them: an integer array of any width, or Python and
        numpy integers in a list. Floats (``3.0`` too) and numpy bools are refused, never
        cast: a policy that emits them has a bug to see, and turning one into an illegal
        move would bury it in the rewards. One dtype check per call: integer arrays, the
        usual case, cost nothing more."""
        actions = np.asarray(actions)
        if actions.size != self.num_envs:
            raise ValueError(
                f"step: expected num_envs = {self.num_envs} actions (one per game), "
                f"got {actions.size}"
            )
        actions = actions.reshape(self.num_envs)
        if actions.dtype.kind in "iu":
            return actions.tolist()
        values, row = actions.tolist(), 0
        if actions.dtype.kind == "O":  # Python objects: each judged as the AEC env does
            ids = [action_index(value) for value in values]
            if None not in ids:
                return cast(list[int], ids)
            row = ids.index(None)
        raise NotAnActionError(
            f"row {row}: player_{self._seats[row]}: action {values[row]!r} is not an "
            f"integer action id (the actions' dtype is {actions.dtype}; step takes integers)"
        )

    def _check_range(self, ids: list[int]) -> None:
        """`ActionOutOfRangeError` naming the first row whose id is outside the action
        table (negative, or at least its size), before any row changes and whatever
        `illegal_reward` says: the table has no such move to play or to score, as in
        every env of the package (`session.ActionOutOfRangeError`)."""
        size = self.table.size
        if min(ids) >= 0 and max(ids) < size:  # the usual case: two passes in C
            return
        row = next(r for r, a in enumerate(ids) if not 0 <= a < size)
        raise out_of_range(f"row {row}: player_{self._seats[row]}", ids[row], size)

    def _refusal(self, row: int, actions: Any) -> str:
        """Why row `row`'s action is not legal for its seat (the engine's prompt)."""
        seat = self._seats[row]
        action = np.asarray(actions).reshape(self.num_envs)[row]
        request = self.games[row].request(seat)
        kind = None if request is None else request.kind
        legal = np.flatnonzero(self._shown[row]).tolist()
        return f"player_{seat}: action {action!r} is not legal for {kind!r}; legal ids: {legal}"

    def _final_infos(self, ended: dict[int, tuple[Obs, np.ndarray, bool]]) -> dict[str, Any]:
        """The infos of the rows whose games `ended` in this step: their seats' rewards,
        seeds and illegal flags, and with the same-step autoreset their last
        observations (with the next-step one the rows themselves show those)."""
        if not ended:
            return {}
        n = self.num_envs
        flags = np.zeros(n, dtype=bool)
        flags[list(ended)] = True
        final_obs = np.full(n, None, dtype=object)
        final_rewards = np.zeros((n, self.players), dtype=np.float32)
        illegal = np.zeros(n, dtype=bool)
        seeds = np.full(n, -1, dtype=np.int64)
        for row, (obs, final, was_illegal) in ended.items():
            final_obs[row] = obs["observation"] if self._masks_in_info else obs
            final_rewards[row] = final
            illegal[row] = was_illegal
            seeds[row] = self.games[row].seed  # the ended game: rows get new ones after
        infos: dict[str, Any] = {
            "final_rewards": final_rewards,
            "_final_rewards": flags.copy(),
            "final_seed": seeds,
            "illegal": illegal,
        }
        if self.autoreset_mode is AutoresetMode.SAME_STEP:
            infos["final_obs"], infos["_final_obs"] = final_obs, flags
        return infos

    def _next_game(self, row: int) -> None:
        """Deal `row` its next game (the seed from the row's own generator) and show it."""
        game = self.games[row] = self._new_game(row, int(self._row_seeds[row].integers(2**31)))
        self._show(row, game)

    def _new_game(self, row: int, seed: int) -> Game:
        """A new game for `row`, its trackers bound to it (and folded up to its start):
        from here on a seat's new entries are pulled from its stream straight away."""
        self._encoders[row].reset()
        game = Game(self.variant, self.players, seed)
        for tracker in self._trackers[row]:
            tracker.advance(game)
        return game

    def _show(self, row: int, game: Game) -> None:
        """Write the observation and mask of the row's next seat into the buffers."""
        pending = game.pending()
        seat = min(pending)
        request = pending[seat]
        tracker = self._trackers[row][seat]
        fold = tracker.fold
        fold.extend(tracker.stream.pull())  # type: ignore[union-attr]  # bound by `_new_game`
        self._encoders[row].encode_seat(fold, request, self._obs[row])  # into the buffer
        mask = self.table.shared_mask(request)
        if self._rotations is not None:  # egocentric: the seat's relative ids
            mask = mask[self._rotations[seat]]
        self._masks[row] = self._shown[row] = mask
        self._seats[row] = seat

    def _texts(self) -> np.ndarray:
        """Every row's text view of the seat it shows (the AEC env's ``infos`` text),
        as an object array."""
        texts = np.empty(self.num_envs, dtype=object)
        for row, (game, seat) in enumerate(zip(self.games, self._seats, strict=True)):
            fold = self._trackers[row][seat].fold  # advanced by `_show`
            transcript = fold.transcript.text(len(fold.entries))
            texts[row] = render_with_request(transcript, seat, game.request(seat))
        return texts

    def _observe(self, row: int, game: Game, seat: int) -> Obs:
        """The seat's observation now, as fresh arrays (a finished game's last one)."""
        request = game.request(seat)
        fold = self._trackers[row][seat].advance(game)
        observation = self._encoders[row].encode_seat(fold, request)
        return {"observation": observation, "action_mask": self._mask(seat, request)}

    def _mask(self, seat: int, request: Request | None) -> np.ndarray:
        """The seat's mask of `request`: the table's shared read-only array, or with an
        egocentric layout its rotation into the seat's relative ids."""
        mask = self.table.shared_mask(request)
        if self._rotations is not None:
            mask = mask[self._rotations[seat]]
        return mask

    def _out(self, infos: dict[str, Any]) -> Batch:
        """The observations to return (fresh arrays, or with ``copy=False`` the read-only
        views of the buffers); with ``action_mask="info"`` the observation array alone,
        the masks going into `infos`."""
        if self.copy:
            observation, masks = self._obs.copy(), self._masks.copy()
        else:
            observation, masks = self._shared["observation"], self._shared["action_mask"]
        if self._masks_in_info:
            infos["action_mask"] = masks
            return observation
        return {"observation": observation, "action_mask": masks}

    def __repr__(self) -> str:
        return f"MafiaVectorEnv({self.metadata['name']}, num_envs={self.num_envs})"


ROW_VALUES: dict[str, Callable[..., Any]] = {
    "seat": lambda env, row: env._seats[row],
    "action_masks": lambda env, row: env._shown[row].astype(bool),
}
"""The values `MafiaVectorEnv.call` reads per row (the env and the row as arguments)."""

SHARED = {
    **{name: name for name in ("players", "variant", "observation", "metadata", "spec")},
    **{name: name for name in ("render_mode", "illegal_reward", "copy", "text")},
    **{name: name for name in ("autoreset_mode", "action_mask")},
    "observation_space": "single_observation_space",
    "action_space": "single_action_space",
}
"""The settings every row shares, for `MafiaVectorEnv.call` (name → the env's
attribute): a row's spaces are the env's single spaces, as a sub-environment's are."""

SETTABLE = ("illegal_reward", "copy", "text")
"""The options `MafiaVectorEnv.set_attr` sets (shared by every row)."""


def _autoreset_mode(mode: AutoresetMode | str) -> AutoresetMode:
    """`mode` as one of `MODES`; `ValueError` naming them otherwise. Why no
    `AutoresetMode.DISABLED`: a row's game would then stay over until the caller reset
    that row alone, and `reset` deals every row."""
    try:
        found = AutoresetMode(mode)
    except ValueError:
        found = None
    if found is None or found not in MODES:
        offered = " or ".join(f"{m} ({m.value!r})" for m in MODES)
        raise ValueError(f"autoreset_mode must be {offered}, not {mode!r}")
    return found


def _read_only(buffer: np.ndarray) -> np.ndarray:
    """A view of `buffer` that refuses writes (the buffer itself stays writeable)."""
    view = buffer.view()
    view.flags.writeable = False
    return view


def _team_rewards(game: Game, players: int) -> np.ndarray:
    """+1 for the winning faction's seats, -1 for the others, 0 for all on a draw (as
    `GameSession.team_rewards`)."""
    state = game.state
    if state.winner is None:
        return np.zeros(players, dtype=np.float32)
    final = np.full(players, -1.0, dtype=np.float32)
    final[list(state.winners)] = 1.0
    return final
