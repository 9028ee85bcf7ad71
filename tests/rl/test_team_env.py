"""`TeamEnv`: the Gymnasium contract, seeding, masks and who the learner plays."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from mafia_arena.engine.catalogue import Death, StateChanged
from mafia_arena.env.session import IllegalActionError
from mafia_arena.rl.evaluate import random_chooser, win_rate
from mafia_arena.rl.team_env import MAX_DEALS, TeamEnv, TeamSetup, request_kinds
from mafia_arena.rules import load_variant
from mafia_arena.rules.loader import envs_dir

DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"


def test_team_env_passes_gymnasium_env_checker() -> None:
    check_env(TeamEnv(seed=3), skip_render_check=True)


def run_episode(env: TeamEnv, seed: int) -> list[tuple[int, bytes, int]]:
    """(seat, observation bytes, action) per learner step, with seeded masked actions."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    trace = []
    done = False
    while not done:
        mask = env.action_masks()
        assert (mask == info["action_mask"]).all()
        action = int(rng.choice(np.flatnonzero(mask)))
        trace.append((info["seat"], obs.tobytes(), action))
        obs, reward, done, truncated, info = env.step(action)
        assert "illegal" not in info and not truncated
    assert reward in (-1.0, 0.0, 1.0)
    return trace


def test_a_seeded_env_replays_its_episodes_exactly() -> None:
    first = [run_episode(TeamEnv(), s) for s in (1, 2)]
    again = [run_episode(TeamEnv(), s) for s in (1, 2)]
    assert first == again
    assert first[0] != first[1]


@pytest.mark.parametrize("side", ["town", "mafia"])
def test_the_learner_answers_only_its_sides_requests_of_its_kinds(side: str) -> None:
    env = TeamEnv(TeamSetup(side=side, kinds=("vote",)), seed=5)
    for _ in range(20):
        _, info = env.reset()
        done = False
        while not done:
            seat = info["seat"]
            game = env.session.game
            assert game is not None
            assert env.session.variant.factions[game.state.seats[seat].faction].side == side
            request = game.request(seat)
            assert request is not None
            assert request.kind == "vote"
            action = int(np.flatnonzero(env.action_masks())[0])
            _, _, done, _, info = env.step(action)
        assert info["side"] == side and isinstance(info["won"], bool)


def test_an_illegal_action_ends_the_episode_with_the_penalty() -> None:
    env = TeamEnv(seed=1)
    env.reset()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, done, _, info = env.step(illegal)
    assert done and reward == -1.0 and "not legal" in info["illegal"]


@pytest.mark.parametrize("action", [1.5, 3.0, None, np.array([1]), np.float32(2), "1"], ids=repr)
def test_an_action_that_is_no_integer_id_raises_and_changes_nothing(action: object) -> None:
    """A wrong dtype or shape is the caller's bug (as in `MafiaVectorEnv.step`): it must
    not be scored as a lost game, where it would hide among the returns."""
    env, twin = TeamEnv(seed=1), TeamEnv(seed=1)
    env.reset()
    twin.reset()
    with pytest.raises(IllegalActionError, match="is not an integer action id"):
        env.step(action)
    legal = int(np.flatnonzero(env.action_masks())[0])  # the same decision is still open
    obs, reward, done, _, info = env.step(np.int64(legal))
    twin_obs, twin_reward, twin_done, _, twin_info = twin.step(legal)
    assert "illegal" not in info
    assert np.array_equal(obs, twin_obs) and (reward, done) == (twin_reward, twin_done)
    assert info.get("seat") == twin_info.get("seat")


@pytest.mark.parametrize(
    ("players", "message"),
    [
        ({"opponents": ()}, "opponents: name at least one player"),
        ({"opponents": "heuristic"}, r"opponents is the string 'heuristic'.*\('heuristic',\)"),
        ({"opponents": ("heuristic", "heuristc")}, r"opponents\[1\]: unknown agent 'heuristc'"),
        ({"co_player": "nobody"}, "co_player: unknown agent 'nobody'"),
    ],
)
def test_bad_players_are_refused_when_the_env_is_built(
    players: dict[str, object], message: str
) -> None:
    """As a bad kind is: found by `reset`, an empty pool was numpy's IndexError, a bare
    string drew a letter ("unknown agent 't'") and a misspelt opponent failed only in
    the game that drew it."""
    with pytest.raises(ValueError, match=message):
        TeamEnv(dataclasses.replace(TeamSetup(), **players), seed=0)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["illegal_reward", "shaping"])
@pytest.mark.parametrize(
    ("value", "error"),
    [("x", TypeError), (None, TypeError), (True, TypeError), (float("nan"), ValueError)],
    ids=repr,
)
def test_a_reward_setting_that_is_no_finite_number_is_refused_when_built(
    name: str, value: object, error: type[Exception]
) -> None:
    """Both are read only when their event comes: "x" failed in the middle of a game,
    None came back as the reward, a bool scored as 0 or 1 and NaN reached the returns."""
    with pytest.raises(error, match=f"{name} must be"):
        TeamEnv(dataclasses.replace(TeamSetup(), **{name: value}), seed=0)  # type: ignore[arg-type]


def test_a_game_seed_option_is_an_integer_never_truncated() -> None:
    env = TeamEnv(seed=0)
    with pytest.raises(TypeError):
        env.reset(options={"game_seed": 4.5})
    env.reset(options={"game_seed": np.int64(4)})
    assert env.session.seed == 4


def test_shaping_signals_report_day_deaths_by_side() -> None:
    env = TeamEnv(TeamSetup(shaping=0.25), seed=2)
    seen: list[dict] = []
    total_shaping = 0.0
    for _ in range(10):
        _, info = env.reset()
        done = False
        while not done:
            _, reward, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
            seen.extend(info["signals"])
            if not done:
                total_shaping += reward
    assert seen and {s["side"] for s in seen} <= {"town", "mafia"}
    assert total_shaping != 0.0


def test_heuristic_votes_beat_random_votes_on_the_same_games() -> None:
    """The scripted baseline of the RL benchmark: paired seeded games, same opponents."""
    setup = TeamSetup(opponents=("heuristic",))
    heuristic = win_rate(setup, "heuristic votes", None, "heuristic", 200)
    random_votes = win_rate(setup, "random votes", random_chooser(0), "heuristic", 200)
    assert heuristic.rate > random_votes.rate + 0.15


def executions(env: TeamEnv, since: int) -> list[dict[str, object]]:
    """The players the table's vote removed after event `since`: executions, and
    Palermo's exits by the vote; with the side their shown card says (None if hidden)."""
    game = env.session.game
    assert game is not None
    return [
        {"seat": e.fact.seat, "side": env._sides[e.fact.seat] if e.fact.role else None}
        for e in game.events[since:]
        if (isinstance(e.fact, Death) and e.fact.cause == "execution")
        or (isinstance(e.fact, StateChanged) and e.fact.cause == "vote")
    ]


def test_signals_leave_out_night_kills_announced_at_dawn() -> None:
    """The seeded game's first night kills a town player; the learner's first vote
    comes after dawn, by day, and its signals must not hold that kill."""
    env = TeamEnv(TeamSetup(side="town", kinds=("vote",), shaping=0.25), seed=0)
    _, info = env.reset()
    game = env.session.game
    assert game is not None and game.state.phase == "day"
    night_kills = [e.fact.seat for e in game.events if isinstance(e.fact, Death)]
    assert night_kills and all(
        e.fact.cause == "night" for e in game.events if isinstance(e.fact, Death)
    )
    assert info["signals"] == []


@pytest.mark.parametrize(
    ("variant", "players", "kinds", "seed"),
    [("standard", 7, ("vote",), 4), ("palermo", 12, ("change_vote",), 1)],
)
def test_signals_and_shaping_are_exactly_the_executions(
    variant: str, players: int, kinds: tuple[str, ...], seed: int
) -> None:
    setup = TeamSetup(variant, players, side="town", kinds=kinds, shaping=0.25)
    env = TeamEnv(setup, seed=seed)
    shaped = 0
    for _ in range(10):
        _, info = env.reset()
        game = env.session.game
        assert game is not None
        assert info["signals"] == executions(env, 0)
        done = False
        while not done:
            seen = len(game.events)
            action = int(np.flatnonzero(env.action_masks())[0])
            _, reward, done, _, info = env.step(action)
            expected = executions(env, seen)
            assert info["signals"] == expected
            shaping = sum({"mafia": 0.25, "town": -0.25}.get(str(s["side"]), 0) for s in expected)
            outcome = float(info["won"]) * 2 - 1 if done and game.state.winner else 0.0
            assert reward == pytest.approx(shaping + outcome)
            shaped += len(expected)
    assert shaped > 0


def test_a_hidden_card_gives_no_side_and_no_shaping() -> None:
    """Where an executed card is not shown, its dealt side is what the table plays to
    find out: the signal names the seat only, and nothing is shaped."""
    overrides = {"first_phase": "day", "reveal_on_death": False}
    setup = TeamSetup("simple", 7, side="town", kinds=("vote",), shaping=0.5, overrides=overrides)
    env = TeamEnv(setup, seed=3)
    seen: list[dict[str, object]] = []
    for _ in range(5):
        env.reset()
        done = False
        while not done:
            _, reward, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
            seen.extend(info["signals"])
            if not done:
                assert reward == 0.0
    assert seen and all(s["side"] is None for s in seen)


def test_a_request_kind_the_variant_never_asks_is_refused_when_the_env_is_built() -> None:
    with pytest.raises(ValueError, match="'vot' is not a request kind of standard"):
        TeamEnv(TeamSetup(kinds=("vot",)), seed=0)
    with pytest.raises(ValueError, match="at least one request kind"):
        TeamEnv(TeamSetup(kinds=()), seed=0)
    assert "vote" in request_kinds(load_variant("standard"), 7)


def test_request_kinds_takes_the_setup_variant_as_named() -> None:
    """docs/rl.md lists a setup's kinds with `request_kinds(variant, players)`, where
    `TeamSetup.variant` is a name: a name or a path lists what the loaded file does."""
    loaded = request_kinds(load_variant("classic"), 10)
    assert request_kinds("classic", 10) == loaded
    assert request_kinds(envs_dir() / "classic.toml", 10) == loaded
    assert "final_vote" in loaded
    assert request_kinds("standard", 7, {"mafia": 1}) == request_kinds(
        load_variant("standard", {"mafia": 1}), 7
    )


def test_a_night_kind_of_the_other_side_is_refused_when_the_env_is_built() -> None:
    with pytest.raises(ValueError, match="'night:mafia_kill' is asked only of the mafia side"):
        TeamEnv(TeamSetup(side="town", kinds=("night:mafia_kill",)), seed=0)


def test_reset_gives_up_when_the_learner_side_is_never_asked() -> None:
    """The backstop for what the build-time check cannot see (a role that changes sides):
    a setup whose learner is never asked ends in an error, not in endless deals."""
    env = TeamEnv(TeamSetup(side="town", kinds=("vote",)), seed=0)
    env.setup = dataclasses.replace(env.setup, kinds=("night:mafia_kill",))
    with pytest.raises(RuntimeError, match=f"{MAX_DEALS} games of standard at 7 players dealt"):
        env.reset()


def test_the_documented_team_env_snippet_runs_as_written() -> None:
    """docs/rl.md, *The team env*: the snippet plays one whole episode."""
    section = DOC.read_text().split("## The team env", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, "the section has a python snippet"
    namespace: dict[str, object] = {}
    exec(compile(found.group(1), str(DOC), "exec"), namespace)
    assert namespace["terminated"] is True
    assert namespace["reward"] in (-1.0, 0.0, 1.0)


def test_a_numpy_integer_seed_is_the_seed_its_int_is() -> None:
    """`reset(seed=np.int64(n))` plays the episode `reset(seed=n)` plays (Gymnasium's
    seeding refused a numpy integer), and a step after the episode says it is over."""
    first, again = TeamEnv(seed=np.int64(4)), TeamEnv(seed=4)  # type: ignore[arg-type]
    obs_a, _ = first.reset(seed=np.int64(9))  # type: ignore[arg-type]
    obs_b, _ = again.reset(seed=9)
    assert np.array_equal(obs_a, obs_b)
    assert first.opponent == again.opponent
    done = False
    while not done:
        mask = first.action_masks()
        _, _, done, _, _ = first.step(int(np.flatnonzero(mask)[0]))
    with pytest.raises(RuntimeError, match="no episode is running"):
        first.step(0)


@pytest.mark.parametrize(
    ("variant", "players", "side", "reason"),
    [
        ("palermo", 12, "solo", "palermo deals no solo seat at 12 players"),
        ("club", 8, "solo", "club deals no solo seat at 8 players"),
        ("standard", 7, "twon", "'twon' is not a side of standard (mafia, town)"),
    ],
)
def test_a_side_no_seat_is_dealt_is_refused_when_built(
    variant: str, players: int, side: str, reason: str
) -> None:
    """Even with every kind (``*``): the learner plays the seats dealt to its side, so
    otherwise `reset` dealt `MAX_DEALS` games before giving up, and `play` (the
    evaluation) failed on a side no seat holds."""
    with pytest.raises(ValueError, match=re.escape(reason)):
        TeamEnv(TeamSetup(variant, players, side=side, kinds=("*",)), seed=0)
