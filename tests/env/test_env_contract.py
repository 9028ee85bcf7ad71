"""The Mafia-specific contract of the AEC and Parallel envs (see `mafia_arena.env`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from tests.env.env_cases import SMALL_CASES

from mafia_arena import env as mafia_env
from mafia_arena.engine import PASS, Game
from mafia_arena.env import IllegalActionError
from mafia_arena.rules import load_variant
from mafia_arena.views.text import render_view

DEAD_KINDS = {"last_dead", "last_word"}  # classic: the last dead decides; club: last words
GHOST_KINDS = {"turn", "change_vote", "runoff", "last_words"}
"""Palermo: ghosts act by rule too (echo voters vote, today's victim may play Failed
Assassination, a voted-out player speaks last words)."""


def random_action(obs: dict[str, np.ndarray], rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


@pytest.mark.parametrize(("variant", "players"), SMALL_CASES)
def test_aec_selects_only_living_pending_seats_and_ends_with_team_rewards(
    variant: str, players: int
) -> None:
    env = mafia_env.raw_env(variant, players)
    rng = np.random.default_rng(1)
    for seed in range(3):
        env.reset(seed=seed)
        game = env.session.game
        assert game is not None
        slot_turns: list[int] = []
        round_living: list[int] = []
        while not env.session.over:
            agent = env.agent_selection
            seat = int(agent.split("_")[1])
            pending = env.session.pending_seats()
            assert set(env.agents) == set(env.possible_agents), "the dead stay in agents"
            if env.session.in_rounds:
                # every seat alive at nightfall gets one turn per slot, in seat order; in
                # a forum round every living seat, those who passed waiting (a seat an
                # attack kills during the round is not selected again)
                living = env.session.living_seats()
                if not slot_turns or slot_turns[-1] >= seat:
                    slot_turns, round_living = [], living
                slot_turns.append(seat)
                still = [s for s in round_living if s in slot_turns or s in living]
                assert slot_turns == still[: len(slot_turns)]
                if seat not in pending:
                    mask = env.observe(agent)["action_mask"]
                    assert mask.tolist() == [1] + [0] * (len(mask) - 1)
            else:
                slot_turns = []
                assert seat == pending[0], "by day the selection is the lowest pending seat"
                if not game.state.alive(seat):
                    allowed = DEAD_KINDS | (GHOST_KINDS if variant == "palermo" else set())
                    assert game.pending()[seat].kind in allowed, "the dead act only by rule"
            obs, reward, term, trunc, info = env.last()
            assert not term and not trunc and reward == 0
            assert info["text"] == render_view(env.view(agent))
            env.step(random_action(obs, rng))
        winners = set(game.state.winners)
        for agent in env.possible_agents:
            seat = int(agent.split("_")[1])
            expected = 0.0 if game.state.winner is None else (1.0 if seat in winners else -1.0)
            assert env.terminations[agent]
            assert env._cumulative_rewards[agent] == expected
            assert env.infos[agent]["result"]["winner"] == game.state.winner


@pytest.mark.parametrize(("variant", "players"), SMALL_CASES)
def test_parallel_masks_waiting_and_dead_seats_to_noop(variant: str, players: int) -> None:
    env = mafia_env.raw_parallel_env(variant, players)
    rng = np.random.default_rng(2)
    obs, infos = env.reset(seed=5)
    game = env.session.game
    assert game is not None
    batches = 0
    together = False
    while env.agents:
        pending = set(env.session.pending_seats())
        together = together or len(pending) > 1
        for agent, o in obs.items():
            seat = int(agent.split("_")[1])
            if seat not in pending:
                assert o["action_mask"].tolist() == [1] + [0] * (len(o["action_mask"]) - 1)
                assert infos[agent]["request"] is None
            else:
                assert infos[agent]["request"]["kind"] == game.pending()[seat].kind
        # waiting seats send garbage: it must be ignored
        actions = {
            a: random_action(o, rng) if int(a.split("_")[1]) in pending else 10**6
            for a, o in obs.items()
        }
        obs, rewards, terms, truncs, infos = env.step(actions)
        batches += bool(pending)  # a night's waiting slots ask nobody
        assert set(rewards) == set(env.possible_agents)
    assert all(terms.values()) and not any(truncs.values())
    assert sorted(set(rewards.values())) in ([0.0], [-1.0, 1.0])
    assert batches <= len(game.decisions)
    if together:
        assert batches < len(game.decisions), "simultaneous decisions come as one batch"


def test_raw_envs_refuse_illegal_actions_without_changing_anything() -> None:
    env = mafia_env.raw_env("standard", 7)
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    assert env.session.game is not None
    before = len(env.session.game.events)
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert len(env.session.game.events) == before
    penv = mafia_env.raw_parallel_env("standard", 7)
    pobs, _ = penv.reset(seed=3)
    actions = {a: 0 for a in pobs}
    with pytest.raises(IllegalActionError):
        penv.step(actions)  # night picks have no pass
    assert penv.session.game is not None
    assert len(penv.session.game.events) == before


def test_wrapped_envs_end_the_game_on_an_illegal_action() -> None:
    env = mafia_env.env("standard", 7)
    env.reset(seed=3)
    agent = env.agent_selection
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(env.terminations.values())
    assert env._cumulative_rewards[agent] == -1.0
    penv = mafia_env.parallel_env("standard", 7)
    penv.reset(seed=3)
    offenders = set(penv.unwrapped.session.pending_seats())
    _, rewards, terms, _, _ = penv.step({a: 0 for a in penv.agents})
    assert all(terms.values()) and penv.agents == []
    assert {a for a, r in rewards.items() if r == -1.0} == {f"player_{s}" for s in offenders}


def test_free_text_turns() -> None:
    env = mafia_env.env("standard", 7)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    said = False
    for _agent in env.agent_iter(500):
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        free = bool(info["request"] and info["request"]["free_text"])
        if free and not said:
            env.step_text("I think P3 is mafia, honestly.")
            said = True
            continue
        if not free and said:
            with pytest.raises(IllegalActionError):
                env.step_text("no speeches now")
        env.step(random_action(obs, rng))
    game = env.unwrapped.session.game
    assert any(
        e.kind == "speech" and e.fact.to_payload()["text"] == "I think P3 is mafia, honestly."
        for e in game.events
    )
    penv = mafia_env.raw_parallel_env("standard", 7)
    obs, infos = penv.reset(seed=4)
    while not any(i["request"] and i["request"]["free_text"] for i in infos.values()):
        obs, _, _, _, infos = penv.step({a: random_action(o, rng) for a, o in obs.items()})
    speaker = next(a for a, i in infos.items() if i["request"])
    penv.step({**{a: 0 for a in obs}, speaker: "Free words."})
    assert penv.session.game is not None
    assert any(
        e.kind == "speech" and e.fact.to_payload()["text"] == "Free words."
        for e in penv.session.game.events
    )


def test_info_lists_labelled_choices_with_action_ids() -> None:
    env = mafia_env.raw_env("classic", 7)
    env.reset(seed=0)
    while env.session.view(int(env.agent_selection.split("_")[1])).request is None:
        env.step(0)  # night turns of seats that only wait
    info = env.infos[env.agent_selection]
    assert env.session.game is not None
    request = env.session.game.request(int(env.agent_selection.split("_")[1]))
    assert request is not None
    assert [c["key"] for c in info["request"]["choices"]] == [c.key for c in request.choices]
    assert [c["label"] for c in info["request"]["choices"]] == list(request.labels)
    mask = env.observe(env.agent_selection)["action_mask"]
    assert sorted(c["action"] for c in info["request"]["choices"]) == np.flatnonzero(mask).tolist()


def test_max_text_bounds_the_text_view() -> None:
    env = mafia_env.raw_env("standard", 7, max_text=50)
    env.reset(seed=0)
    assert len(env.infos[env.agent_selection]["text"]) <= 50
    env = mafia_env.raw_env("standard", 7, max_text=0)
    env.reset(seed=0)
    assert "text" not in env.infos[env.agent_selection]


def test_versioned_names_and_spaces() -> None:
    assert "mafia_standard_v0" in mafia_env.env_names()
    made = mafia_env.mafia_classic_v0.env(players=9)
    assert str(made.unwrapped) == "mafia_classic_v0"
    assert made.unwrapped.metadata["name"] == "mafia_classic_v0"
    with pytest.raises(AttributeError):
        _ = mafia_env.mafia_nosuchvariant_v0
    agent = made.possible_agents[0]
    assert made.observation_space(agent) is made.observation_space(agent)
    assert made.action_space(agent) is made.action_space(agent)
    assert made.possible_agents == [f"player_{i}" for i in range(9)]


def test_reset_seed_reproduces_the_engine_game() -> None:
    from mafia_arena.engine import Game

    env = mafia_env.raw_env("simple", 7)
    env.reset(seed=11)
    assert env.session.game is not None
    assert env.session.game.events == Game(env.session.variant, 7, 11).events


def test_an_unchanged_view_gives_back_the_same_observation() -> None:
    """A seat whose knowledge and request did not change since its last observation
    gets the same arrays (a Parallel step observes every seat), read-only and in a dict
    of its own; a changed one new ones."""
    env = mafia_env.raw_parallel_env("standard", 7)
    env.reset(seed=3)
    session = env.session
    first = session.observe(0)
    again = session.observe(0)
    assert again is not first
    assert all(again[key] is first[key] for key in ("observation", "action_mask"))
    assert not (first["observation"].flags.writeable or first["action_mask"].flags.writeable)
    seen = len(session.view(0).knowledge.events)
    while len(session.view(0).knowledge.events) == seen:
        actions = dict.fromkeys(env.agents, 0)
        for seat in session.pending_seats():
            request = session.view(seat).request
            assert request is not None
            actions[f"player_{seat}"] = session.table.ids(request)[0]
        env.step(actions)
    assert session.observe(0)["observation"] is not first["observation"]


def test_a_forum_rounds_turns_do_not_show_who_hands_in_a_night_form() -> None:
    """Dictator: two deals that differ only in who holds the guardian angel (swapped with
    a citizen). The angel hands in a protection each night and so goes on after the
    others have passed; a third seat, a citizen, must see the same turns in both until
    its own events differ (before, the AEC env selected only the seats still going)."""
    players, seed = 12, 5
    deal_a = [s.card for s in Game(load_variant("dictator"), players, seed).state.seats]
    angel = deal_a.index("guardian_angel")
    observer, swapped = [s for s, c in enumerate(deal_a) if c == "citizen"][:2]
    deal_b = list(deal_a)
    deal_b[angel], deal_b[swapped] = deal_a[swapped], deal_a[angel]
    protected = next(s for s in range(players) if s not in (angel, swapped, observer))
    envs = [mafia_env.raw_env("dictator", players), mafia_env.raw_env("dictator", players)]
    for env, deal in zip(envs, (deal_a, deal_b), strict=True):
        env.reset(seed=seed, options={"deal": deal})
    handed: list[set[tuple[int, int, str]]] = [set(), set()]

    def seen(env: mafia_env.raw_env) -> tuple[object, ...]:
        view = env.session.view(observer)
        return (list(view.knowledge.events), view.request)

    steps = 0
    while seen(envs[0]) == seen(envs[1]) and not envs[0].session.over:
        assert envs[0].agent_selection == envs[1].agent_selection, f"step {steps}"
        for k, env in enumerate(envs):
            seat = int(env.agent_selection.split("_")[1])
            if not env.session.asks(seat):
                env.step(0)
                continue
            game = env.session.current
            request = game.request(seat)
            assert request is not None
            key = (seat, game.state.day, game.state.phase)
            offered = [c for c in request.choices if c.verb == "protect" and c.target == protected]
            choice = PASS
            if offered and key not in handed[k]:
                handed[k].add(key)
                choice = offered[0]
            env.step(env.session.table.id_of(choice))
        steps += 1
    assert handed[0] and handed[1] and steps > 40


def test_a_forum_window_takes_the_same_rounds_whatever_others_write_in_private() -> None:
    """Dictator: in one game every seat passes at once; in the other, identical, two
    seats go on exchanging private messages for a few rounds of every window. A third
    seat sees none of those messages, so its turns, observations and text must be the
    same in both. Before, the window ended as soon as everyone had passed, so the
    rounds this seat waited showed that someone was still writing; and a round's outcome
    appeared as soon as its last asked seat answered, so who saw it within the round
    showed which seat that was."""
    players, seed, rounds = 12, 3, 3
    observer, writer, reader = 0, 1, 2
    envs = [mafia_env.raw_env("dictator", players), mafia_env.raw_env("dictator", players)]
    for env in envs:
        env.reset(seed=seed)
    sent: dict[tuple[int, str], int] = {}

    def answer(env: mafia_env.raw_env, chatty: bool) -> int:
        seat = int(env.agent_selection.split("_")[1])
        if not env.session.asks(seat):
            return 0
        game = env.session.current
        key = (game.state.day, game.state.phase)
        if chatty and seat in (writer, reader) and sent.get(key, 0) < rounds:
            request = game.request(seat)
            assert request is not None
            other = reader if seat == writer else writer
            pm = [c for c in request.choices if c.verb == "pm" and c.target == other]
            if pm:
                sent[key] = sent.get(key, 0) + 1
                return env.session.table.id_of(pm[0])
        return env.session.table.id_of(PASS)

    def seen(env: mafia_env.raw_env) -> tuple[object, ...]:
        obs = env.observe(f"player_{observer}")
        info = env.session.info(observer)
        return (
            env.agent_selection,
            obs["observation"].tolist(),
            obs["action_mask"].tolist(),
            info.get("text"),
        )

    steps = 0
    while not envs[0].session.over and steps < 2000:
        a, b = seen(envs[0]), seen(envs[1])
        assert a[3] == b[3], f"step {steps}"
        assert a == b, f"step {steps}"
        for chatty, env in enumerate(envs):
            env.step(answer(env, bool(chatty)))
        steps += 1
    assert envs[1].session.over == envs[0].session.over
    assert len(sent) >= 3 and max(sent.values()) > 1, sent


@pytest.mark.parametrize("max_text", [-1, 1.5, "300", True], ids=repr)
@pytest.mark.parametrize("make", [mafia_env.env, mafia_env.parallel_env])
def test_a_max_text_that_is_no_count_of_characters_is_refused(make: Any, max_text: object) -> None:
    """-1 kept all but the text's first character and 1.5 failed mid-game, at the first
    info; both are refused when the env is built."""
    with pytest.raises(ValueError, match="max_text must be None"):
        make("simple", players=5, max_text=max_text)


BAD_LAYOUT_OPTIONS = [
    ("history_days", True, "a whole number from 1 to 100"),
    ("history_days", 2.5, "a whole number from 1 to 100"),
    ("history_days", 0, "a whole number from 1 to 100"),
    ("history_days", "3", "a whole number from 1 to 100"),
    ("history_days", 101, "a whole number from 1 to 100"),  # a training spec's cap too
    ("history_days", 10**6, "a whole number from 1 to 100"),
    ("max_players", 0, "a whole number from 1 to 1,000"),
    ("max_players", -1, "a whole number from 1 to 1,000"),
    ("max_players", True, "a whole number from 1 to 1,000"),
    ("max_players", 8.0, "a whole number from 1 to 1,000"),
    ("max_players", 1001, "a whole number from 1 to 1,000"),
    ("max_players", 10**5, "a whole number from 1 to 1,000"),
    ("egocentric", 1, "true or false"),
]


@pytest.mark.parametrize(("option", "value", "wanted"), BAD_LAYOUT_OPTIONS, ids=repr)
@pytest.mark.parametrize("make", [mafia_env.env, mafia_env.parallel_env])
def test_a_history_layout_option_of_the_wrong_kind_is_refused_naming_it(
    make: Any, option: str, value: object, wanted: str
) -> None:
    """``history_days=True`` played one day slot and 2.5 built a vector of another
    size, ``max_players=0`` meant no padding while the metadata said 0, 8.0 failed in
    Gymnasium's Box, ``egocentric=1`` was recorded as 1, and ``history_days=10**6`` or
    ``max_players=10**5`` asked for an observation of billions of values: each is
    refused when the env is built, with `ValueError` naming the option, the value and
    the range."""
    with pytest.raises(ValueError, match=f"^{option} must be {wanted}, not {value!r}$"):
        make("simple", players=5, observation="history", **{option: value})


@pytest.mark.parametrize("make", [mafia_env.env, mafia_env.parallel_env])
def test_the_history_layout_caps_are_usable_and_a_training_spec_s(make: Any) -> None:
    """The largest values are taken (no vector is built larger than the caps allow), and
    a training spec refuses past the very same caps: one definition for both."""
    from mafia_arena.rl import spec
    from mafia_arena.views import encode_history

    assert (spec.MAX_HISTORY_DAYS, spec.MAX_MAX_PLAYERS) == (100, 1000)
    assert spec.MAX_HISTORY_DAYS is encode_history.MAX_HISTORY_DAYS
    assert spec.MAX_MAX_PLAYERS is encode_history.MAX_MAX_PLAYERS
    options = {"history_days": 100, "max_players": 12}
    built = make("simple", players=5, observation="history", **options)
    assert built.metadata["observation"]["history_days"] == 100
    built.close()


def test_a_numpy_count_is_a_history_layout_option() -> None:
    """A count from numpy (a grid search's ``np.arange``) is taken as the whole number
    it is, and the metadata holds a plain `int`."""
    options: dict[str, Any] = {"history_days": np.int64(2), "max_players": np.int64(6)}
    aec = mafia_env.raw_env("simple", 5, observation="history", **options)
    meta = aec.metadata["observation"]
    assert (meta["history_days"], meta["max_players"]) == (2, 6)
    assert type(meta["history_days"]) is int and type(meta["max_players"]) is int


BAD_REWARDS = [
    ("x", TypeError, "must be a number"),
    (None, TypeError, "must be a number"),
    (True, TypeError, "must be a number"),
    (float("nan"), ValueError, "must be a finite number"),
    (float("inf"), ValueError, "must be a finite number"),
]


@pytest.mark.parametrize(("reward", "error", "message"), BAD_REWARDS, ids=repr)
@pytest.mark.parametrize("make", [mafia_env.env, mafia_env.parallel_env])
def test_an_illegal_reward_that_is_no_finite_number_is_refused_naming_it(
    make: Any, reward: object, error: type[Exception], message: str
) -> None:
    """The AEC env took "x" and None (and handed them back as the reward of an illegal
    move), a bool scored as 0 or 1, NaN and an infinity reached the returns."""
    with pytest.raises(error, match=f"illegal_reward {message}"):
        make("simple", players=5, illegal_reward=reward)


def test_max_text_keeps_that_many_trailing_characters() -> None:
    env = mafia_env.raw_env("simple", players=5, max_text=40)
    env.reset(seed=0)
    assert len(env.infos[env.agent_selection]["text"]) == 40
