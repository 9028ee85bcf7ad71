"""The PettingZoo Parallel environment: every pending seat decides in one `step`.

Contract:

- every seat stays in `agents` until the game ends; by day `step(actions)` answers all
  seats of `game.pending()` at once (a whole simultaneous vote, or the one speaker of a
  speaking turn), so one step is one engine decision batch;
- a night is a fixed number of steps, one per slot of the `NightClock`
  (`engine/night_clock.py`): the same in every deal, whoever is alive, so the count of
  steps tells no seat which roles still act; in a slot only the seats of its prompt
  decide (a clan's round of picks, the doctor's pick), in a waiting slot nobody does;
- a seat with nothing to decide now (waiting, or dead) gets a mask with only action 0
  (no-op) and its action, whatever it is, is ignored;
- a pending seat's action may also be a `str`: free text for a speaking turn
  (requests with `free_text`); otherwise it is an action id (an int, a numpy integer or
  a 0-d integer array); anything else raises `NotAnActionError`, also under the
  terminate-on-illegal policy: it is the caller's bug, not a move;
- an action id outside the action table (negative, or at least K) is no move either:
  `ActionOutOfRangeError`, under every policy; so is text longer than the turn's
  ``max_chars`` (`SpeechTooLongError`: refused, never cut, as `step_text` in AEC);
- the batch is checked before anything is submitted, so an illegal action raises
  `IllegalActionError` with the state unchanged (`parallel_env()` adds the
  terminate-on-illegal policy);
- at the end every agent terminates with its team reward and `agents` becomes empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from mafia_arena.engine import Choice
from mafia_arena.env.session import (
    GAME_OVER,
    NOT_RESET,
    IllegalActionError,
    NotAnActionError,
    speech_too_long,
    unknown_agent,
)
from mafia_arena.env.spaces import SessionSpaces, agent_name, observation_spec
from mafia_arena.rules import Variant
from mafia_arena.views.encode_history import ObservationSpec

Obs = dict[str, np.ndarray]


class raw_parallel_env(SessionSpaces, ParallelEnv):
    """Mafia as a Parallel game (unwrapped; `mafia_arena.env.parallel_env()` wraps it)."""

    def __init__(
        self,
        variant: str | Path | Variant = "standard",
        players: int = 7,
        overrides: Mapping[str, Any] | None = None,
        render_mode: str | None = None,
        max_text: int | None = None,
        observation: str | ObservationSpec = "v0",
        history_days: int = 3,
        egocentric: bool = False,
        max_players: int | None = None,
    ) -> None:
        """Arguments as for `raw_env`; `max_text` bounds the text view in `infos`."""
        spec = observation_spec(observation, history_days, egocentric, max_players)
        self._set_up(variant, players, overrides, render_mode, max_text, spec)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Obs], dict[str, dict[str, Any]]]:
        """Deal a new game; `seed` is the engine seed (as in `raw_env.reset`)."""
        self._deal(seed, options)
        return self._observations(), self._infos()

    def check_actions(self, actions: Mapping[str, Any]) -> dict[int, Choice | str]:
        """Validate the actions of every pending seat; raise `IllegalActionError`.

        Before the first `reset` it raises `RuntimeError`, and for a key that names no
        agent `ValueError` (`check_agents`)."""
        self.check_agents(actions)
        if not self.agents:
            raise IllegalActionError(GAME_OVER)
        return {seat: self.check_action(seat, actions) for seat in self.session.pending_seats()}

    def check_agents(self, actions: Mapping[str, Any]) -> None:
        """`RuntimeError` before the first `reset`, `UnknownAgentError` (a `ValueError`)
        for a key naming no agent (a misspelt name would otherwise be dropped
        unnoticed). Checked once per step, by `check_actions` or by a wrapper that
        judges seat by seat (`check_action`): an unknown name is the caller's error,
        not a seat's illegal move."""
        if self.session.game is None:
            raise RuntimeError(NOT_RESET)
        seat_of = self._seat_of
        for agent in actions:
            if agent not in seat_of:
                raise unknown_agent(agent, self.possible_agents, "the actions")

    def check_action(self, seat: int, actions: Mapping[str, Any]) -> Choice | str:
        """The decision of one pending seat in `actions`, or `IllegalActionError`; the
        keys of `actions` must have passed `check_agents`. A value that is no action at
        all is a `NotAMoveError`, which the terminate-on-illegal policy raises rather
        than scoring: no integer id, or text where the request takes none, as
        `step_text` refuses it in AEC (`NotAnActionError`); an id outside the action
        table (`ActionOutOfRangeError`); text longer than the turn's ``max_chars``
        (`SpeechTooLongError`, refused and never cut, as in AEC)."""
        agent = agent_name(seat)
        if agent not in actions:
            raise IllegalActionError(f"{agent} must decide now but has no action")
        action = actions[agent]
        if not isinstance(action, str):
            return self.session.check_action(seat, action)
        request = self.session.view(seat).request
        if request is None or not request.free_text:
            raise NotAnActionError(
                f"{agent}: this decision does not accept free text; give an action id"
            )
        if len(action) > request.max_chars:
            raise speech_too_long(agent, action, request.max_chars)
        return action

    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[
        dict[str, Obs],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        for seat, decision in self.check_actions(actions).items():
            if isinstance(decision, str):
                self.session.say(seat, decision)
            else:
                self.session.submit(seat, decision)
        self.session.close_turn()
        live = self.agents
        rewards = dict.fromkeys(live, 0.0)
        done = self.session.over
        if done:
            for seat, reward in self.session.team_rewards().items():
                rewards[agent_name(seat)] = reward
        observations, infos = self._observations(), self._infos()
        terminations = dict.fromkeys(live, done)
        truncations = dict.fromkeys(live, False)
        if done:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        if self.session.game is None:
            return None
        pending = self.session.pending_seats()
        return self.session.render(self.render_mode, pending[0] if pending else 0)

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ internals
    def _observations(self) -> dict[str, Obs]:
        observe = self.session.observe
        return {agent: observe(s) for s, agent in enumerate(self.agents)}

    def _infos(self) -> dict[str, dict[str, Any]]:
        """Full info (text, labelled choices) for seats that decide now or at the end."""
        session = self.session
        full = set(range(len(self.agents))) if session.over else set(session.pending_seats())
        return {
            agent: session.info(s) if s in full else session.waiting_info(s)
            for s, agent in enumerate(self.agents)
        }

    def __str__(self) -> str:
        return self.metadata["name"]
