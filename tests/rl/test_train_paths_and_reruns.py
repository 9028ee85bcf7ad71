"""`mafia-arena train` treats its spec and output folder as `mafia-arena tournament`
treats its own: a relative path in the spec (a variant file, an agent file) is looked
up from the working folder, the spec's folder and the folder above it; a second run of
the same spec keeps the trained policy unless told ``--overwrite``; and an empty spec
path, ``--out`` or ``--tracking-uri`` is a usage error. The runs here are real (the
real env, the real MaskablePPO), a few dozen decisions each."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.cli.support import assert_one_paragraph, run_cli

from mafia_arena.rl.spec import TrainSpecError, load_train_spec

REPO = Path(__file__).resolve().parents[2]

# a run that ends in seconds: 64 decisions, one evaluation of two games
TINY = """
name = "tiny"
[train]
variant = "{variant}"
kinds = ["vote"]
opponents = [{opponents}]
steps = 64
envs = 1
n_steps = 64
batch_size = 64
eval_games = 2
eval_every = 64
"""


def write_spec(folder: Path, variant: str = "standard", opponents: str = '"random"') -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tiny.toml"
    path.write_text(TINY.format(variant=variant, opponents=opponents))
    return path


def own_variant(folder: Path) -> Path:
    """A variant file of one's own beside the spec: the bundled standard rules under a
    name of their own."""
    text = (REPO / "envs" / "standard.toml").read_text()
    assert text.count('name = "standard"') == 1
    path = folder / "my-variant.toml"
    path.write_text(text.replace('name = "standard"', 'name = "my-standard"'))
    return path


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working folder: neither the spec's folder nor the one above it."""
    folder = tmp_path / "work" / "elsewhere"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    return folder


def test_a_variant_file_beside_the_spec_is_found_from_another_folder(
    tmp_path: Path, elsewhere: Path
) -> None:
    specs = tmp_path / "specs"
    spec = write_spec(specs, variant="my-variant.toml")
    variant = own_variant(specs)
    assert load_train_spec(spec).setup.variant == str(variant.resolve())


def test_an_agent_file_beside_the_spec_is_found_from_another_folder(
    tmp_path: Path, elsewhere: Path
) -> None:
    """An opponent's agent file (with its policy file, named relative to it) is taken
    from the spec's folder, as a tournament's pool entry is."""
    specs = tmp_path / "specs"
    mates = specs / "mates"
    (mates / "policies").mkdir(parents=True)
    shutil.copy(REPO / "agents" / "rl-town-votes.toml", mates / "rl.toml")
    shutil.copy(REPO / "agents" / "policies" / "rl-town-votes.npz", mates / "policies")
    spec = write_spec(specs, opponents='"random", "mates/rl.toml"')
    opponents = load_train_spec(spec).setup.opponents
    assert opponents == ("random", str((mates / "rl.toml").resolve()))


def test_a_variant_file_found_nowhere_names_where_it_was_looked_for(
    tmp_path: Path, elsewhere: Path
) -> None:
    spec = write_spec(tmp_path / "specs", variant="my-variant.toml")
    with pytest.raises(TrainSpecError) as refused:
        load_train_spec(spec)
    assert str(refused.value) == (
        f"{spec}: train.variant: no such variant file 'my-variant.toml' (looked from "
        "the working folder, the spec's folder and the folder above it)"
    )


def test_the_working_folders_file_comes_first_as_in_a_tournament(
    tmp_path: Path, elsewhere: Path
) -> None:
    specs = tmp_path / "specs"
    spec = write_spec(specs, variant="my-variant.toml")
    own_variant(specs)
    mine = own_variant(elsewhere)
    assert load_train_spec(spec).setup.variant == str(mine.resolve())


def test_training_from_another_folder_on_a_variant_beside_the_spec(
    tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command trains on the file beside the spec, and the policy's header names
    that file, by its path from the policy's folder (both lie in the spec's repository);
    the output folder stays relative to the working folder (as a tournament's results
    folder is)."""
    pytest.importorskip("sb3_contrib")
    from mafia_arena.agents.policy_file import PolicyFile

    specs = tmp_path / "specs"
    spec = write_spec(specs, variant="my-variant.toml")
    variant = own_variant(specs)
    code, err = run_cli(["train", str(spec), "--no-tracking"], capsys)
    assert code == 0, err
    header = PolicyFile.load(elsewhere / "runs" / "train" / "tiny" / "policy.npz").header
    assert header["variant"] == "my-standard"
    assert header["variant_file"] == "../../../../../specs/my-variant.toml"
    out = elsewhere / "runs" / "train" / "tiny"
    assert (out / header["variant_file"]).resolve() == variant.resolve()


def test_a_second_run_keeps_the_trained_policy_unless_told_to_overwrite(
    tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("sb3_contrib")
    spec = write_spec(tmp_path / "specs")
    out = elsewhere / "runs" / "train" / "tiny"
    code, err = run_cli(["train", str(spec), "--no-tracking"], capsys)
    assert code == 0, err
    written = {p.name: p.read_bytes() for p in out.iterdir()}
    assert set(written) == {"policy.npz", "model.zip", "curve.csv", "curve.png"}

    code, err = run_cli(["train", str(spec), "--no-tracking", "--steps", "0"], capsys)
    assert code == 2, err
    assert_one_paragraph(
        err,
        "error: runs/train/tiny: holds a previous training run "
        "(curve.csv, curve.png, model.zip, policy.npz)",
        "--overwrite",
        "--out",
        f"({spec}: name, runs/train/<name>)",
    )
    assert {p.name: p.read_bytes() for p in out.iterdir()} == written

    code, err = run_cli(["train", str(spec), "--no-tracking", "--out", str(out)], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"error: {out}: holds a previous training run", "(--out)")

    args = ["train", str(spec), "--no-tracking", "--steps", "0", "--overwrite"]
    code, err = run_cli(args, capsys)
    assert code == 0, err
    # evaluation only: the untrained policy replaces the trained one, as asked
    assert (out / "policy.npz").read_bytes() != written["policy.npz"]


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["train", ""], "'spec'"),
        (["train", "SPEC", "--out", ""], "'--out'"),
        (["train", "SPEC", "--out", " "], "'--out'"),
        (["train", "SPEC", "--tracking-uri", ""], "'--tracking-uri'"),
    ],
    ids=["spec", "out", "out-blank", "tracking-uri"],
)
def test_an_empty_path_or_uri_is_a_usage_error(
    tmp_path: Path,
    elsewhere: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    name: str,
) -> None:
    """As in a tournament: an empty value (an unset shell variable) is refused, not
    read as the working folder (a spec, or a folder to train into) or as "not given"."""
    spec = write_spec(tmp_path / "specs")
    args = [str(spec) if arg == "SPEC" else arg for arg in args]
    code, err = run_cli([*args, "--steps", "0", "--no-tracking"], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"Invalid value for {name}: is empty")
    assert list(elsewhere.iterdir()) == []


def test_an_experiment_spec_is_named_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = run_cli(["train", str(REPO / "experiments" / "smoke.toml")], capsys)
    assert code == 2, err
    assert_one_paragraph(
        err,
        "smoke.toml: train: this is an experiment spec, not a training spec "
        "(run it with mafia-arena tournament)",
    )
