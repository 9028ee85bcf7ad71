"""What no env plays or scores is refused alike by every env, with nothing changed:
an action id outside the action table (negative, or at least the action space's n),
free text longer than the turn's ``max_chars``, and a space asked for by a name that is
no agent. Each refusal names the agent, the value and what would have been valid.

`parallel_env()`, `MafiaVectorEnv` and `TeamEnv` scored an id past the table as an
illegal move that lost the game, `env()` failed with PettingZoo's bare
``AssertionError``; `parallel_env()` scored an over-long speech that `env()` refused;
the spaces raised a bare ``KeyError``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from mafia_arena import env as mafia_env
from mafia_arena.env import IllegalActionError
from mafia_arena.env.vector import MafiaVectorEnv
from mafia_arena.rl.team_env import TeamEnv, TeamSetup

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

PLAYERS = 7


def table_size(env: Any) -> int:
    return int(env.unwrapped.session.table.size)


def out_of_range_ids(size: int) -> dict[str, Any]:
    """Ids outside a table of `size` ids, as a policy's bug hands them over."""
    return {"K": size, "-1": -1, "np.int64(K)": np.int64(size), "K + 100": size + 100}


OUT_OF_RANGE = ["K", "-1", "np.int64(K)", "K + 100"]


def assert_out_of_range(error: IllegalActionError, agent: str, value: int, size: int) -> None:
    """The refusal is an `ActionOutOfRangeError` naming the agent, the value and the
    valid ids."""
    assert isinstance(error, mafia_env.ActionOutOfRangeError)
    assert isinstance(error, mafia_env.NotAMoveError)
    assert str(error).startswith(f"{agent}: action {value} is outside the action table")
    assert f"valid ids are 0..{size - 1} (Discrete({size}))" in str(error)


# ---------------------------------------------------------------- AEC


def aec_deciding(env: Any) -> tuple[str, list[int]]:
    """Step `env` (raw or wrapped AEC) through waiting turns until the selected seat
    has a decision; that agent and its legal ids."""
    raw = env.unwrapped
    while not raw.session.asks(raw._seat(raw.agent_selection)):
        env.last()
        env.step(0)
    agent = raw.agent_selection
    env.last()
    return agent, np.flatnonzero(env.observe(agent)["action_mask"]).tolist()


def aec_state(env: Any) -> tuple[Any, ...]:
    raw = env.unwrapped
    return (
        raw.agent_selection,
        len(raw.session.game.events),
        dict(raw.terminations),
        dict(raw._cumulative_rewards),
    )


@pytest.mark.parametrize("bad", OUT_OF_RANGE)
@pytest.mark.parametrize("make", [mafia_env.env, mafia_env.raw_env], ids=["env", "raw_env"])
def test_an_aec_id_outside_the_table_is_refused_by_name_with_nothing_changed(
    make: Callable[..., Any], bad: str
) -> None:
    env = make("standard", PLAYERS)
    env.reset(seed=0)
    agent, legal = aec_deciding(env)
    size = table_size(env)
    action = out_of_range_ids(size)[bad]
    before = aec_state(env)
    with pytest.raises(IllegalActionError) as refused:
        env.step(action)
    assert_out_of_range(refused.value, agent, int(action), size)
    assert aec_state(env) == before
    env.step(legal[-1])  # the same decision, legal, goes on
    assert env.unwrapped.agent_selection != agent and not any(env.terminations.values())


@pytest.mark.parametrize("make", [mafia_env.env, mafia_env.raw_env], ids=["env", "raw_env"])
def test_an_aec_waiting_turn_refuses_an_id_outside_the_table_as_such(
    make: Callable[..., Any],
) -> None:
    """A seat with only "wait" (action 0) to take: -1 is still no id of the table, not
    a wrong wait."""
    env = make("standard", PLAYERS)
    env.reset(seed=0)
    raw = env.unwrapped
    assert not raw.session.asks(raw._seat(raw.agent_selection))  # night 1, a waiting slot
    env.last()
    before = aec_state(env)
    with pytest.raises(IllegalActionError) as refused:
        env.step(-1)
    assert_out_of_range(refused.value, raw.agent_selection, -1, table_size(env))
    assert aec_state(env) == before


# ---------------------------------------------------------------- Parallel


def parallel_legal(env: Any) -> dict[str, int]:
    """A legal action for every agent (the highest legal id: 0 for a waiting seat)."""
    session = env.unwrapped.session
    return {
        agent: int(np.flatnonzero(session.observe(seat)["action_mask"])[-1])
        for seat, agent in enumerate(env.agents)
    }


@pytest.mark.parametrize("bad", OUT_OF_RANGE)
@pytest.mark.parametrize(
    "make", [mafia_env.parallel_env, mafia_env.raw_parallel_env], ids=["parallel_env", "raw"]
)
def test_a_parallel_id_outside_the_table_is_refused_by_name_with_nothing_changed(
    make: Callable[..., Any], bad: str
) -> None:
    env = make("standard", PLAYERS)
    env.reset(seed=3)
    actions = parallel_legal(env)
    session = env.unwrapped.session
    agent = env.possible_agents[session.pending_seats()[0]]
    size = table_size(env)
    action = out_of_range_ids(size)[bad]
    events = len(session.game.events)
    with pytest.raises(IllegalActionError) as refused:
        env.step({**actions, agent: action})
    assert_out_of_range(refused.value, agent, int(action), size)
    assert env.agents == env.possible_agents and len(session.game.events) == events
    _, rewards, terminations, _, _ = env.step(actions)  # the same step, legal, goes on
    assert not any(terminations.values()) and set(rewards.values()) == {0.0}


def test_an_id_inside_the_table_that_the_mask_leaves_out_is_still_a_scored_move() -> None:
    """The documented policy stays: a masked-out id of the table ends the game with
    the mover's `illegal_reward`, in both wrapped envs."""
    par = mafia_env.parallel_env("standard", PLAYERS)
    par.reset(seed=3)
    actions = parallel_legal(par)
    seat = par.unwrapped.session.pending_seats()[0]
    mask = par.unwrapped.session.observe(seat)["action_mask"]
    masked = int(np.flatnonzero(mask == 0)[-1])
    _, rewards, terminations, _, _ = par.step({**actions, f"player_{seat}": masked})
    assert rewards[f"player_{seat}"] == -1.0 and all(terminations.values())
    aec = mafia_env.env("standard", PLAYERS)
    aec.reset(seed=0)
    agent, legal = aec_deciding(aec)
    aec.step(next(i for i in range(table_size(aec)) if i not in legal))
    assert aec._cumulative_rewards[agent] == -1.0 and all(aec.terminations.values())


# ---------------------------------------------------------------- batched and team


@pytest.mark.parametrize("bad", OUT_OF_RANGE)
@pytest.mark.parametrize("illegal_reward", [-1.0, None])
def test_the_vector_env_refuses_an_id_outside_the_table_before_any_row_changes(
    bad: str, illegal_reward: float | None
) -> None:
    vec = MafiaVectorEnv("standard", PLAYERS, num_envs=3, illegal_reward=illegal_reward)
    obs, infos = vec.reset(seed=0)
    legal = np.array([np.flatnonzero(row)[0] for row in obs["action_mask"]], dtype=np.int64)
    size = vec.table.size
    action = out_of_range_ids(size)[bad]
    actions = legal.tolist()
    actions[1] = action
    events = [len(game.events) for game in vec.games]
    with pytest.raises(IllegalActionError) as refused:
        vec.step(actions)
    assert_out_of_range(refused.value, f"row 1: player_{infos['seat'][1]}", int(action), size)
    assert [len(game.events) for game in vec.games] == events
    _, rewards, terminations, _, step_infos = vec.step(legal)
    assert not terminations.any() and not rewards.any() and "illegal" not in step_infos


@pytest.mark.parametrize("bad", OUT_OF_RANGE)
def test_the_team_env_refuses_an_id_outside_the_table_and_the_episode_goes_on(bad: str) -> None:
    env = TeamEnv(TeamSetup(), seed=0)
    _, info = env.reset(seed=0)
    action = out_of_range_ids(env.actions)[bad]
    events = len(env.session.current.events)
    with pytest.raises(IllegalActionError) as refused:
        env.step(action)
    assert_out_of_range(refused.value, f"player_{info['seat']}", int(action), env.actions)
    assert len(env.session.current.events) == events
    assert np.array_equal(env.action_masks(), info["action_mask"])
    _, reward, terminated, _, after = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert "illegal" not in after and (reward == 0.0 or terminated)


# ---------------------------------------------------------------- speech


def aec_speaker(env: Any) -> tuple[str, int]:
    """Play `env` (raw or wrapped AEC) with the lowest legal ids up to a speaking turn
    that takes free text; the speaker and the turn's cap."""
    raw = env.unwrapped
    while True:
        agent = raw.agent_selection
        request = raw.infos[agent].get("request")
        if request is not None and request["free_text"]:
            return agent, int(request["max_chars"])
        env.last()
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))


def parallel_speaker(env: Any) -> tuple[dict[str, int], str, int]:
    """Play `env` (a Parallel env) up to a speaking turn: legal actions, the speaker
    and the turn's cap."""
    session = env.unwrapped.session
    while True:
        pending = session.pending_seats()
        request = session.view(pending[0]).request if pending else None
        if request is not None and request.free_text:
            return parallel_legal(env), f"player_{pending[0]}", request.max_chars
        env.step(parallel_legal(env))


def assert_too_long(error: IllegalActionError, agent: str, length: int, cap: int) -> None:
    assert isinstance(error, mafia_env.SpeechTooLongError)
    assert isinstance(error, mafia_env.NotAMoveError)
    assert str(error).startswith(
        f"{agent}: speech of {length} characters is longer than this turn's {cap}"
    )


@pytest.mark.parametrize("make", [mafia_env.env, mafia_env.raw_env], ids=["env", "raw_env"])
def test_an_over_long_aec_speech_is_refused_and_one_at_the_cap_is_spoken(
    make: Callable[..., Any],
) -> None:
    env = make("standard", PLAYERS)
    env.reset(seed=0)
    agent, cap = aec_speaker(env)
    before = aec_state(env)
    with pytest.raises(IllegalActionError) as refused:
        env.step_text("x" * (cap + 1))
    assert_too_long(refused.value, agent, cap + 1, cap)
    assert aec_state(env) == before
    env.step_text("x" * cap)  # at the cap: spoken whole, the game goes on
    assert env.unwrapped.agent_selection != agent and not any(env.terminations.values())
    assert "x" * cap in env.unwrapped.session.text(int(agent.rsplit("_", 1)[1]))


@pytest.mark.parametrize(
    "make", [mafia_env.parallel_env, mafia_env.raw_parallel_env], ids=["parallel_env", "raw"]
)
def test_an_over_long_parallel_speech_is_refused_as_in_aec_not_scored(
    make: Callable[..., Any],
) -> None:
    env = make("standard", PLAYERS)
    env.reset(seed=0)
    actions, agent, cap = parallel_speaker(env)
    events = len(env.unwrapped.session.game.events)
    with pytest.raises(IllegalActionError) as refused:
        env.step({**actions, agent: "x" * (cap + 1)})
    assert_too_long(refused.value, agent, cap + 1, cap)
    assert env.agents == env.possible_agents
    assert len(env.unwrapped.session.game.events) == events
    _, rewards, terminations, _, _ = env.step({**actions, agent: "x" * cap})
    assert not any(terminations.values()) and set(rewards.values()) == {0.0}


# ---------------------------------------------------------------- spaces

FACTORIES = {
    "env": mafia_env.env,
    "raw_env": mafia_env.raw_env,
    "parallel_env": mafia_env.parallel_env,
    "raw_parallel_env": mafia_env.raw_parallel_env,
}


@pytest.mark.parametrize("unknown", ["player_7", "player_99", "bob", ""])
@pytest.mark.parametrize("space", ["observation_space", "action_space"])
@pytest.mark.parametrize("make", list(FACTORIES.values()), ids=list(FACTORIES))
def test_a_space_for_a_name_that_is_no_agent_names_it_and_the_agents(
    make: Callable[..., Any], space: str, unknown: str
) -> None:
    env = make("standard", PLAYERS)
    with pytest.raises(KeyError) as refused:
        getattr(env, space)(unknown)
    message = str(refused.value)
    assert message == (
        f"unknown agent {unknown!r} in {space}(); the agents are player_0 … player_6 (7 seats)"
    )
    assert isinstance(refused.value, ValueError)  # as an unknown key in a step's actions
    assert getattr(env, space)("player_6") is getattr(env, space)("player_6")  # still served


AEC_FACTORIES = {"env": mafia_env.env, "raw_env": mafia_env.raw_env}


@pytest.mark.parametrize("unknown", ["player_7", "player_99", "player_03", "bob", ""])
@pytest.mark.parametrize("lookup", ["observe", "view"])
@pytest.mark.parametrize("make", list(AEC_FACTORIES.values()), ids=list(AEC_FACTORIES))
def test_an_aec_lookup_for_a_name_that_is_no_agent_names_it_and_the_agents(
    make: Callable[..., Any], lookup: str, unknown: str
) -> None:
    """`observe` and `view` refuse a name that is no agent as the spaces do, where a
    number past the seats failed with a bare `IndexError` and ``player_03`` was served
    as seat 3."""
    env = make("standard", PLAYERS)
    env.reset(seed=0)
    method = getattr(env.unwrapped if lookup == "view" else env, lookup)
    with pytest.raises(mafia_env.UnknownAgentError) as refused:
        method(unknown)
    assert str(refused.value) == (
        f"unknown agent {unknown!r} in {lookup}(); the agents are player_0 … player_6 (7 seats)"
    )
    assert isinstance(refused.value, KeyError) and isinstance(refused.value, ValueError)
    assert method("player_3") is not None  # a name that is an agent is still served


# ---------------------------------------------------------------- egocentric refusals


def test_an_egocentric_refusal_lists_the_legal_ids_the_seat_itself_uses() -> None:
    """With an egocentric layout the seat's ids are relative to it; the refusal of a
    masked-out id listed the table's absolute ids, which the seat may not send."""
    env = mafia_env.raw_env("standard", PLAYERS, observation="history", egocentric=True)
    env.reset(seed=0)
    agent, legal = aec_deciding(env)
    masked = next(i for i in range(table_size(env)) if i not in legal)
    with pytest.raises(IllegalActionError, match=r"is not legal for") as refused:
        env.step(masked)
    assert str(refused.value).endswith(f"legal ids: {legal}")
    env.step(legal[0])  # one of the listed ids is taken
    assert env.agent_selection != agent
