"""Stepping the envs wrongly fails at once with a message that says what was wrong:
before any `reset`, with an agent name that does not exist, with an action that is not
an integer id, with the wrong number of actions for a vector env. Nothing is guessed:
a float is never truncated and an unknown name is never dropped."""

from __future__ import annotations

import numpy as np
import pytest

from mafia_arena import env as mafia_env
from mafia_arena.env import IllegalActionError, NotAnActionError
from mafia_arena.env.vector import MafiaVectorEnv


@pytest.mark.parametrize("make", [mafia_env.parallel_env, mafia_env.raw_parallel_env])
def test_a_parallel_step_before_reset_says_reset_was_never_called(make: object) -> None:
    env = make("standard", players=7)  # type: ignore[operator]
    with pytest.raises(RuntimeError, match=r"reset\(\) was never called"):
        env.step({})


def test_an_aec_step_before_reset_says_reset_was_never_called() -> None:
    with pytest.raises(RuntimeError, match=r"reset\(\) was never called"):
        mafia_env.raw_env("standard", players=7).step(0)


def pending_actions(env: object) -> dict[str, int]:
    """A legal action for every pending seat (the lowest legal id), 0 for the others."""
    raw = env.unwrapped  # type: ignore[attr-defined]
    actions = {}
    for seat, agent in enumerate(raw.agents):
        mask = raw.session.observe(seat)["action_mask"]
        actions[agent] = int(np.flatnonzero(mask)[-1])
    return actions


@pytest.mark.parametrize("make", [mafia_env.parallel_env, mafia_env.raw_parallel_env])
def test_an_unknown_agent_in_parallel_actions_is_named(make: object) -> None:
    env = make("standard", players=7)  # type: ignore[operator]
    env.reset(seed=0)
    env.step(pending_actions(env))  # a legal step first: the check is not only at start
    actions = {**pending_actions(env), "player_99": 0}
    with pytest.raises(ValueError, match="unknown agent 'player_99'"):
        env.step(actions)
    assert env.agents  # refused, not turned into an illegal move that ends the game
    env.step(pending_actions(env))


def test_an_unknown_agent_is_named_even_beside_an_illegal_action() -> None:
    """The wrapped env judges seat by seat; the unknown name is the caller's error and
    comes first, before any seat is blamed for an illegal move."""
    env = mafia_env.parallel_env("standard", players=7)
    env.reset(seed=0)
    actions = {**pending_actions(env), "player_99": 0}
    pending = env.unwrapped.session.pending_seats()
    actions[f"player_{pending[0]}"] = 10_000
    with pytest.raises(ValueError, match="unknown agent 'player_99'"):
        env.step(actions)
    assert env.agents


def deciding(env: mafia_env.raw_env) -> tuple[str, list[int]]:
    """Step waiting turns until the selected seat has a decision; its legal ids."""
    while not env.session.asks(env._seat(env.agent_selection)):
        env.step(0)
    agent = env.agent_selection
    return agent, np.flatnonzero(env.observe(agent)["action_mask"]).tolist()


NOT_INTEGERS = {
    "a half": lambda a: a + 0.5,
    "a whole float": float,
    "a numpy float": np.float64,
    "a one-element array": lambda a: np.array([a]),
    "a string": str,
}


@pytest.mark.parametrize("bad", list(NOT_INTEGERS.values()), ids=list(NOT_INTEGERS))
def test_an_aec_action_that_is_not_an_integer_is_refused_not_truncated(bad: object) -> None:
    env = mafia_env.raw_env("standard", players=7)
    env.reset(seed=0)
    agent, legal = deciding(env)
    with pytest.raises(IllegalActionError, match="is not an integer action id"):
        env.step(bad(legal[-1]))  # type: ignore[operator]
    assert env.agent_selection == agent  # nothing changed


@pytest.mark.parametrize("wrap", [int, np.int64, np.int32, lambda a: np.array(a)])
def test_aec_integer_actions_of_every_integer_type_are_accepted(wrap: object) -> None:
    env = mafia_env.raw_env("standard", players=7)
    env.reset(seed=0)
    agent, legal = deciding(env)
    env.step(wrap(legal[-1]))  # type: ignore[operator]
    assert env.agent_selection != agent or env.session.over


def test_a_waiting_seat_may_not_wait_with_a_float() -> None:
    env = mafia_env.raw_env("standard", players=7)
    env.reset(seed=0)
    assert not env.session.asks(env._seat(env.agent_selection))  # night 1, a waiting slot
    with pytest.raises(IllegalActionError, match="is not an integer action id"):
        env.step(0.5)


@pytest.mark.parametrize("count", [1, 3])
def test_a_vector_step_with_the_wrong_number_of_actions_says_how_many(count: int) -> None:
    vec = MafiaVectorEnv("standard", players=7, num_envs=2)
    vec.reset(seed=0)
    with pytest.raises(ValueError, match=rf"num_envs = 2 actions .*got {count}"):
        vec.step(np.zeros(count, dtype=np.int64))


def wrapped_deciding(env: object) -> tuple[str, list[int]]:
    """`deciding` for the wrapped AEC env: step its waiting turns through the wrappers."""
    raw = env.unwrapped  # type: ignore[attr-defined]
    while not raw.session.asks(raw._seat(raw.agent_selection)):
        env.last()  # type: ignore[attr-defined]
        env.step(0)  # type: ignore[attr-defined]
    agent = raw.agent_selection
    return agent, np.flatnonzero(env.observe(agent)["action_mask"]).tolist()  # type: ignore[attr-defined]


@pytest.mark.parametrize("flag", [False, True])
def test_the_wrapped_aec_env_takes_a_python_bool_as_the_raw_env_does(flag: bool) -> None:
    """A Python bool is an int (0 or 1), for the raw env and Gymnasium's `Discrete`
    alike; the wrapped env judges it by the same mask entry, legal or not."""
    raw = mafia_env.raw_env("standard", players=7)
    raw.reset(seed=0)
    deciding(raw)
    env = mafia_env.env("standard", players=7)
    env.reset(seed=0)
    agent, legal = wrapped_deciding(env)
    env.last()
    env.step(flag)
    if int(flag) in legal:
        raw.step(flag)
        assert env.agent_selection == raw.agent_selection
        assert not any(env.terminations.values())
    else:
        assert all(env.terminations.values())
        assert env._cumulative_rewards[agent] == -1.0


def test_a_raw_aec_step_after_the_game_says_it_is_over() -> None:
    env = mafia_env.raw_env("simple", players=5)
    env.reset(seed=1)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.agents == []
    with pytest.raises(IllegalActionError, match="the game is over"):
        env.step(0)
    with pytest.raises(IllegalActionError, match="the game is over"):
        env.step_text("anyone there?")


@pytest.mark.parametrize("kind", ["aec", "parallel"])
def test_a_numpy_integer_seed_deals_the_game_its_int_deals(kind: str) -> None:
    """A seed drawn with numpy (``np.int64``) is the same seed as its int; Gymnasium's
    own seeding refused it. A float seed stays refused."""

    def first_observation(seed: object) -> np.ndarray:
        if kind == "aec":
            aec = mafia_env.env("standard", players=7)
            aec.reset(seed=seed)
            return aec.observe(aec.agent_selection)["observation"]
        par = mafia_env.parallel_env("standard", players=7)
        observations, _ = par.reset(seed=seed)
        return np.concatenate([o["observation"] for o in observations.values()])

    assert np.array_equal(first_observation(np.int64(11)), first_observation(11))
    with pytest.raises(TypeError):
        first_observation(11.0)


NOT_IDS = {
    **NOT_INTEGERS,
    "None": lambda a: None,
    "a numpy bool": lambda a: np.bool_(True),
}
"""Values no env takes as an action id, for a seat that must decide."""

INTEGERS = {
    "int": int,
    "np.int64 (a predict's scalar)": np.int64,
    "np.int32": np.int32,
    "np.uint8": np.uint8,
    "a 0-d array (an unbatched predict)": lambda a: np.array(a),
}
"""The integer types a PettingZoo or Stable-Baselines3 loop hands over."""


def parallel_deciding(env: object, seed: int = 3) -> tuple[dict[str, int], str, list[int]]:
    """Reset `env` (a Parallel env) and return a legal action per agent, one pending
    agent and that agent's legal ids."""
    env.reset(seed=seed)  # type: ignore[attr-defined]
    actions = pending_actions(env)
    raw = env.unwrapped  # type: ignore[attr-defined]
    seat = raw.session.pending_seats()[0]
    legal = np.flatnonzero(raw.session.observe(seat)["action_mask"]).tolist()
    return actions, raw.possible_agents[seat], legal


@pytest.mark.parametrize("bad", list(NOT_IDS.values()), ids=list(NOT_IDS))
@pytest.mark.parametrize("make", [mafia_env.parallel_env, mafia_env.raw_parallel_env])
def test_a_parallel_action_that_is_no_integer_id_raises_with_nothing_changed(
    make: object, bad: object
) -> None:
    """`parallel_env()` scored such a value (text too, where the decision takes none)
    as the seat's illegal move and ended the game; it is the caller's bug, refused as
    `env()` and the raw envs refuse it (and `step_text` refuses text in AEC)."""
    env = make("standard", players=7)  # type: ignore[operator]
    actions, agent, legal = parallel_deciding(env)
    events = len(env.unwrapped.session.game.events)
    with pytest.raises(NotAnActionError, match=rf"^{agent}: .*action id"):
        env.step({**actions, agent: bad(legal[-1])})  # type: ignore[operator]
    assert env.agents == env.possible_agents
    assert len(env.unwrapped.session.game.events) == events
    _, rewards, terminations, _, _ = env.step(actions)  # the same step, legal, goes on
    assert not any(terminations.values()) and set(rewards.values()) == {0.0}


@pytest.mark.parametrize("bad", list(NOT_IDS.values()), ids=list(NOT_IDS))
def test_the_wrapped_aec_env_refuses_what_is_no_integer_id_by_name(bad: object) -> None:
    """PettingZoo's bare ``AssertionError: action is not in action space`` named
    neither the agent nor the value; an id past the table is refused by name too
    (`ActionOutOfRangeError`)."""
    env = mafia_env.env("standard", players=7)
    env.reset(seed=0)
    agent, legal = wrapped_deciding(env)
    env.last()
    with pytest.raises(NotAnActionError, match=rf"{agent}: action .* is not an integer action id"):
        env.step(bad(legal[-1]))  # type: ignore[operator]
    assert env.agent_selection == agent and not any(env.terminations.values())
    env.step(legal[-1])  # nothing changed: the legal step goes on
    assert not any(env.terminations.values())
    with pytest.raises(mafia_env.ActionOutOfRangeError, match="is outside the action table"):
        env.step(env.unwrapped.session.table.size)


@pytest.mark.parametrize("wrap", list(INTEGERS.values()), ids=list(INTEGERS))
def test_every_integer_type_plays_as_its_int_in_every_wrapped_env(wrap: object) -> None:
    """A numpy integer or a 0-d integer array is the same move as its int, legal or
    not: the same next state for a legal id, the illegal-move policy for an illegal one
    (the mover gets -1, the game ends, the raw game is not played on)."""
    as_int, typed = mafia_env.parallel_env("standard", 7), mafia_env.parallel_env("standard", 7)
    actions, agent, legal = parallel_deciding(as_int)
    parallel_deciding(typed)
    expected = as_int.step(actions)[0]
    got = typed.step({a: wrap(v) for a, v in actions.items()})[0]  # type: ignore[operator]
    assert all(np.array_equal(expected[a]["observation"], got[a]["observation"]) for a in expected)
    illegal = next(i for i in range(1, 256) if i not in legal)
    typed = mafia_env.parallel_env("standard", 7)
    parallel_deciding(typed)
    events = len(typed.unwrapped.session.game.events)
    _, rewards, terminations, _, _ = typed.step({**actions, agent: wrap(illegal)})  # type: ignore[operator]
    assert all(terminations.values()) and rewards[agent] == -1.0 and typed.agents == []
    assert len(typed.unwrapped.session.game.events) == events
    aec = mafia_env.env("standard", players=7)
    aec.reset(seed=0)
    mover, legal = wrapped_deciding(aec)
    aec.last()
    aec.step(wrap(legal[-1]))  # type: ignore[operator]
    assert aec.agent_selection != mover and not any(aec.terminations.values())
