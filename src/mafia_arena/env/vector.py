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
  `single_action_space` its `Discrete(K)`, `action_space` a `MultiDiscrete`).
- Rewards: ``rewards[i]`` is the reward of the seat that just acted in row i: 0 during
  play, its team reward at the end (+1 win, -1 loss, 0 draw). The other seats' end
  rewards are in ``infos["final_rewards"][i]`` (one per seat), to credit to each seat's
  last transition.
- Autoreset (`AutoresetMode.SAME_STEP`): a row whose game ended is dealt a new game in
  the same `step`; the returned row is the new game's first observation, the ended
  game's last observation of the acting seat is ``infos["final_obs"][i]`` and
  ``infos["_final_obs"][i]`` is true (Gymnasium's convention), with
  ``infos["final_rewards"]`` / ``infos["final_seed"]`` beside it.
- Seeding, per game: ``reset(seed=s)`` deals row i the engine seed ``s + i`` (so row i's
  first game is the AEC env's ``reset(seed=s + i)``, decision for decision, its
  waiting turns left out); each later
  game of row i takes its seed from a generator seeded with ``(s, i)``.
  ``infos["game_seed"]`` holds every row's current engine seed, which replays the game.
  A list of seeds gives each row its own first seed.
- Illegal actions: with ``illegal_reward`` a number (the default, -1 as in `env()`), an
  illegal action ends that row's game with that reward for the mover and 0 for everyone
  else (``infos["illegal"][i]`` true), and the row is dealt a new game; with
  ``illegal_reward=None`` the step raises `IllegalActionError` before any row changes.

Only numbers cross the API (no text view), which is what makes a batch cheap; for the
text and labelled choices use the AEC env with language agents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from mafia_arena.engine import Choice
from mafia_arena.env.session import GameSession, IllegalActionError
from mafia_arena.env.spaces import build_spaces, env_name
from mafia_arena.env.wrappers import ILLEGAL_REWARD
from mafia_arena.rules import Variant, load_variant

Obs = dict[str, np.ndarray]


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
    ) -> None:
        """`variant`, `players`, `overrides` as for `env()` (overrides apply to a variant
        name or path); `illegal_reward` as in the module docstring; `copy`: return fresh
        arrays from `reset`/`step` (False: the env's own buffers, overwritten by the next
        call — faster, for loops that consume them at once)."""
        if num_envs < 1:
            raise ValueError("num_envs must be at least 1")
        spec = variant if isinstance(variant, Variant) else load_variant(variant, overrides)
        # no night clock: a row hands each seat only its own decisions, so no seat sees
        # the steps of the others (as `rl.TeamEnv`); the AEC env's waiting turns would
        # only be rows with a single legal action
        self.sessions = [
            GameSession(spec, players, max_text=0, fixed_nights=False) for _ in range(num_envs)
        ]
        self.num_envs = num_envs
        self.players = players
        self.illegal_reward = None if illegal_reward is None else float(illegal_reward)
        self.copy = copy
        self.metadata = {**type(self).metadata, "name": f"{env_name(spec)}_vector"}
        session = self.sessions[0]
        observation, action = build_spaces(["row"], session.encoder.size, session.table.size)
        self.single_observation_space: spaces.Dict = observation["row"]
        self.single_action_space: spaces.Discrete = action["row"]
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, session.table.size))
        self._obs = np.zeros((num_envs, session.encoder.size), dtype=np.float32)
        self._masks = np.zeros((num_envs, session.table.size), dtype=np.int8)
        self.seats = np.zeros(num_envs, dtype=np.int64)
        self.game_seeds = np.zeros(num_envs, dtype=np.int64)
        self._row_seeds: list[np.random.Generator] = []

    # ------------------------------------------------------------------ API
    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """Deal a new game in every row; `seed` as in the module docstring."""
        n = self.num_envs
        if seed is None:
            first = [int(s) for s in self.np_random.integers(2**31, size=n)]
            keys = first
        elif isinstance(seed, int | np.integer):
            super().reset(seed=int(seed))
            first = [int(seed) + i for i in range(n)]
            keys = [int(seed)] * n
        else:
            first = keys = [int(s) for s in seed]
            if len(first) != n:
                raise ValueError(f"reset: {len(first)} seeds for {n} games")
        # row i's later games: a generator keyed by (its seed key, i), independent of
        # how many games the other rows have played
        self._row_seeds = [np.random.default_rng([k, i]) for i, k in enumerate(keys)]
        for row, game_seed in enumerate(first):
            self._deal(row, game_seed)
        return self._out(), {"seat": self.seats.copy(), "game_seed": self.game_seeds.copy()}

    def step(self, actions: Any) -> tuple[Obs, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One decision per row, for the seat that row showed; see the module docstring."""
        if not self._row_seeds:
            raise RuntimeError("reset() the vector env before stepping it")
        actions = np.asarray(actions).reshape(self.num_envs)
        decisions = self._check(actions)
        n = self.num_envs
        rewards = np.zeros(n, dtype=np.float32)
        terminations = np.zeros(n, dtype=bool)
        ended: dict[int, tuple[Obs, np.ndarray, bool]] = {}
        for row, session in enumerate(self.sessions):
            seat = int(self.seats[row])
            choice = decisions[row]
            if choice is None:  # illegal, under the terminate policy
                final = np.zeros(self.players, dtype=np.float32)
                final[seat] = self.illegal_reward or 0.0
                ended[row] = (session.observe(seat), final, True)
            else:
                game = session.game
                assert game is not None  # every row was dealt a game by reset()
                game.submit(seat, choice)
                if session.over:
                    team = session.team_rewards()
                    final = np.array([team[s] for s in range(self.players)], dtype=np.float32)
                    ended[row] = (session.observe(seat), final, False)
                else:
                    self._show(row, session.pending_seats()[0])
                    continue
            rewards[row] = final[seat]
            terminations[row] = True
        infos = self._final_infos(ended)
        for row in ended:
            self._deal(row, int(self._row_seeds[row].integers(2**31)))
        infos["seat"] = self.seats.copy()
        infos["game_seed"] = self.game_seeds.copy()
        return self._out(), rewards, terminations, np.zeros(n, dtype=bool), infos

    def close_extras(self, **kwargs: Any) -> None:
        self.sessions = []

    # ------------------------------------------------------------------ internals
    def _check(self, actions: np.ndarray) -> list[Choice | None]:
        """The choice of every row, None for an illegal one (terminate policy); under
        the raise policy the first illegal row raises before anything is submitted."""
        decisions: list[Choice | None] = []
        for row, session in enumerate(self.sessions):
            try:
                decisions.append(session.check_action(int(self.seats[row]), actions[row]))
            except IllegalActionError as exc:
                if self.illegal_reward is None:
                    raise IllegalActionError(f"row {row}: {exc}") from None
                decisions.append(None)
        return decisions

    def _final_infos(self, ended: dict[int, tuple[Obs, np.ndarray, bool]]) -> dict[str, Any]:
        if not ended:
            return {}
        n = self.num_envs
        flags = np.zeros(n, dtype=bool)
        flags[list(ended)] = True
        final_obs = np.full(n, None, dtype=object)
        final_rewards = np.zeros((n, self.players), dtype=np.float32)
        illegal = np.zeros(n, dtype=bool)
        for row, (obs, final, was_illegal) in ended.items():
            final_obs[row] = obs
            final_rewards[row] = final
            illegal[row] = was_illegal
        return {
            "final_obs": final_obs,
            "_final_obs": flags,
            "final_rewards": final_rewards,
            "_final_rewards": flags.copy(),
            "final_seed": np.where(flags, self.game_seeds, -1),
            "illegal": illegal,
        }

    def _deal(self, row: int, game_seed: int) -> None:
        session = self.sessions[row]
        session.new_game(game_seed)
        self.game_seeds[row] = game_seed
        self._show(row, session.pending_seats()[0])

    def _show(self, row: int, seat: int) -> None:
        self.seats[row] = seat
        obs = self.sessions[row].observe(seat)
        self._obs[row] = obs["observation"]
        self._masks[row] = obs["action_mask"]

    def _out(self) -> Obs:
        if self.copy:
            return {"observation": self._obs.copy(), "action_mask": self._masks.copy()}
        return {"observation": self._obs, "action_mask": self._masks}

    def __repr__(self) -> str:
        return f"MafiaVectorEnv({self.metadata['name']}, num_envs={self.num_envs})"
