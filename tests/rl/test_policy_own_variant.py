"""A policy trained on a variant file of one's own is seated later, from anywhere, only
with the rules it was trained on.

The file here is a copy of ``standard.toml`` that keeps ``name = "standard"`` with one
discussion round instead of two (the same action table, other rules), named in the
training spec by a path relative to the folder training ran in. The policy file records
the file (by its path from the policy's folder: both lie in the folder training ran in)
and both digests; an agent file seats the policy from another
folder, fits it to that file's games and not to the bundled standard's, and refuses it
when the file was edited (a comment added is the same rules) or is gone (the agent
file's ``variant`` says where it went).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.rl.seating import seat

pytest.importorskip("sb3_contrib")

from mafia_arena.agents.policy_file import PolicyFile
from mafia_arena.rl.spec import load_train_spec
from mafia_arena.rl.train import train
from mafia_arena.rules import load_variant, rules_digest
from mafia_arena.rules.loader import envs_dir, text_digest
from mafia_arena.runner.match import play_match_sync

ONE_ROUND = ("discussion_rounds = 2 ", "discussion_rounds = 1 ")

SPEC = """
name = "tiny-own"
[train]
variant = "my-variants/one-round.toml"
players = 7
kinds = ["vote"]
opponents = ["heuristic"]
steps = 64
n_steps = 64
batch_size = 64
eval_every = 64
eval_games = 2
envs = 1
seed = 1
"""


def one_round_copy(path: Path) -> Path:
    """``standard.toml`` with one discussion round, keeping its name, at `path`."""
    text = (envs_dir() / "standard.toml").read_text()
    assert ONE_ROUND[0] in text
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.replace(*ONE_ROUND))
    return path


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The training folder: its variant file, the spec, ``out/policy.npz`` and an agent
    file seating the policy (``agent.toml``)."""
    folder = tmp_path_factory.mktemp("train-own")
    one_round_copy(folder / "my-variants" / "one-round.toml")
    (folder / "tiny.toml").write_text(SPEC)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)  # the spec's relative path is the folder training ran in
        train(load_train_spec("tiny.toml"), "out", track=False, log=lambda _: None)
    (folder / "agent.toml").write_text(
        'name = "rl-one-round"\nkind = "rl"\npolicy = "out/policy.npz"\n'
    )
    return folder


def test_the_policy_file_records_the_variant_file_and_its_digests(trained: Path) -> None:
    file = trained / "my-variants" / "one-round.toml"
    header = PolicyFile.load(trained / "out" / "policy.npz").header
    assert header["variant"] == "standard"
    assert header["variant_file"] == "../my-variants/one-round.toml"
    assert header["variant_digest"] == text_digest(file.read_text())
    assert header["rules_digest"] == rules_digest(load_variant(file))
    assert header["rules_digest"] != rules_digest(load_variant("standard"))


def test_it_is_seated_from_another_folder_and_plays_only_its_own_rules(
    trained: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    agent = seat(trained / "agent.toml")
    own = load_variant(trained / "my-variants" / "one-round.toml")
    assert agent.fits_rules(own)
    assert not agent.fits_rules(load_variant("standard"))  # same name, other rules
    agents = [seat(trained / "agent.toml") for _ in range(7)]
    play_match_sync(own, agents, 0, host_key=FIXED_HOST_KEY)
    assert sum(a.stats.extra["policy_decisions"] for a in agents) > 0


def test_an_edit_of_the_rules_is_refused_and_a_comment_is_not(trained: Path) -> None:
    file = trained / "my-variants" / "one-round.toml"
    kept = file.read_text()
    try:
        file.write_text(kept + "# a note of the author's\n")
        assert seat(trained / "agent.toml").fits_rules(load_variant(file))
        file.write_text(kept.replace("discussion_rounds = 1 ", "discussion_rounds = 3 "))
        with pytest.raises(ValueError) as caught:
            seat(trained / "agent.toml")
    finally:
        file.write_text(kept)
    message = str(caught.value)
    assert message.startswith(f"{trained / 'out' / 'policy.npz'}: rules_digest: "), message
    assert f"{file} has other rules" in message and "retrain it" in message, message


def test_a_moved_file_is_named_in_the_agent_file(trained: Path) -> None:
    file = trained / "my-variants" / "one-round.toml"
    moved = trained / "elsewhere" / "one-round.toml"
    moved.parent.mkdir(exist_ok=True)
    shutil.move(file, moved)
    try:
        with pytest.raises(ValueError) as caught:
            seat(trained / "agent.toml")
        assert f": variant_file: no such file {file}" in str(caught.value)
        assert 'variant = "FILE"' in str(caught.value)
        named = trained / "moved-agent.toml"
        text = (trained / "agent.toml").read_text()
        named.write_text(text + 'variant = "elsewhere/one-round.toml"\n')
        agent = seat(named)
        assert agent.fits_rules(load_variant(moved))
        other = one_round_copy(trained / "elsewhere" / "other.toml")
        other.write_text(
            other.read_text().replace("discussion_rounds = 1 ", "discussion_rounds = 4 ")
        )
        named.write_text(text + 'variant = "elsewhere/other.toml"\n')
        with pytest.raises(ValueError, match=": rules_digest: "):
            seat(named)
    finally:
        shutil.move(moved, file)
