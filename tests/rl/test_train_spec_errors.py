"""`mafia-arena train` refuses, before any training starts, a spec or option that would
crash a run part-way (nan weights, a one-decision minibatch, a value of the wrong type
deep in a list), run for days or ask for more memory than a machine has (a billion
envs, 10**12 evaluation games), write a policy no agent can load (advice with another
fallback), or write where it must not (an output folder that is a file or another
folder's). Each is one paragraph naming the file or option, the key and the reason,
with exit code 2, and the output folder is left as it was.

Training itself is replaced by a stub that only records the call: every case here must
be refused before it, so none trains.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.cli.support import assert_one_paragraph, run_cli

import mafia_arena.rl.train
from mafia_arena.rl.train import TrainResult

# small enough that a run which got past the checks would end in seconds
TINY = {
    "kinds": '["vote"]',
    "opponents": '["random"]',
    "steps": "64",
    "envs": "1",
    "n_steps": "64",
    "batch_size": "64",
    "eval_games": "2",
    "eval_every": "64",
}


def write_spec(folder: Path, changes: dict[str, str], top: str = 'name = "tiny"') -> Path:
    """TINY with `changes` (raw TOML values; an empty value drops the key)."""
    keys = {**TINY, **changes}
    body = "".join(f"{key} = {value}\n" for key, value in keys.items() if value)
    path = folder / "spec.toml"
    path.write_text(f"{top}\n[train]\n{body}")
    return path


@pytest.fixture(autouse=True)
def no_training(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The calls that reached training, which is stubbed out (the command imports
    `train` when it runs); a refused input leaves the list empty."""
    calls: list[Any] = []

    def record(spec: Any, out: Path, **options: Any) -> TrainResult:
        calls.append((spec, out))
        return TrainResult(Path(out) / "policy.npz", [], [])

    monkeypatch.setattr(mafia_arena.rl.train, "train", record)
    return calls


# (id, changes to TINY, key named, reason)
SPEC_ERRORS: list[tuple[str, dict[str, str], str, str]] = [
    ("steps-huge", {"steps": "1000000000000"}, "train.steps", "at most 1,000,000,000"),
    ("seed-negative", {"seed": "-1"}, "train.seed", "must not be negative"),
    ("seed-past-numpy", {"seed": "4294967296"}, "train.seed", "at most 4,294,967,295"),
    ("envs-billion", {"envs": "1000000000"}, "train.envs", "at most 1,024"),
    ("n-steps-billion", {"n_steps": "1000000000"}, "train.n_steps", "at most 1,048,576"),
    ("rollout-too-big", {"n_steps": "1048576", "envs": "64"}, "train.n_steps", "4 GiB"),
    ("batch-of-one", {"batch_size": "1"}, "train.batch_size", "must be at least 2"),
    ("batch-past-rollout", {"batch_size": "1000"}, "train.batch_size", "more than the 64"),
    ("lr-nan", {"learning_rate": "nan"}, "train.learning_rate", "finite number"),
    ("lr-inf", {"learning_rate": "inf"}, "train.learning_rate", "finite number"),
    ("lr-zero", {"learning_rate": "0.0"}, "train.learning_rate", "above 0 to 10"),
    ("lr-negative", {"learning_rate": "-0.1"}, "train.learning_rate", "above 0 to 10"),
    ("lr-huge", {"learning_rate": "1e10"}, "train.learning_rate", "above 0 to 10"),
    ("ent-coef-huge", {"ent_coef": "1e308"}, "train.ent_coef", "from 0 to 10"),
    ("ent-coef-nan", {"ent_coef": "nan"}, "train.ent_coef", "finite number"),
    ("ent-coef-negative", {"ent_coef": "-0.5"}, "train.ent_coef", "from 0 to 10"),
    ("smoothing-two", {"imitate_smoothing": "2.0"}, "train.imitate_smoothing", "from 0 to 1,"),
    ("smoothing-nan", {"imitate_smoothing": "nan"}, "train.imitate_smoothing", "finite"),
    ("shaping-nan", {"shaping": "nan"}, "train.shaping", "finite number"),
    ("shaping-huge", {"shaping": "1e308"}, "train.shaping", "from -10 to 10"),
    ("eval-games-huge", {"eval_games": "1000000000000"}, "train.eval_games", "at most 100,000"),
    (
        "evaluations-every-step",
        {"steps": "1000000", "eval_every": "1"},
        "train.eval_every",
        "evaluation games",
    ),
    ("imitate-billion", {"imitate_games": "1000000000"}, "train.imitate_games", "at most"),
    (
        "imitate-epochs-billion",
        {"imitate_games": "2", "imitate_epochs": "1000000000"},
        "train.imitate_epochs",
        "at most 1,000",
    ),
    (
        "history-days-huge",
        {"observation": '"history"', "history_days": "100000"},
        "train.history_days",
        "at most 100",
    ),
    (
        "max-players-huge",
        {"observation": '"history"', "max_players": "100000000"},
        "train.max_players",
        "at most 1,000",
    ),
    (
        "max-players-below-players",
        {"observation": '"history"', "max_players": "5"},
        "train.max_players",
        "below the player count 7",
    ),
    ("net-nested", {"net": "[[1]]"}, "train.net.0", "not an integer: got [1]"),
    ("net-text", {"net": '["a"]'}, "train.net.0", 'not an integer: got "a"'),
    ("net-float", {"net": "[64, 1.5]"}, "train.net.1", "not an integer: got 1.5"),
    ("net-bool", {"net": "[true]"}, "train.net.0", "not an integer: got true"),
    ("net-zero", {"net": "[0]"}, "train.net.0", "must be positive"),
    ("net-negative", {"net": "[-1]"}, "train.net.0", "must be positive"),
    ("net-billion-wide", {"net": "[1000000000]"}, "train.net", "weights per head"),
    ("kinds-number", {"kinds": "[1]"}, "train.kinds.0", "not text: got 1 (a request kind name)"),
    ("opponents-number", {"opponents": '["random", 1]'}, "train.opponents.1", "not text: got 1"),
    # a value of the wrong type, in the words of every spec and variant file (TOML's
    # names and spelling: "true", "an array"), not Python's ("True has the wrong type")
    ("players-bool", {"players": "true"}, "train.players", "not an integer: got true"),
    ("steps-float", {"steps": "64.0"}, "train.steps", "not an integer: got 64.0"),
    ("rate-text", {"learning_rate": '"fast"'}, "train.learning_rate", 'not a number: got "fast"'),
    ("variant-number", {"variant": "5"}, "train.variant", "not text: got 5"),
    ("kinds-text", {"kinds": '"vote"'}, "train.kinds", 'not an array: got "vote"'),
    ("overrides-number", {"overrides": "1"}, "train.overrides", "not a table: got 1"),
    ("advice-one", {"advice": "1"}, "train.advice", "not true or false: got 1"),
    (
        "egocentric-text",
        {"egocentric": '"yes"'},
        "train.egocentric",
        'not true or false: got "yes"',
    ),
    ("variant-empty", {"variant": '""'}, "train.variant", "no variant ''"),
    ("workers-past-envs", {"rollout_workers": "4"}, "train.rollout_workers", "at most envs"),
    ("ray-address-unused", {"ray_address": '"auto"'}, "train.ray_address", "rollout_workers"),
    (
        "advice-other-fallback",
        {"advice": "true", "co_player": '"heuristic"', "fallback": '"random"'},
        "train.fallback",
        "must be 'heuristic'",
    ),
    (  # TOML text where a count is meant: a spec's switches are typed, as a variant's
        "override-quoted-count",
        {"overrides": '{ discussion_rounds = "2" }'},
        "train.overrides.discussion_rounds",
        '"2" is text; write 2, without quotes',
    ),
    (
        "override-one-for-true",
        {"overrides": "{ abstain = 1 }"},
        "train.overrides.abstain",
        "day.2.params.abstain: not true or false: got 1",
    ),
    (  # the switch at fault is named, as a tournament's variants.<i>.set.mafia
        "override-more-mafia-than-seats",
        {"overrides": "{ mafia = 10 }"},
        "train.overrides.mafia",
        "-5 villager for 7 players",
    ),
    (
        "side-never-dealt",  # Palermo's solo Rival is dealt to the town
        {"variant": '"palermo"', "players": "12", "side": '"solo"', "kinds": '["*"]'},
        "train.side",
        "palermo deals no solo seat at 12 players",
    ),
    (
        "side-beaten-before-its-turn",  # 1 mafioso, 2 villagers: the first night ends it
        {"variant": '"simple"', "players": "3"},
        "train.kinds",
        "none asked the town side for vote",
    ),
]


@pytest.mark.parametrize(
    ("changes", "key", "reason"), [c[1:] for c in SPEC_ERRORS], ids=[c[0] for c in SPEC_ERRORS]
)
def test_a_spec_value_that_would_break_a_run_is_refused_before_training(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    no_training: list[Any],
    changes: dict[str, str],
    key: str,
    reason: str,
) -> None:
    spec = write_spec(tmp_path, changes)
    out = tmp_path / "out"
    code, err = run_cli(["train", str(spec), "--no-tracking", "--out", str(out)], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"{spec}: {key}: ", reason)
    assert not no_training and not out.exists()


def test_every_unknown_key_is_listed_one_line_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_training: list[Any]
) -> None:
    """Each misspelt key, above ``[train]`` or in it, is named on a line of its own, in
    the file's order, as a tournament's spec and an agent file list theirs, not only
    the first; all in the words every file gives an unknown key ("unknown key
    (typo?)"), with the keys of the table it is in. Before, ``[train]``'s read
    "unknown; known keys: ..." and the top level's "unknown key; ...": two wordings
    for one mistake."""
    top = 'name = "tiny"\nstepz = 10'
    spec = write_spec(tmp_path, {"stepz": "10", "sead": "1", "envz": "2"}, top=top)
    code, err = run_cli(["train", str(spec), "--no-tracking"], capsys)
    assert code == 2, err
    assert_one_paragraph(err)
    lines = err.strip().splitlines()
    top_keys = ": unknown key (typo?); a training spec's top-level keys: name, train"
    train_keys = ": unknown key (typo?); a training spec's [train] keys: "
    assert [line.split(train_keys)[0] for line in lines] == [
        f"error: {spec}: stepz{top_keys}",
        f"{spec}: train.stepz",
        f"{spec}: train.sead",
        f"{spec}: train.envz",
    ], err
    assert all("steps" in line for line in lines[1:]), err
    assert not no_training


@pytest.mark.parametrize(
    ("top", "reason"),
    [
        ('name = "../escape"', "path separator"),
        ("name = 1", "not text: got 1"),
        ('name = ["a"]', 'not text: got ["a"]'),
        ('name = ""', "is not a name"),
    ],
    ids=["path", "number", "array", "empty"],
)
def test_a_name_that_is_no_single_folder_is_refused(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    no_training: list[Any],
    top: str,
    reason: str,
) -> None:
    """The name is the default output folder runs/train/<name>: never a path out of it."""
    spec = write_spec(tmp_path, {}, top=top)
    code, err = run_cli(["train", str(spec), "--no-tracking"], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"{spec}: name: ", reason)
    assert not no_training


def test_a_step_override_past_the_bound_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_training: list[Any]
) -> None:
    spec = write_spec(tmp_path, {})
    args = ["train", str(spec), "--steps", "1000000000000", "--no-tracking", "--out", "o"]
    code, err = run_cli(args, capsys)
    assert code == 2, err
    assert_one_paragraph(err, "--steps", "1,000,000,000")
    assert not no_training


def test_a_step_override_is_checked_against_the_evaluations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_training: list[Any]
) -> None:
    spec = write_spec(tmp_path, {"eval_every": "1", "eval_games": "100"})
    args = ["train", str(spec), "--steps", "100000", "--no-tracking", "--out", str(tmp_path / "o")]
    code, err = run_cli(args, capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"{spec}: train.eval_every: ", "--steps 100,000")
    assert not no_training


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "a-file"
    path.write_text("keep\n")
    return path


def _under_a_file(tmp_path: Path) -> Path:
    return _file(tmp_path) / "out"


def _someone_elses_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep\n")
    (folder / "policy.npz").write_text("keep\n")
    return folder


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (_file, "is a file, not a folder"),
        (_under_a_file, "is a file, not a folder"),
        (_someone_elses_folder, "holds other files (notes.txt)"),
    ],
    ids=["file", "under-a-file", "other-files"],
)
def test_an_output_folder_that_cannot_take_the_run_is_refused_untouched(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    no_training: list[Any],
    make: Any,
    reason: str,
) -> None:
    spec = write_spec(tmp_path, {})
    out: Path = make(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    code, err = run_cli(["train", str(spec), "--no-tracking", "--out", str(out)], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"error: {out}: ", reason, "(--out)")  # FOLDER: REASON (OPTION)
    assert not no_training
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_a_tracking_store_mlflow_cannot_open_is_refused_before_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_training: list[Any]
) -> None:
    spec = write_spec(tmp_path, {})
    args = ["train", str(spec), "--tracking-uri", "bogus://x", "--out", str(tmp_path / "o")]
    code, err = run_cli(args, capsys)
    assert code == 2, err
    assert_one_paragraph(err, "--tracking-uri bogus://x", "--no-tracking")
    assert not no_training and not (tmp_path / "o").exists()


def test_a_previous_runs_folder_and_the_shipped_spec_still_reach_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_training: list[Any]
) -> None:
    """Valid input is untouched: a folder holding only a previous run's files is
    trained into again with --overwrite, and every shipped training spec passes the
    checks."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "policy.npz").write_text("an earlier run\n")
    repo = Path(__file__).resolve().parents[2]
    specs = [write_spec(tmp_path, {}), *sorted((repo / "experiments").glob("rl-town-*.toml"))]
    for spec in specs:
        args = ["train", str(spec), "--no-tracking", "--out", str(out), "--overwrite"]
        code, err = run_cli(args, capsys)
        assert code == 0, (spec, err)
    assert [out for _, out in no_training] == [out] * len(specs)
    assert (out / "policy.npz").read_text() == "an earlier run\n"  # the stub wrote nothing


@pytest.mark.parametrize(
    ("top", "key", "reason"),
    [
        (
            'name = "tiny"\nsteps = 10',
            "steps",
            "unknown key (typo?); a training spec's top-level keys",
        ),
        (
            'name = "tiny"\n[trian]\nsteps = 10',
            "trian",
            "unknown key (typo?); a training spec's top-level keys: name, train",
        ),
    ],
    ids=["train-key-above-the-table", "misspelt-table"],
)
def test_a_bad_top_level_key_is_refused_not_ignored(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    no_training: list[Any],
    top: str,
    key: str,
    reason: str,
) -> None:
    """Only ``name`` and ``[train]`` are top-level keys: ``steps = 10`` written above
    the table was ignored without a word (the run trained its default steps)."""
    spec = write_spec(tmp_path, {}, top=top)
    code, err = run_cli(["train", str(spec), "--no-tracking", "--out", str(tmp_path / "o")], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"error: {spec}: {key}: {reason}")
    assert not no_training


def test_unknown_keys_at_the_top_and_in_train_are_listed_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_training: list[Any]
) -> None:
    spec = write_spec(tmp_path, {"stepz": "10"}, top='name = "tiny"\nseed = 1')
    code, err = run_cli(["train", str(spec), "--no-tracking"], capsys)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert [line.split(": unknown")[0] for line in lines] == [
        f"error: {spec}: seed",
        f"{spec}: train.stepz",
    ], err
    assert not no_training
