"""A policy file names its observation layout and the `rl` agent encodes with it: old
files (no ``observation`` in the header) are v0, a ``history`` file is encoded and
rotated exactly as the env did in training, an unknown layout version is refused."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from mafia_arena.agents.policy import PolicyAgent
from mafia_arena.agents.policy_file import PolicyFile
from mafia_arena.agents.registry import make_agent
from mafia_arena.env.session import GameSession
from mafia_arena.rl.spec import TrainSpecError, load_train_spec
from mafia_arena.views.encode import ObservationEncoder
from mafia_arena.views.encode_history import HistoryEncoder, ObservationSpec

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "agents" / "policies" / "rl-town-votes.npz"
HISTORY = ObservationSpec("history", history_days=2, egocentric=True)


def history_policy(tmp_path: Path, layout: ObservationSpec = HISTORY) -> Path:
    """A random-weight town voting policy at 7 players on the egocentric history
    layout (or on `layout`)."""
    shipped = PolicyFile.load(SHIPPED)
    session = GameSession("standard", 7, observation=layout)
    rng = np.random.default_rng(0)
    size, actions = session.encoder.size, session.table.size
    layers = [
        (rng.normal(size=(16, size)).astype(np.float32), np.zeros(16, np.float32)),
        (rng.normal(size=(actions, 16)).astype(np.float32), np.zeros(actions, np.float32)),
    ]
    kept = {k: v for k, v in shipped.header.items() if k not in ("format", "layers", "advice")}
    header = {
        **kept,
        "observation": layout.header(),
        "observation_size": size,
        "name": "random-history",
    }
    PolicyFile(layers, header).save(tmp_path / "p.npz")
    agent_file = tmp_path / "agent.toml"
    agent_file.write_text('name = "h"\nkind = "rl"\npolicy = "p.npz"\n')
    return agent_file


def test_a_file_without_a_layout_is_v0(tmp_path: Path) -> None:
    """Files written before the header named a layout (or advice) are plain v0."""
    shipped = PolicyFile.load(SHIPPED)
    old = ("format", "layers", "observation", "advice")
    header = {k: v for k, v in shipped.header.items() if k not in old}
    session = GameSession("standard", 7)
    header["observation_size"] = session.encoder.size
    weight = np.zeros((session.table.size, session.encoder.size), np.float32)
    PolicyFile([(weight, np.zeros(session.table.size, np.float32))], header).save(
        tmp_path / "v0.npz"
    )
    agent_file = tmp_path / "v0.toml"
    agent_file.write_text('name = "v0"\nkind = "rl"\npolicy = "v0.npz"\n')
    agent = make_agent(str(agent_file))
    assert isinstance(agent, PolicyAgent) and agent.advice is None
    assert agent.observation == ObservationSpec()
    assert isinstance(agent.encoder, ObservationEncoder)


def test_a_history_policy_decides_as_the_env_encodes_and_rotates(tmp_path: Path) -> None:
    agent = make_agent(str(history_policy(tmp_path)))
    assert isinstance(agent, PolicyAgent) and isinstance(agent.encoder, HistoryEncoder)
    session = GameSession("standard", 7, observation=HISTORY)
    policy = agent.policy
    rng = random.Random(4)
    checked = set()
    for seed in range(4):
        game = session.new_game(seed)
        agent.reset(0, seed)
        while not game.over:
            for seat, request in sorted(game.pending().items()):
                view = session.view(seat)
                if request.kind == "vote" and agent._fits(view):
                    seen = session.observe(seat)  # what the env gave the learner
                    action = policy.act(seen["observation"], seen["action_mask"].astype(bool))
                    expected = session.table.choice_of(session.absolute(seat, action))
                    assert agent.decide(view) == expected
                    checked.add(seat)
                game.submit(seat, rng.choice(request.choices))
    assert len(checked) >= 3  # several town seats: the rotation differs per seat


def test_an_unknown_layout_version_is_refused(tmp_path: Path) -> None:
    agent_file = history_policy(tmp_path)
    loaded = PolicyFile.load(tmp_path / "p.npz")
    loaded.header["observation"] = {**loaded.header["observation"], "version": 9}
    loaded.save(tmp_path / "p.npz")
    with pytest.raises(ValueError, match="history/9 is not known"):
        make_agent(str(agent_file))


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ("[train]\nobservation = 'pixels'\n", "train.observation"),
        ("[train]\nobservation = 'v0'\negocentric = true\n", "train.observation"),
        ("[train]\nobservation = 'history'\negocentric = 'yes'\n", "train.egocentric"),
        ("[train]\nobservation = 'history'\nhistory_days = 0\n", "train.history_days"),
    ],
)
def test_bad_layout_keys_in_a_spec_name_file_and_key(tmp_path: Path, body: str, key: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(body)
    with pytest.raises(TrainSpecError) as caught:
        load_train_spec(path)
    assert str(caught.value).startswith(f"{path}: {key}: ")


def test_the_history_spec_loads_with_its_layout() -> None:
    spec = load_train_spec(REPO / "experiments" / "rl-town-votes-history.toml")
    assert spec.setup.observation_spec() == ObservationSpec("history", 3, egocentric=True)


@pytest.mark.parametrize("players", [5, 6, 7, 8, 9])
def test_a_padded_policy_plays_only_at_its_trained_count(tmp_path: Path, players: int) -> None:
    """A policy trained at 7 players with seat rows padded to 9 reads a 5- to 9-player
    game's observation at its own size, but its action ids are the 7-player table's
    (K grows with the seats): at any other count the fallback makes every decision,
    and every one is legal; at 7 the policy answers the town's votes. docs/rl.md,
    *Seating a trained policy*."""
    padded = ObservationSpec("history", history_days=2, egocentric=True, max_players=9)
    agent = make_agent(str(history_policy(tmp_path, padded)))
    assert isinstance(agent, PolicyAgent)
    session = GameSession("standard", players, observation=padded)
    assert session.encoder.size == agent.encoder.size  # the padding's promise
    assert (session.table.size == agent.table.size) == (players == 7)
    rng = random.Random(players)
    answered = 0.0
    for seed in range(4):
        game = session.new_game(seed)
        agent.reset(0, seed)
        agent.set_variant(session.variant)
        while not game.over:
            for seat, request in sorted(game.pending().items()):
                if seat == 0:
                    game.submit(seat, agent.decide(session.view(seat)))  # legal, or raises
                else:
                    game.submit(seat, rng.choice(request.choices))
        extra = agent.stats.extra
        assert extra["policy_decisions"] + extra["fallback_decisions"] == agent.stats.decisions
        answered += extra["policy_decisions"]
    assert (answered > 0) == (players == 7)  # seat 0 is dealt to the town in some seeds
