"""Training with the real Stable-Baselines3 MaskablePPO on the real env (short)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from tests.host_key import FIXED_HOST_KEY

pytest.importorskip("sb3_contrib")

from mafia_arena.agents.policy_file import PolicyFile
from mafia_arena.agents.registry import make_agent
from mafia_arena.rl.evaluate import random_chooser, win_rate
from mafia_arena.rl.spec import TrainSpecError, load_train_spec
from mafia_arena.rl.train import train
from mafia_arena.rules import load_variant
from mafia_arena.runner.match import play_match_sync

SPEC = """
name = "tiny"
[train]
variant = "standard"
players = 7
kinds = ["vote"]
opponents = ["heuristic"]
steps = 16000
eval_every = 8000
eval_games = 50
envs = 4
n_steps = 256
batch_size = 256
seed = 1
"""


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    folder = tmp_path_factory.mktemp("train")
    spec_path = folder / "tiny.toml"
    spec_path.write_text(SPEC)
    mlflow_uri = f"sqlite:///{folder / 'mlflow.db'}"
    scratch = folder / "tmp"  # the temporary folder while training (see the last test)
    scratch.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", str(scratch))
        result = train(load_train_spec(spec_path), folder / "out", tracking_uri=mlflow_uri)
    return folder, result


def test_a_briefly_trained_policy_beats_random_votes(trained: tuple[Path, object]) -> None:
    folder, _ = trained
    policy = PolicyFile.load(folder / "out" / "policy.npz")
    spec = load_train_spec(folder / "tiny.toml")
    learned = win_rate(spec.setup, "policy", policy.act, "heuristic", 300)
    baseline = win_rate(spec.setup, "random votes", random_chooser(0), "heuristic", 300)
    assert learned.rate > baseline.rate + 0.05, (learned.row(), baseline.row())


def test_training_writes_the_curve_checkpoint_and_an_mlflow_run(
    trained: tuple[Path, object],
) -> None:
    from mlflow import MlflowClient

    folder, result = trained
    out = folder / "out"
    for name in ("policy.npz", "model.zip", "curve.csv", "curve.png"):
        assert (out / name).stat().st_size > 0
    assert [p["step"] for p in result.curve] == [0.0, 8000.0, 16000.0]  # type: ignore[attr-defined]
    client = MlflowClient(tracking_uri=f"sqlite:///{folder / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("train:tiny")
    assert experiment is not None
    (run,) = client.search_runs([experiment.experiment_id])
    assert run.info.status == "FINISHED"
    history = client.get_metric_history(run.info.run_id, "win_vs_heuristic")
    assert [m.step for m in history] == [0, 8000, 16000]
    assert {a.path for a in client.list_artifacts(run.info.run_id)} >= {"policy.npz", "curve.png"}
    # beside the store's database, as a tournament's, not in the working folder's mlruns/
    assert str(folder / "mlruns") in run.info.artifact_uri, run.info.artifact_uri


def test_the_numpy_policy_matches_the_torch_policy(trained: tuple[Path, object]) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    folder, _ = trained
    model = MaskablePPO.load(folder / "out" / "model.zip", device="cpu")
    policy = PolicyFile.load(folder / "out" / "policy.npz")
    rng = np.random.default_rng(0)
    obs = rng.random((16, policy.layers[0][0].shape[1])).astype(np.float32)
    with torch.no_grad():
        features = model.policy.mlp_extractor.forward_actor(torch.as_tensor(obs))
        expected = model.policy.action_net(features).numpy()
    got = np.stack([policy.logits(o) for o in obs])
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_an_rl_agent_file_seats_the_policy_in_a_game(trained: tuple[Path, object]) -> None:
    folder, _ = trained
    agent_file = folder / "tiny-agent.toml"
    agent_file.write_text('name = "tiny-rl"\nkind = "rl"\npolicy = "out/policy.npz"\n')
    agents = [make_agent(str(agent_file)) for _ in range(7)]
    assert {a.kind for a in agents} == {"rl"}
    result = play_match_sync(load_variant("standard"), agents, 11, host_key=FIXED_HOST_KEY)
    assert result.log.events
    votes = sum(a.stats.decisions - a.stats.extra.get("fallback_decisions", 0) for a in agents)
    assert votes > 0, "the policy answered no vote"


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ("[train]\nsteps = 0\n", "train.steps"),
        ("[train]\nstepz = 10\n", "train.stepz"),
        ("[train]\nopponents = []\n", "train.opponents"),
        ("name = 'x'\n", "train"),
        ("[train]\nplayers = 'seven'\n", "train.players"),
    ],
)
def test_a_bad_training_spec_names_file_and_key(tmp_path: Path, body: str, key: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(body)
    with pytest.raises(TrainSpecError) as caught:
        load_train_spec(path)
    assert str(caught.value).startswith(f"{path}: {key}: ")


def test_training_leaves_nothing_in_the_temporary_folder(trained: tuple[Path, object]) -> None:
    """Stable-Baselines3's default logger makes an empty ``SB3-<time>`` folder in the
    temporary folder at every `learn` call; training sets its own silent logger, so a
    user's temporary folder does not fill with them. (PyTorch's optimiser makes one
    ``torchinductor_<user>`` cache folder there, reused by every run; that one may stay.)"""
    folder, _ = trained
    left = sorted(p.name for p in (folder / "tmp").iterdir())
    assert [name for name in left if not name.startswith("torchinductor_")] == []
