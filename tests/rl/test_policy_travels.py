"""A trained policy file names the files it was trained with by paths that travel.

A policy trained in a project on a variant file of one's own, with an agent file as
co-player (on whose advice) and fallback, records those files by their paths from the
policy file's folder, since both lie in the project: the header holds no path of the
machine that trained it, and the project copied elsewhere (the original gone) seats the
policy with the copy's files. Files written before, which name them by absolute paths
(or, older still, by the path from the working folder), load as they did. The runs here
are real (the real env, the real MaskablePPO), 64 decisions each.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.rl.seating import seat

pytest.importorskip("sb3_contrib")

from mafia_arena.agents.policy import PolicyAgent
from mafia_arena.agents.policy_file import PolicyFile
from mafia_arena.rl.spec import load_train_spec
from mafia_arena.rl.train import train
from mafia_arena.rules import load_variant
from mafia_arena.runner.match import play_match_sync

REPO = Path(__file__).resolve().parents[2]

SPEC = """
name = "tiny-mates"
[train]
variant = "my-variant.toml"
kinds = ["vote"]
opponents = ["random"]
co_player = "mates/rl.toml"
fallback = "mates/rl.toml"
advice = true
steps = 64
envs = 1
n_steps = 64
batch_size = 64
eval_games = 2
eval_every = 64
"""

#: The header values the training writes: paths from ``runs/train/tiny-mates/``.
MATE = "../../../mates/rl.toml"
VARIANT = "../../../specs/my-variant.toml"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project trained in: ``specs/`` (the spec and its own variant file, the bundled
    standard rules under a name of their own), ``mates/`` (an agent file seating the
    shipped policy, the co-player and fallback), ``runs/train/tiny-mates/policy.npz``
    and ``agents/mine.toml`` seating it."""
    root = tmp_path_factory.mktemp("project")
    specs, mates = root / "specs", root / "mates"
    (mates / "policies").mkdir(parents=True)
    specs.mkdir()
    shutil.copy(REPO / "agents" / "rl-town-votes.toml", mates / "rl.toml")
    shutil.copy(REPO / "agents" / "policies" / "rl-town-votes.npz", mates / "policies")
    text = (REPO / "envs" / "standard.toml").read_text()
    (specs / "my-variant.toml").write_text(
        text.replace('name = "standard"', 'name = "my-standard"')
    )
    (specs / "tiny.toml").write_text(SPEC)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        out = Path("runs/train/tiny-mates")
        train(load_train_spec("specs/tiny.toml"), out, track=False, log=lambda _: None)
    (root / "agents").mkdir()
    (root / "agents" / "mine.toml").write_text(
        'name = "mine"\nkind = "rl"\npolicy = "../runs/train/tiny-mates/policy.npz"\n'
    )
    return root


def plays(agent_file: Path, variant_file: Path) -> None:
    """A game of the variant file with the policy in every seat; the policy answered."""
    agents = [seat(agent_file) for _ in range(7)]
    play_match_sync(load_variant(variant_file), agents, 0, host_key=FIXED_HOST_KEY)
    assert sum(a.stats.extra["policy_decisions"] for a in agents) > 0


def test_the_header_names_its_files_from_the_policys_folder(project: Path) -> None:
    header = PolicyFile.load(project / "runs" / "train" / "tiny-mates" / "policy.npz").header
    assert (header["fallback"], header["advice"], header["variant_file"]) == (
        MATE,
        MATE,
        VARIANT,
    )
    assert str(project) not in json.dumps(header)  # no path of this machine


def test_the_project_moved_elsewhere_seats_the_policy_with_its_own_files(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Copied to another folder, with the original out of the way and the working
    folder elsewhere: the fallback, the advice it is trained on and the variant file
    are the copy's."""
    moved = shutil.copytree(project, tmp_path / "checkout")
    monkeypatch.chdir(tmp_path)
    hidden = project.with_name(project.name + "-away")
    project.rename(hidden)
    try:
        agent = seat(moved / "agents" / "mine.toml")
        assert isinstance(agent.fallback, PolicyAgent)
        assert agent.fallback.policy.source == moved / "mates" / "policies" / "rl-town-votes.npz"
        assert agent.trained_variant.origin == str(moved / "specs" / "my-variant.toml")
        plays(moved / "agents" / "mine.toml", moved / "specs" / "my-variant.toml")
    finally:
        hidden.rename(project)


def test_a_header_of_absolute_paths_loads_as_before(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As training wrote it before: absolute paths (the fallback, and the advice of an
    agent file, which is its file and not its player's name); older still, a fallback
    named from the working folder training ran in."""
    policy = PolicyFile.load(project / "runs" / "train" / "tiny-mates" / "policy.npz")
    mate, variant = project / "mates" / "rl.toml", project / "specs" / "my-variant.toml"
    for fallback in (str(mate), "mates/rl.toml"):
        header = {
            **policy.header,
            "fallback": fallback,
            "advice": fallback,
            "variant_file": str(variant),
        }
        folder = tmp_path / "old"
        folder.mkdir(exist_ok=True)
        PolicyFile(policy.layers, header).save(folder / "policy.npz")
        (folder / "old.toml").write_text('name = "old"\nkind = "rl"\npolicy = "policy.npz"\n')
        monkeypatch.chdir(project)
        agent = seat(folder / "old.toml")
        assert isinstance(agent.fallback, PolicyAgent)
        assert agent.fallback.policy.source == mate.parent / "policies" / "rl-town-votes.npz"
        plays(folder / "old.toml", variant)
