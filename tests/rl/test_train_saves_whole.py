"""A training run's files of one evaluation are written whole or not at all.

An interrupt (Ctrl-C, SIGTERM) that arrives while the policy and curve are being
written waits until they are, so what the run says it left is what is on disk; a write
that fails half-way (a full disk, a killed process) leaves the previous policy whole.
The runs are real (the real env, the real MaskablePPO); the faults are injected where
the policy file is written: a signal sent to this process, a write that fails."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mafia_arena.agents.policy_file import PolicyFile
from mafia_arena.rl.spec import load_train_spec
from mafia_arena.sigterm import interrupts_deferred, sigterm_as_interrupt

TWO_EVALUATIONS = """
name = "two"
[train]
kinds = ["vote"]
opponents = ["random"]
steps = 128
envs = 1
n_steps = 64
batch_size = 64
eval_games = 2
eval_every = 64
"""


def _train(tmp_path: Path, out: Path) -> None:
    from mafia_arena.rl.train import train

    spec_path = tmp_path / "two.toml"
    spec_path.write_text(TWO_EVALUATIONS)
    train(load_train_spec(spec_path), out, track=False, log=lambda line: None)


def test_a_signal_inside_the_block_is_delivered_after_it() -> None:
    """Ctrl-C sent inside the block does not stop it; it is raised on the way out."""
    reached_end = False
    with pytest.raises(KeyboardInterrupt), interrupts_deferred():
        os.kill(os.getpid(), signal.SIGINT)
        reached_end = True
    assert reached_end


def test_sigterm_inside_the_block_does_what_its_handler_says_after_it() -> None:
    """SIGTERM under `sigterm_as_interrupt` waits, then raises as Ctrl-C would; the
    handlers in force before the block are back after it."""
    before = signal.getsignal(signal.SIGINT)
    with sigterm_as_interrupt():
        term = signal.getsignal(signal.SIGTERM)
        reached_end = False
        with pytest.raises(KeyboardInterrupt), interrupts_deferred():
            os.kill(os.getpid(), signal.SIGTERM)
            reached_end = True
        assert reached_end
        assert signal.getsignal(signal.SIGTERM) is term
    assert signal.getsignal(signal.SIGINT) is before


def _signalled_at_a_swap(
    monkeypatch: pytest.MonkeyPatch, swapped: int, to_hold: bool, sent: int
) -> None:
    """Make the next setting of `swapped`'s handler (to `interrupts_deferred`'s own when
    `to_hold`, else back to the one before) send this process `sent` right after it,
    as a signal landing between the block's two handler swaps would."""
    real = signal.signal
    before = signal.getsignal(swapped)
    fired: list[int] = []

    def swap(number: int, handler: Any) -> Any:
        replaced = real(number, handler)
        if number == swapped and (handler is not before) == to_hold and not fired:
            fired.append(number)
            os.kill(os.getpid(), sent)
        return replaced

    monkeypatch.setattr(signal, "signal", swap)


@pytest.mark.parametrize(
    ("swapped", "to_hold", "sent"),
    [(signal.SIGINT, True, signal.SIGTERM), (signal.SIGINT, False, signal.SIGINT)],
    ids=["sigterm-as-the-block-starts", "ctrl-c-as-the-block-ends"],
)
def test_an_interrupt_between_the_handler_swaps_leaves_no_handler_of_the_block(
    monkeypatch: pytest.MonkeyPatch, swapped: int, to_hold: bool, sent: int
) -> None:
    """An interrupt raised by a handler not yet swapped (SIGTERM, as Ctrl-C, once
    Ctrl-C's is held) or already given back (Ctrl-C's, before SIGTERM's is): both
    handlers are the ones before the block afterwards; one left holding would swallow
    every later Ctrl-C or SIGTERM of the process."""
    with sigterm_as_interrupt():
        handlers = {n: signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM)}
        _signalled_at_a_swap(monkeypatch, swapped, to_hold, sent)
        try:
            with pytest.raises(KeyboardInterrupt), interrupts_deferred():
                pass
        finally:
            monkeypatch.undo()
            left = {n: signal.getsignal(n) for n in handlers}
            for number, handler in handlers.items():  # none holding for the tests after
                signal.signal(number, handler)
        assert left == handlers


def test_ctrl_c_while_the_policy_is_written_keeps_that_evaluation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C arriving as the first evaluation's policy is being written: the policy and
    curve of that evaluation are written whole and the run says so."""
    from mafia_arena.rl.train import TrainingInterrupted

    original = PolicyFile.save

    def interrupted_save(self: PolicyFile, path: str | Path) -> Path:
        os.kill(os.getpid(), signal.SIGINT)
        return original(self, path)

    monkeypatch.setattr(PolicyFile, "save", interrupted_save)
    out = tmp_path / "out"
    with pytest.raises(TrainingInterrupted) as stopped:
        _train(tmp_path, out)
    assert stopped.value.saved_step == 64
    assert sorted(p.name for p in out.iterdir()) == ["curve.csv", "curve.png", "policy.npz"]
    PolicyFile.load(out / "policy.npz")
    assert [row.split(",")[0] for row in (out / "curve.csv").read_text().splitlines()[1:]] == [
        "0.0",
        "64.0",
    ]


def test_a_write_that_fails_half_way_leaves_the_previous_policy_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second evaluation's policy write fails after part of the file is out (as a
    full disk would): the first evaluation's policy is still there and loads, and no
    partial file is left beside it."""
    original = PolicyFile.save
    calls = []

    def failing_save(self: PolicyFile, path: str | Path) -> Path:
        calls.append(path)
        if len(calls) == 1:
            return original(self, path)
        Path(path).write_bytes(b"PK\x03\x04 the start of an archive")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(PolicyFile, "save", failing_save)
    out = tmp_path / "out"
    with pytest.raises(OSError, match="No space left"):
        _train(tmp_path, out)
    policy = PolicyFile.load(out / "policy.npz")
    assert all(np.isfinite(weight).all() for weight, _ in policy.layers)
    assert sorted(p.name for p in out.iterdir()) == ["curve.csv", "curve.png", "policy.npz"]
