"""Rollout workers on a real local Ray: same seeds, same games, the same trained policy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("ray")

from mafia_arena.agents.policy_file import PolicyFile
from mafia_arena.rl.spec import load_train_spec
from mafia_arena.rl.train import train

SPEC = """
name = "tiny-ray"
[train]
variant = "standard"
players = 7
kinds = ["vote"]
opponents = ["heuristic", "random"]
steps = 1024
eval_every = 1024
eval_games = 4
envs = 4
n_steps = 128
batch_size = 128
seed = 3
"""


def test_training_on_ray_rollout_workers_gives_the_in_process_policy(tmp_path: Path) -> None:
    import ray

    spec_path = tmp_path / "tiny-ray.toml"
    spec_path.write_text(SPEC + "rollout_workers = 2\n")
    on_ray = load_train_spec(spec_path)
    assert on_ray.rollout_workers == 2
    in_process = load_train_spec(spec_path)
    in_process = type(in_process)(**{**in_process.__dict__, "rollout_workers": 0})

    connected = ray.is_initialized()  # a Ray that another test left connected is reused
    remote = train(on_ray, tmp_path / "ray", track=False, log=lambda _: None)
    # a private cluster it started is shut down again; a reused one is left as it was
    assert ray.is_initialized() == connected
    local = train(in_process, tmp_path / "local", track=False, log=lambda _: None)

    a, b = PolicyFile.load(remote.policy_path), PolicyFile.load(local.policy_path)

    assert len(a.layers) == len(b.layers)
    for (wa, ba), (wb, bb) in zip(a.layers, b.layers, strict=True):
        np.testing.assert_array_equal(wa, wb)
        np.testing.assert_array_equal(ba, bb)
    assert remote.curve == local.curve
