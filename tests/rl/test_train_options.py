"""Bad training inputs are refused before any game is dealt: request kinds the variant
never asks (in a spec or a `TeamSetup`), and a negative step count on the command line
or to `train()`. Each error is one line naming what to fix, with exit code 2 from the
command line."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from tests.cli.test_cli_errors import run_cli

from mafia_arena.rl.spec import TrainSpecError, load_train_spec
from mafia_arena.rl.team_env import request_kinds
from mafia_arena.rl.train import train

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "experiments" / "rl-town-votes.toml"

# small enough that a run which gets past the option checks ends in seconds
TINY = """
name = "tiny"
[train]
kinds = ["vote"]
opponents = ["random"]
steps = 64
envs = 1
n_steps = 64
batch_size = 64
eval_games = 2
eval_every = 64
"""


@pytest.mark.parametrize(
    ("kinds", "key", "reason"),
    [
        ('["vot"]', "train.kinds.0", "'vot' is not a request kind of standard"),
        ('["vote", "night:kil"]', "train.kinds.1", "'night:kil' is not a request kind"),
        ("[]", "train.kinds", "name at least one request kind"),
        (
            '["vote", "night:mafia_kill"]',
            "train.kinds.1",
            "'night:mafia_kill' is asked only of the mafia side, not of town",
        ),
    ],
)
def test_a_spec_with_a_request_kind_the_variant_never_asks_is_refused(
    tmp_path: Path, kinds: str, key: str, reason: str
) -> None:
    path = tmp_path / "spec.toml"
    path.write_text(SHIPPED.read_text().replace('kinds = ["vote"]', f"kinds = {kinds}"))
    with pytest.raises(TrainSpecError) as caught:
        load_train_spec(path)
    assert f"{path}: {key}: " in str(caught.value) and reason in str(caught.value)


def test_every_kind_of_the_variant_and_the_wildcard_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "spec.toml"
    kinds = ["*", *request_kinds("standard", 7, side="town")]
    assert {"vote", "speak", "night:detective_check"} <= set(kinds)
    every = "[" + ", ".join(f'"{k}"' for k in kinds) + "]"
    path.write_text(SHIPPED.read_text().replace('kinds = ["vote"]', f"kinds = {every}"))
    assert load_train_spec(path).setup.kinds == tuple(kinds)


def test_a_kind_the_variant_never_asks_is_refused_naming_the_spec_key(tmp_path: Path) -> None:
    """Standard votes by plurality: a final vote is never asked, so the spec is refused
    before training, not after `reset` has dealt a hundred games."""
    path = tmp_path / "spec.toml"
    path.write_text(SHIPPED.read_text().replace('kinds = ["vote"]', 'kinds = ["final_vote"]'))
    with pytest.raises(TrainSpecError) as refused:
        load_train_spec(path)
    assert "train.kinds.0: 'final_vote' is not a request kind of standard at 7" in str(
        refused.value
    )


def test_train_with_an_unknown_kind_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(SHIPPED.read_text().replace('kinds = ["vote"]', 'kinds = ["vot"]'))
    out = tmp_path / "out"
    code, err = run_cli(["train", str(spec), "--no-tracking", "--out", str(out)], capsys)
    assert code == 2, err
    assert err.strip().count("\n") == 0 and "Traceback" not in err
    assert f"{spec}: train.kinds.0: 'vot' is not a request kind" in err
    assert not out.exists()


def test_train_with_negative_steps_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "tiny.toml"
    spec.write_text(TINY)
    out = tmp_path / "out"
    args = ["train", str(spec), "--steps", "-5", "--no-tracking", "--out", str(out)]
    code, err = run_cli(args, capsys)
    assert code == 2, err
    assert err.strip().count("\n") == 0 and "Traceback" not in err
    assert "--steps" in err and "greater than or equal to 0" in err
    assert not out.exists()


def test_train_refuses_a_negative_step_count_before_it_starts(tmp_path: Path) -> None:
    spec_path = tmp_path / "tiny.toml"
    spec_path.write_text(TINY)
    spec = dataclasses.replace(load_train_spec(spec_path), steps=-5)
    with pytest.raises(ValueError, match="steps must not be negative, not -5"):
        train(spec, tmp_path / "out", track=False, log=lambda line: None)
    assert not (tmp_path / "out").exists()
