"""The batched env (`MafiaVectorEnv`): rows replay the AEC env, reset themselves, and
are seeded per game (see `mafia_arena.env.vector`)."""

from __future__ import annotations

import pickle
from functools import partial
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers.vector import FlattenObservation, RecordEpisodeStatistics
from tests.env.env_cases import SMALL_CASES

from mafia_arena import env as mafia_env
from mafia_arena.env import IllegalActionError
from mafia_arena.env.vector import MafiaVectorEnv
from mafia_arena.rl.team_env import TeamEnv, TeamSetup
from mafia_arena.views.encode import ObservationEncoder
from mafia_arena.views.view import view_of


def random_actions(masks: np.ndarray, rngs: list[np.random.Generator]) -> np.ndarray:
    """One random legal id per row, each row from its own generator."""
    return np.array(
        [int(rng.choice(np.flatnonzero(m))) for m, rng in zip(masks, rngs, strict=True)]
    )


def skip_waiting_turns(aec: mafia_env.raw_env) -> None:
    """Step the AEC env through its waiting turns (a seat not asked in the current
    night slot, with only action 0), which a vector row leaves out."""
    session = aec.session
    while (
        not session.over
        and session.at_night
        and aec.possible_agents.index(aec.agent_selection) not in session.pending_seats()
    ):
        assert list(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])) == [0]
        aec.step(0)


LAYOUTS = [
    {},
    {"observation": "history"},
    {"observation": "history", "history_days": 2, "egocentric": True, "max_players": 9},
]
"""Observation layouts, as `env()` takes them: v0, history, history egocentric and
padded (whose action ids are relative to the deciding seat)."""


@pytest.mark.parametrize("layout", LAYOUTS, ids=["v0", "history", "history-egocentric"])
def test_rows_replay_the_aec_env_across_autoresets(layout: dict[str, Any]) -> None:
    """Every row is, decision for decision, the AEC env reset to the row's game seed
    (its waiting turns left out): the first game at seed + row, each later one at the
    next seed of the row's own generator (the documented draw), reported once it ends.
    In every observation layout: the same vectors, masks and (egocentric) relative ids."""
    n, seed = 3, 11
    vec = MafiaVectorEnv("standard", 7, n, **layout)
    aecs = [mafia_env.raw_env("standard", 7, max_text=0, **layout) for _ in range(n)]
    assert vec.metadata["observation"] == aecs[0].metadata["observation"]
    assert vec.single_observation_space == aecs[0].observation_space("player_0")
    obs, infos = vec.reset(seed=seed)
    row_seeds = [np.random.default_rng([seed, i]) for i in range(n)]  # the documented draw
    for i, aec in enumerate(aecs):
        aec.reset(seed=seed + i)
        skip_waiting_turns(aec)
    rngs = [np.random.default_rng(i) for i in range(n)]
    finished = [0] * n
    while min(finished) < 2:
        for i, aec in enumerate(aecs):
            agent = aec.agent_selection
            assert infos["seat"][i] == aec.possible_agents.index(agent)
            expected = aec.observe(agent)
            np.testing.assert_array_equal(obs["observation"][i], expected["observation"])
            np.testing.assert_array_equal(obs["action_mask"][i], expected["action_mask"])
        actions = random_actions(obs["action_mask"], rngs)
        acting = [aec.agent_selection for aec in aecs]
        for aec, action in zip(aecs, actions, strict=True):
            aec.step(int(action))
            skip_waiting_turns(aec)
        obs, rewards, terminations, truncations, infos = vec.step(actions)
        assert not truncations.any()
        for i, aec in enumerate(aecs):
            assert terminations[i] == aec.terminations[acting[i]]
            if not terminations[i]:
                assert rewards[i] == 0
                continue
            assert rewards[i] == aec.rewards[acting[i]]
            np.testing.assert_array_equal(
                infos["final_rewards"][i], [aec.rewards[a] for a in aec.possible_agents]
            )
            assert infos["_final_obs"][i] and not infos["illegal"][i]
            np.testing.assert_array_equal(
                infos["final_obs"][i]["observation"], aec.observe(acting[i])["observation"]
            )
            assert infos["final_seed"][i] == aec.session.seed
            aec.reset(seed=int(row_seeds[i].integers(2**31)))
            skip_waiting_turns(aec)
            finished[i] += 1
    twin = pickle.loads(pickle.dumps(vec))
    assert twin.metadata["observation"] == vec.metadata["observation"]
    np.testing.assert_array_equal(
        twin.reset(seed=1)[0]["observation"], vec.reset(seed=1)[0]["observation"]
    )


@pytest.mark.parametrize(("variant", "players"), SMALL_CASES)
def test_random_legal_actions_play_many_games_to_completion(variant: str, players: int) -> None:
    n = 8
    vec = MafiaVectorEnv(variant, players, n)
    obs, infos = vec.reset(seed=3)
    rngs = [np.random.default_rng(100 + i) for i in range(n)]
    games = 0
    for _ in range(20_000):
        assert vec.observation_space.contains(obs)
        for i, game in enumerate(vec.games):
            request = game.request(int(infos["seat"][i]))
            assert request is not None, "a row shows a seat that must decide"
            legal = np.flatnonzero(obs["action_mask"][i])
            assert sorted(legal) == sorted(vec.table.ids(request))
        obs, _rewards, terminations, _trunc, infos = vec.step(
            random_actions(obs["action_mask"], rngs)
        )
        if terminations.any():
            assert not infos["illegal"].any()
            assert set(np.unique(infos["final_rewards"][terminations])) <= {-1.0, 0.0, 1.0}
            games += int(terminations.sum())
        if games >= 3 * n:
            break
    assert games >= 3 * n


def test_same_seed_same_games_and_rows_independent_of_the_batch_size() -> None:
    def play(num_envs: int, seed: int, steps: int = 600) -> list[list[int]]:
        vec = MafiaVectorEnv("standard", 7, num_envs)
        obs, infos = vec.reset(seed=seed)
        assert "game_seed" not in infos  # a seed fixes the deal: given once a game ended
        rngs = [np.random.default_rng(i) for i in range(num_envs)]
        seeds: list[list[int]] = [[] for _ in range(num_envs)]
        for _ in range(steps):
            obs, _r, terminations, _t, infos = vec.step(random_actions(obs["action_mask"], rngs))
            assert "game_seed" not in infos
            if terminations.any():
                assert (infos["final_seed"][~terminations] == -1).all()
            for i in np.flatnonzero(terminations):
                seeds[i].append(int(infos["final_seed"][i]))
        return seeds

    two, three = play(2, seed=5), play(3, seed=5)
    assert two == three[:2], "a row's games depend on its seed and actions only"
    assert [row[0] for row in three] == [5, 6, 7], "row i's first game has seed s + i"
    assert all(len(s) >= 3 for s in two), "several games per row were dealt"
    assert two[0][1] != two[1][1], "rows draw their later games from their own seeds"
    assert play(2, seed=5) == two
    assert play(2, seed=6)[0] != two[0]


def first_game_seeds(vec: MafiaVectorEnv, obs: dict[str, np.ndarray]) -> list[int]:
    """Each row's first game's seed (its ``final_seed`` when it ends), playing every row
    with seeded random legal actions from the observations `obs` on."""
    rngs = [np.random.default_rng(0) for _ in range(vec.num_envs)]
    first: dict[int, int] = {}
    while len(first) < vec.num_envs:
        obs, _r, terminations, _t, infos = vec.step(random_actions(obs["action_mask"], rngs))
        for i in np.flatnonzero(terminations):
            first.setdefault(int(i), int(infos["final_seed"][i]))
    return [first[i] for i in range(vec.num_envs)]


def test_a_list_of_seeds_gives_each_row_its_first_game() -> None:
    vec = MafiaVectorEnv("simple", 5, 3)
    obs, _ = vec.reset(seed=[40, 7, 40])
    np.testing.assert_array_equal(obs["observation"][0], obs["observation"][2])
    assert first_game_seeds(vec, obs) == [40, 7, 40]
    with pytest.raises(ValueError, match="2 seeds for 3 games"):
        vec.reset(seed=[1, 2])


def test_a_none_in_the_list_of_seeds_draws_that_rows_seed() -> None:
    """As Gymnasium's vector envs take it: None leaves one row's seed to the env's own
    generator (seeded by the last integer seed), the other rows keep theirs."""

    def first_seeds() -> list[int]:
        vec = MafiaVectorEnv("simple", 5, 3)
        vec.reset(seed=0)
        obs, _ = vec.reset(seed=[40, None, 7])
        return first_game_seeds(vec, obs)

    seeds = first_seeds()
    assert seeds[0] == 40 and seeds[2] == 7 and seeds[1] >= 0
    assert first_seeds() == seeds


def illegal_ids(masks: np.ndarray) -> np.ndarray:
    return np.array([int(np.flatnonzero(m == 0)[0]) for m in masks])


def test_an_illegal_action_ends_that_game_with_the_illegal_reward() -> None:
    vec = MafiaVectorEnv("standard", 7, 2, illegal_reward=-5)
    obs, infos = vec.reset(seed=0)
    seat, old_seed = int(infos["seat"][1]), 1  # row 1's first game: seed 0 + 1
    legal = int(np.flatnonzero(obs["action_mask"][0])[0])
    actions = np.array([legal, illegal_ids(obs["action_mask"])[1]])
    obs, rewards, terminations, _t, infos = vec.step(actions)
    assert list(terminations) == [False, True]
    assert rewards[1] == -5
    expected = np.zeros(7, dtype=np.float32)
    expected[seat] = -5
    np.testing.assert_array_equal(infos["final_rewards"][1], expected)
    assert list(infos["illegal"]) == [False, True]
    assert infos["final_seed"][1] == old_seed and infos["final_seed"][0] == -1


def test_raise_policy_refuses_the_batch_before_any_row_changes() -> None:
    vec = MafiaVectorEnv("standard", 7, 2, illegal_reward=None)
    obs, _infos = vec.reset(seed=0)
    before = obs["observation"].copy()
    decisions = [len(g.decisions) for g in vec.games]
    legal = int(np.flatnonzero(obs["action_mask"][0])[0])
    with pytest.raises(IllegalActionError, match="row 1"):
        vec.step(np.array([legal, illegal_ids(obs["action_mask"])[1]]))
    assert [len(g.decisions) for g in vec.games] == decisions
    obs, *_ = vec.step(np.array([legal, int(np.flatnonzero(obs["action_mask"][1])[0])]))
    assert not np.array_equal(obs["observation"], before)


def test_gymnasium_episode_statistics_count_each_games_decisions() -> None:
    vec = RecordEpisodeStatistics(MafiaVectorEnv("simple", 5, 4))
    obs, infos = vec.reset(seed=2)
    rngs = [np.random.default_rng(i) for i in range(4)]
    lengths = np.zeros(4, dtype=int)
    episodes = 0
    while episodes < 8:
        obs, rewards, terminations, _t, infos = vec.step(random_actions(obs["action_mask"], rngs))
        lengths += 1
        if terminations.any():
            np.testing.assert_array_equal(infos["_episode"], terminations)
            np.testing.assert_array_equal(
                infos["episode"]["l"][terminations], lengths[terminations]
            )
            np.testing.assert_array_equal(
                infos["episode"]["r"][terminations], rewards[terminations]
            )
            lengths[terminations] = 0
            episodes += int(terminations.sum())


def test_step_before_reset_and_empty_batch_are_refused() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        MafiaVectorEnv("simple", 5, 0)
    vec = MafiaVectorEnv("simple", 5, 2)
    with pytest.raises(RuntimeError, match="reset"):
        vec.step(np.zeros(2, dtype=int))


def test_a_rows_observation_is_the_seats_own_view_encoded_afresh() -> None:
    """No channel between rows or seats: every row's observation and mask equal a fresh
    encoder's vector of that seat's view (its own stream only) and the action table's
    mask of its request, although the rows share one action table and each row's
    encoder and trackers follow many seats and games."""
    n = 4
    vec = MafiaVectorEnv("standard", 7, n)
    obs, infos = vec.reset(seed=21)
    rngs = [np.random.default_rng(50 + i) for i in range(n)]
    games = 0
    for _ in range(400):
        for i, game in enumerate(vec.games):
            seat = int(infos["seat"][i])
            view = view_of(game, seat)
            expected = ObservationEncoder(game.variant, 7).encode(view)
            np.testing.assert_array_equal(obs["observation"][i], expected)
            np.testing.assert_array_equal(obs["action_mask"][i], vec.table.mask(view.request))
        obs, _r, terminations, _t, infos = vec.step(random_actions(obs["action_mask"], rngs))
        games += int(terminations.sum())
    assert games >= n, "rows moved on to later games"


def test_text_views_are_opt_in_and_match_the_aec_env() -> None:
    """Without ``text=True`` no text crosses the API; with it, every row's text is the
    AEC env's text view of the seat it shows (the AEC env's night waits skipped)."""
    assert "text" not in MafiaVectorEnv("standard", 7, 2).reset(seed=4)[1]
    vec = MafiaVectorEnv("standard", 7, 1, text=True)
    aec = mafia_env.raw_env("standard", 7)
    _obs, infos = vec.reset(seed=4)
    aec.reset(seed=4)
    rng = np.random.default_rng(1)
    for _ in range(60):
        skip_waiting_turns(aec)
        assert infos["text"][0] == aec.infos[aec.agent_selection]["text"]
        mask = aec.observe(aec.agent_selection)["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        aec.step(action)
        _obs, _r, terminations, _t, infos = vec.step([action])
        if terminations[0]:
            break


@pytest.mark.parametrize("duplicate", ["pickle", "deepcopy"])
def test_a_vector_env_pickles_and_copies_mid_game(duplicate: str) -> None:
    """As the AEC and Parallel envs do: every row's game is rebuilt by replaying its
    decisions, and the copy goes on exactly as the original (autoresets included)."""
    import copy
    import pickle

    vec = MafiaVectorEnv("standard", 7, 3)
    obs, _ = vec.reset(seed=4)
    rngs = [np.random.default_rng(i) for i in range(3)]
    for _ in range(25):
        obs, *_ = vec.step(random_actions(obs["action_mask"], rngs))
    twin = pickle.loads(pickle.dumps(vec)) if duplicate == "pickle" else copy.deepcopy(vec)
    np.testing.assert_array_equal(twin.seats, vec.seats)
    ended = 0
    for _ in range(150):
        actions = random_actions(obs["action_mask"], rngs)
        out, copied = vec.step(actions), twin.step(actions)
        for key in obs:
            np.testing.assert_array_equal(out[0][key], copied[0][key])
        for x, y in zip(out[1:4], copied[1:4], strict=True):
            np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(out[4]["seat"], copied[4]["seat"])
        if "final_seed" in out[4]:
            np.testing.assert_array_equal(out[4]["final_seed"], copied[4]["final_seed"])
            ended += 1
        obs = out[0]
    assert ended, "the copies dealt new games alike"
    np.testing.assert_array_equal(vec.reset()[0]["observation"], twin.reset()[0]["observation"])
    assert pickle.loads(pickle.dumps(MafiaVectorEnv("simple", 5, 2))).games == []


@pytest.mark.parametrize(
    "actions",
    [
        np.array([2.0, 2.0, 2.0]),
        [2, 2.0, 2],
        np.array([True, False, True]),
        np.array([2, None, 2], dtype=object),
        np.array([2, 2.5, 2], dtype=object),
    ],
    ids=["float-array", "float-in-list", "bool-array", "none", "float-object"],
)
@pytest.mark.parametrize("illegal_reward", [-1.0, None])
def test_non_integer_actions_are_refused_as_the_aec_env_refuses_them(
    actions: Any, illegal_reward: float | None
) -> None:
    """A float (whole or not) or a numpy bool is no action id: the AEC env raises
    `IllegalActionError` for it, and so does the vector env, naming the row and the value,
    before any row changes and whatever the illegal-action policy (it is a caller's bug,
    not a move to score)."""
    aec = mafia_env.raw_env("simple", 5)
    aec.reset(seed=0)
    with pytest.raises(IllegalActionError, match="not an integer action id"):
        aec.step(2.0)
    vec = MafiaVectorEnv("simple", 5, 3, illegal_reward=illegal_reward)
    vec.reset(seed=0)
    decisions = [len(game.decisions) for game in vec.games]
    row = 1 if np.asarray(actions).dtype == object else 0
    value = np.asarray(actions).tolist()[row]
    with pytest.raises(
        IllegalActionError, match=rf"row {row}: .*action {value!r} is not an integer"
    ):
        vec.step(actions)
    assert [len(game.decisions) for game in vec.games] == decisions


@pytest.mark.parametrize(
    "dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.uint64, object]
)
def test_integer_actions_of_any_width_step_alike(dtype: type) -> None:
    """Integer ids of any numpy width (and Python ints in an object array, as the AEC
    env takes them) step exactly as int64 ids."""

    def play(cast: type) -> list[np.ndarray]:
        vec = MafiaVectorEnv("simple", 5, 3)
        obs, _ = vec.reset(seed=8)
        rngs = [np.random.default_rng(i) for i in range(3)]
        seen = []
        for _ in range(40):
            actions = random_actions(obs["action_mask"], rngs)
            obs, rewards, *_ = vec.step(actions.astype(cast))
            seen += [obs["observation"], rewards]
        return seen

    for mine, reference in zip(play(dtype), play(np.int64), strict=True):
        np.testing.assert_array_equal(mine, reference)


def masked_random_step(envs: Any, rng: np.random.Generator) -> tuple[Any, ...]:
    """One step of a masked random policy written against Gymnasium's vector API only:
    masks from ``call("action_masks")``, the rows' spaces from ``get_attr``."""
    masks = np.stack(envs.call("action_masks"))
    assert masks.dtype == bool and masks.shape == (envs.num_envs, envs.single_action_space.n)
    assert envs.get_attr("action_space") == (envs.single_action_space,) * envs.num_envs
    spaces = envs.get_attr("observation_space")
    assert spaces == (envs.single_observation_space,) * envs.num_envs
    actions = np.array([int(rng.choice(np.flatnonzero(mask))) for mask in masks])
    return envs.step(actions)


def test_call_get_attr_and_set_attr_treat_each_row_as_a_sub_environment() -> None:
    """The same loop runs on Gymnasium's own `SyncVectorEnv` of `TeamEnv`s (which have
    `action_masks`) and on the vector env; a per-game value comes back one per row, a
    shared setting once per row, and `set_attr` sets a shared option for every row."""
    setup = TeamSetup(variant="simple", players=5, side="town", kinds=("*",))
    sync = SyncVectorEnv([partial(TeamEnv, setup, seed=i) for i in range(3)])
    sync.reset(seed=0)
    vec = MafiaVectorEnv("simple", 5, 3)
    with pytest.raises(RuntimeError, match="reset"):
        vec.get_attr("seat")
    obs, infos = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        masked_random_step(sync, rng)
        assert vec.get_attr("seat") == tuple(infos["seat"])
        np.testing.assert_array_equal(np.stack(vec.call("action_masks")), obs["action_mask"] == 1)
        obs, _r, _d, _t, infos = masked_random_step(vec, rng)
        assert not infos.get("illegal", np.zeros(3)).any()
    assert vec.get_attr("players") == (5, 5, 5) and vec.call("illegal_reward") == (-1.0,) * 3
    for name in ("reset", "step", "games", "_obs", "nothing"):
        with pytest.raises(AttributeError, match=f"'{name}' is not an attribute of a row"):
            vec.call(name)

    vec.set_attr("illegal_reward", [None, None, None])
    assert vec.get_attr("illegal_reward") == (None, None, None)
    with pytest.raises(IllegalActionError, match="row 0"):
        vec.step(illegal_ids(obs["action_mask"]))
    vec.set_attr("illegal_reward", -3)
    _obs, rewards, *_ = vec.step(illegal_ids(obs["action_mask"]))
    assert list(rewards) == [-3.0] * 3
    with pytest.raises(ValueError, match="one setting for every row"):
        vec.set_attr("illegal_reward", [None, -1.0, None])
    with pytest.raises(ValueError, match="2 values for 3 rows"):
        vec.set_attr("text", [True, True])
    with pytest.raises(AttributeError, match="not settable"):
        vec.set_attr("players", 7)


def test_gymnasium_observation_wrappers_refuse_the_same_step_autoreset() -> None:
    """By default the rows reset within the step (the ended game's observation is in
    ``infos["final_obs"]``), and the env says so: Gymnasium's vector observation
    wrappers, which would transform the returned observations but not the final ones,
    refuse it (a `ValueError` naming the mode from Gymnasium 1.4, a bare assertion
    before). ``autoreset_mode=AutoresetMode.NEXT_STEP`` is the mode they take
    (tests/env/test_vector_wrappers.py); ``obs["observation"]`` is flat already."""
    vec = MafiaVectorEnv("simple", 5, 2)
    assert vec.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    with pytest.raises((ValueError, AssertionError)):
        FlattenObservation(vec)
    obs, _ = vec.reset(seed=0)
    space = vec.single_observation_space
    assert isinstance(space, spaces.Dict)  # the mask inside (action_mask="observation")
    size = space["observation"].shape
    assert size is not None and obs["observation"].shape == (2, size[0])


@pytest.mark.parametrize("seed", [1.0, 2.5, "3", [0, 1.5, 2], [0.0, 1, 2]], ids=repr)
def test_a_seed_that_is_no_integer_is_refused_naming_it(seed: object) -> None:
    """As the AEC env's `reset`: a float seed alone failed as "'float' object is not
    iterable", and one in a list was truncated to another game's seed."""
    vec = MafiaVectorEnv("simple", players=5, num_envs=3)
    with pytest.raises(TypeError, match=r"reset: seed .* is not an integer"):
        vec.reset(seed=seed)  # type: ignore[arg-type]


def test_integer_seeds_of_every_form_deal_the_same_games() -> None:
    vec = MafiaVectorEnv("simple", players=5, num_envs=3)

    def first_seeds(seed: object) -> list[int]:
        vec.reset(seed=seed)  # type: ignore[arg-type]
        return [game.seed for game in vec.games]

    assert first_seeds(4) == first_seeds(np.int64(4)) == first_seeds(np.array(4)) == [4, 5, 6]
    assert first_seeds([7, 8, 9]) == first_seeds(np.array([7, 8, 9])) == [7, 8, 9]


def test_reset_mask_deals_new_games_in_the_marked_rows_only() -> None:
    """As Gymnasium's `SyncVectorEnv` takes ``options["reset_mask"]``: the option used to
    be ignored, and every row was dealt anew."""
    vec = MafiaVectorEnv("simple", players=5, num_envs=3)
    obs, _ = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(3):  # a few decisions in, no game over yet
        keys = rng.random(obs["action_mask"].shape) * obs["action_mask"]
        obs, _, terminations, _, _ = vec.step(keys.argmax(axis=1))
        assert not terminations.any()
    games = list(vec.games)
    decisions = [list(game.decisions) for game in games]
    mask = np.array([False, True, False])
    after, infos = vec.reset(seed=[None, 42, None], options={"reset_mask": mask})
    assert vec.games[0] is games[0] and vec.games[2] is games[2]
    assert [list(vec.games[i].decisions) for i in (0, 2)] == [decisions[0], decisions[2]]
    for key in ("observation", "action_mask"):
        assert np.array_equal(after[key][[0, 2]], obs[key][[0, 2]])
    fresh = MafiaVectorEnv("simple", players=5, num_envs=3)
    first, _ = fresh.reset(seed=[40, 41, 42])
    assert vec.games[1].seed == 42 and not vec.games[1].decisions
    assert np.array_equal(after["observation"][1], first["observation"][2])
    assert infos["seat"][1] == fresh.seats[2]


@pytest.mark.parametrize(
    ("mask", "error"),
    [
        ([True, False], TypeError),
        (np.array([1, 0]), TypeError),
        (np.array([True]), ValueError),
        (np.array([False, False]), ValueError),
    ],
)
def test_a_bad_reset_mask_is_refused(mask: object, error: type[Exception]) -> None:
    vec = MafiaVectorEnv("simple", players=5, num_envs=2)
    vec.reset(seed=0)
    with pytest.raises(error, match="reset_mask"):
        vec.reset(options={"reset_mask": mask})


def test_a_partial_reset_before_the_first_reset_is_refused() -> None:
    vec = MafiaVectorEnv("simple", players=5, num_envs=2)
    with pytest.raises(RuntimeError, match="reset_mask"):
        vec.reset(seed=0, options={"reset_mask": np.array([True, False])})
    vec.reset(seed=0, options={"reset_mask": np.array([True, True])})
    assert [game.seed for game in vec.games] == [0, 1]


@pytest.mark.parametrize(
    ("reward", "error"),
    [("x", TypeError), (True, TypeError), (float("nan"), ValueError), (-np.inf, ValueError)],
    ids=repr,
)
def test_an_illegal_reward_that_is_no_finite_number_is_refused_naming_it(
    reward: object, error: type[Exception]
) -> None:
    """Text failed as float()'s "could not convert string to float", a bool and NaN or
    an infinity were taken; `set_attr` is checked the same way. None still means raise."""
    with pytest.raises(error, match="illegal_reward must be"):
        MafiaVectorEnv("simple", players=5, num_envs=2, illegal_reward=reward)  # type: ignore[arg-type]
    vec = MafiaVectorEnv("simple", players=5, num_envs=2, illegal_reward=None)
    with pytest.raises(error, match="illegal_reward must be"):
        vec.set_attr("illegal_reward", reward)
    assert vec.illegal_reward is None


@pytest.mark.parametrize("num_envs", ["4", 2.0, True], ids=repr)
def test_a_batch_size_that_is_no_whole_number_is_refused_naming_it(num_envs: object) -> None:
    """'4' failed as "'<' not supported between instances of 'str' and 'int'"."""
    with pytest.raises(TypeError, match="num_envs must be a whole number"):
        MafiaVectorEnv("simple", players=5, num_envs=num_envs)  # type: ignore[arg-type]
