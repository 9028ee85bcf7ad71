"""A policy file names the code and the libraries that trained it (``trained_with``).

The spec hash and seed in its header say what was asked for; the same spec trained by
another version of the package, PyTorch or Stable-Baselines3 learns other weights, and
a policy file travels without the run that made it.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from mafia_arena.agents.policy_file import PolicyFile
from mafia_arena.code_identity import code_identity
from mafia_arena.rl.spec import load_train_spec
from mafia_arena.rl.team_env import TeamEnv
from mafia_arena.rl.train import export_policy

SPEC = """
name = "tiny"
[train]
variant = "standard"
players = 7
kinds = ["vote"]
opponents = ["heuristic"]
net = [8]
seed = 1
"""


def test_an_exported_policy_names_the_code_and_libraries_that_trained_it(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    spec_path = tmp_path / "tiny.toml"
    spec_path.write_text(SPEC, encoding="utf-8")
    spec = load_train_spec(spec_path)
    env = TeamEnv(spec.setup, seed=1)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        policy_kwargs={"net_arch": {"pi": [8], "vf": [8]}},
        seed=1,
        device="cpu",
    )
    saved = export_policy(model, spec, env).save(tmp_path / "policy.npz")

    header = PolicyFile.load(saved).header  # as a reader finds it in the file
    assert header["trained_with"]["code"] == code_identity()
    libraries = header["trained_with"]["libraries"]
    for name in ("torch", "stable-baselines3", "sb3-contrib", "gymnasium", "numpy"):
        assert libraries[name] == importlib.metadata.version(name)
