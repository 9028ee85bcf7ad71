"""The PettingZoo AEC environment: one seat decides per `step`.

Contract (see `docs/env.md` and `mafia_arena.env`):

- agents ``player_0 … player_{n-1}``; a killed seat is *not* a terminated agent: it stays
  in `agents` (and keeps observing) until the game ends, but is never selected;
- by day `agent_selection` is the lowest seat of `game.pending()`: a decision the engine
  makes simultaneous (a vote) is asked one seat at a time in seat order, and nobody sees
  another's answer before the engine publishes the batch;
- a night is a fixed number of slots (`engine/night_clock.py`), and in every slot each
  living seat is selected once, in seat order: the seats of the slot's prompt decide, the
  others have only action 0 (wait). So the turns a seat gets, and their order, are the
  same in every deal it cannot tell apart, whoever holds a night role; a forum game's
  rounds go the same way (`session.in_rounds`), so a seat that has passed still takes a
  waiting turn while others hand in forms;
- at the end every agent terminates with its team reward (+1 win, -1 loss, 0 draw; the
  engine turns the variant's maximum length into a draw);
- an illegal action raises `IllegalActionError` and changes nothing: turning it into a
  loss is the `TerminateIllegalWrapper` policy that `env()` adds, never a silent fix;
  what is no move at all (no integer id, an id outside the action table, an over-long
  speech: `NotAMoveError`) is raised under that policy too.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from pettingzoo import AECEnv

from mafia_arena.env.session import GAME_OVER, NOT_RESET, IllegalActionError
from mafia_arena.env.spaces import SessionSpaces, observation_spec
from mafia_arena.rules import Variant
from mafia_arena.views.encode_history import ObservationSpec
from mafia_arena.views.view import View


class raw_env(SessionSpaces, AECEnv):
    """Mafia as an AEC game (unwrapped; `mafia_arena.env.env()` adds the policies)."""

    # not "is_parallelizable": the turn order is the engine's, not a cycle, so use the
    # native `raw_parallel_env` rather than PettingZoo's aec_to_parallel conversion

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
        """`max_text`: keep at most this many trailing characters of the text view in
        `infos` (None: all; 0: no text at all, the fastest setting for RL)."""
        super().__init__()
        spec = observation_spec(observation, history_days, egocentric, max_players)
        self._set_up(variant, players, overrides, render_mode, max_text, spec)
        self.agent_selection = self.possible_agents[0]
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self._turns: list[int] = []
        """The living seats still to be selected in the current round of turns (a night
        slot, or a forum round: `session.in_rounds`)."""

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game. `seed` is the engine seed (a game replays from it); without
        one, the next seed comes from a generator seeded by the last explicit seed."""
        self._deal(seed, options)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: self.session.waiting_info(s) for s, a in enumerate(self.agents)}
        self._turns = []
        self._select_next()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation now; `UnknownAgentError` naming the agent and the
        possible ones for a name that is not among `possible_agents`."""
        return self.session.observe(self._seat(agent, "observe"))

    def step(self, action: Any) -> None:
        """Answer the selected seat with an action id (an integer; see the module
        docstring). Before the first `reset` it raises `RuntimeError`; once every agent
        has been stepped out of a finished game, `IllegalActionError` (reset first)."""
        agent = self.agent_selection
        if self.session.game is None:
            raise RuntimeError(NOT_RESET)
        if not self.agents:
            raise IllegalActionError(GAME_OVER)
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat(agent)
        if self.session.in_rounds and not self.session.asks(seat):
            self.session.check_wait(seat, action)
        else:
            self.session.act(seat, action)
        self._end_turn()
        self._after_decision(agent)

    def step_text(self, text: str) -> None:
        """Answer the selected seat's speaking turn with free text instead of an action.

        Only for requests whose `infos[agent]["request"]["free_text"]` is true; anything
        else raises `IllegalActionError` (so does a finished game), and text longer than
        the request's ``max_chars`` `SpeechTooLongError` (refused, never cut, as a `str`
        action in Parallel). `env()` passes it through its wrappers.
        """
        agent = self.agent_selection
        if self.session.game is None:
            raise RuntimeError(NOT_RESET)
        if not self.agents:
            raise IllegalActionError(GAME_OVER)
        if self.terminations[agent] or self.truncations[agent]:
            raise ValueError(f"{agent} is done; step(None) it")
        self.session.say(self._seat(agent), text)
        self._end_turn()
        self._after_decision(agent)

    def view(self, agent: str) -> View:
        """The seat's `View` (knowledge and request), for agents that consume views;
        `UnknownAgentError` as in `observe`."""
        return self.session.view(self._seat(agent, "view"))

    def render(self) -> str | None:
        if self.session.game is None:
            return None
        return self.session.render(self.render_mode, self._seat(self.agent_selection))

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ internals
    def _after_decision(self, agent: str) -> None:
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        if any(rewards.values()):  # only the end (or a wrapper's penalty) sets any
            for a in self.agents:
                rewards[a] = 0.0
        if self.session.over:
            for seat, reward in self.session.team_rewards().items():
                a = self.possible_agents[seat]
                self.rewards[a] = reward
                self.terminations[a] = True
                self.infos[a] = self.session.info(seat)
            self._accumulate_rewards()
            self.agent_selection = self.possible_agents[0]
        else:
            self._select_next()

    def _end_turn(self) -> None:
        """A day decision ends a turn; at night (and in a forum round), the last seat
        of the slot ends it."""
        if not self.session.in_rounds:
            self.session.close_turn()
            return
        self._turns.pop(0)
        if not self._turns:
            self.session.close_turn()

    def _select_next(self) -> None:
        if self.session.in_rounds:
            living = self.session.living_seats()
            # a seat killed during a forum round (an attack, announced at once) is not
            # selected again
            self._turns = [s for s in self._turns if s in living] or living
            seat = self._turns[0]
        else:
            self._turns = []
            seat = self.session.pending_seats()[0]
        self.agent_selection = self.possible_agents[seat]
        self.infos[self.agent_selection] = self.session.info(seat)

    def _seat(self, agent: str, where: str = "step") -> int:
        """The seat of `agent`; `UnknownAgentError` for a name that is no agent, met in
        the method `where`. Why: a name such as ``player_99`` was read as a seat number
        and failed deep in the session with a bare `IndexError`, ``player_x`` with a
        `ValueError` about an integer, and ``player_03`` was served as seat 3."""
        seat = self._seat_of.get(agent)
        if seat is None:
            raise self._unknown(agent, where)
        return seat

    def __str__(self) -> str:
        return self.metadata["name"]
