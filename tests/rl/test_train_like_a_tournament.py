"""`mafia-arena train` speaks as `mafia-arena tournament` does: tracking is switched
off with ``--no-tracking`` (``--no-track``, the older spelling, still works, unlisted),
a spec error is one line ``FILE: KEY: REASON``, and Ctrl-C prints one line saying what
the output folder holds and exits 130 without a traceback. The Ctrl-C runs are real
processes sent a real SIGINT while they train."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from tests.cli.support import run_cli, run_cli_output

from mafia_arena.cli.app import EXIT_INTERRUPTED

REPO = Path(__file__).resolve().parents[2]

# a run far longer than a test waits for: one env, a rollout of 64 decisions
ENDLESS = """
name = "endless"
[train]
kinds = ["vote"]
opponents = ["random"]
steps = 1000000
envs = 1
n_steps = 64
batch_size = 64
eval_games = 2
eval_every = {eval_every}
"""


def _spec(folder: Path, eval_every: int) -> Path:
    path = folder / "endless.toml"
    path.write_text(ENDLESS.format(eval_every=eval_every))
    return path


def _interrupt_when(args: list[str], cwd: Path, line_start: str) -> tuple[int, str]:
    """Run ``mafia-arena`` with `args`, send SIGINT once its output has a line starting
    with `line_start`; return its exit code and standard error. (A run that never shows
    the line is killed after two minutes and fails the test.)"""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "src"), str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "mafia_arena.cli", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a shell's background job ignores SIGINT, and a child inherits that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    watchdog = threading.Timer(120, process.kill)
    watchdog.start()
    try:
        assert process.stdout is not None
        seen = []
        for line in process.stdout:
            seen.append(line)
            if line.lstrip().startswith(line_start):
                process.send_signal(signal.SIGINT)
                break
        else:
            pytest.fail(f"no line {line_start!r} in {''.join(seen)!r}")
        _, err = process.communicate(timeout=60)
    finally:
        watchdog.cancel()
        process.kill()
    return process.returncode, err


def test_ctrl_c_before_the_first_evaluation_writes_nothing(tmp_path: Path) -> None:
    """Stopped after the untrained policy's evaluation (step 0, never written) and long
    before the next one: nothing was written, so the folder the run made is gone."""
    pytest.importorskip("sb3_contrib")
    spec = _spec(tmp_path, eval_every=10**6)
    out = tmp_path / "out"
    args = ["train", str(spec), "--no-tracking", "--out", str(out)]
    code, err = _interrupt_when(args, tmp_path, "step        0:")
    assert code == EXIT_INTERRUPTED, err
    assert err.splitlines() == [
        f"interrupted before the first evaluation; nothing written, {out} left as it was"
    ]
    assert not out.exists()


def test_ctrl_c_before_the_first_evaluation_removes_the_parents_the_run_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--out kept/made/deeper/out``, where only ``kept`` was there: stopped before
    anything is written, the run removes every folder it made (``made`` and below) and
    keeps ``kept``, as a board's command does. Before, only ``out`` itself was removed
    and the empty ``made/deeper`` stayed behind."""
    pytest.importorskip("sb3_contrib")
    import mafia_arena.rl.train as training
    from mafia_arena.rl.spec import load_train_spec

    def stopped(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(training, "_train", stopped)  # Ctrl-C as the run starts
    kept = tmp_path / "kept"
    kept.mkdir()
    out = kept / "made" / "deeper" / "out"
    spec = load_train_spec(_spec(tmp_path, eval_every=64))
    with pytest.raises(training.TrainingInterrupted) as interrupted:
        training.train(spec, out, track=False, log=lambda line: None)
    assert interrupted.value.saved_step is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["endless.toml", "kept"]
    assert list(kept.iterdir()) == []


def test_ctrl_c_after_an_evaluation_keeps_its_policy_and_drops_an_old_checkpoint(
    tmp_path: Path,
) -> None:
    """Stopped after evaluations were written into a previous run's folder
    (``--overwrite``): the latest policy and curve stay, the previous run's checkpoint
    (not of that policy) is gone, and the line names the step."""
    pytest.importorskip("sb3_contrib")
    spec = _spec(tmp_path, eval_every=64)
    out = tmp_path / "out"
    out.mkdir()
    (out / "model.zip").write_bytes(b"a previous run's checkpoint")
    args = ["train", str(spec), "--no-tracking", "--out", str(out), "--overwrite"]
    code, err = _interrupt_when(args, tmp_path, "step      128:")
    assert code == EXIT_INTERRUPTED, err
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(f"interrupted; {out} holds the policy and curve evaluated at step ")
    assert lines[0].endswith("(no model.zip); run again with --overwrite to train from the start")
    assert {p.name for p in out.iterdir()} == {"policy.npz", "curve.csv", "curve.png"}


def test_no_tracking_is_the_switch_and_no_track_still_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both spellings train without MLflow: no tracking store appears in the working
    folder (the default one is ``sqlite:///mlflow.db`` there). Help lists the
    tournament's spelling only."""
    pytest.importorskip("sb3_contrib")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    spec = _spec(tmp_path, eval_every=64)
    for switch in ("--no-tracking", "--no-track"):
        out = tmp_path / switch.strip("-")
        code, err = run_cli(["train", str(spec), switch, "--steps", "0", "--out", str(out)], capsys)
        assert code == 0, err
        assert (out / "policy.npz").is_file()
    assert not (tmp_path / "mlflow.db").exists() and not (tmp_path / "mlruns").exists()
    code, shown, _ = run_cli_output(["train", "--help"], capsys)
    assert code == 0
    assert re.findall(r"--(?:no-)?track(?:ing)?(?![\w-])", shown) == ["--no-tracking"]


@pytest.mark.parametrize(
    ("body", "key", "reason"),
    [
        (
            "[train]\nstepz = 10\n",
            "train.stepz",
            "unknown key (typo?); a training spec's [train] keys: ",
        ),
        ('name = "a/b"\n[train]\n', "name", '"a/b" holds a path separator'),
        ("[train\n", "-", "not valid TOML: "),
    ],
)
def test_a_spec_error_reads_as_a_tournaments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, key: str, reason: str
) -> None:
    """``error: FILE: KEY: REASON`` on one line, as `experiments.errors.SpecError` is
    printed (key ``-``: the file as a whole)."""
    spec = tmp_path / "t.toml"
    spec.write_text(body)
    code, err = run_cli(["train", str(spec), "--no-tracking", "--out", str(tmp_path / "o")], capsys)
    assert code == 2, err
    assert len(err.splitlines()) == 1
    assert err.startswith(f"error: {spec}: {key}: {reason}"), err
