"""Running the command line in-process (or, to stop it by a real signal, in a child
process: `run_stopped`) and judging a user error's message, for the command-line
tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from mafia_arena.cli import main

REPO = Path(__file__).resolve().parents[2]


def run_cli_output(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of one command (`main` exits through `SystemExit`)."""
    code = 0
    try:
        main(args)
    except SystemExit as done:
        code = int(done.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Exit code and stderr of one command."""
    code, _, err = run_cli_output(args, capsys)
    return code, err


def assert_one_paragraph(err: str, *parts: str) -> None:
    """One paragraph holding each of `parts`, no traceback."""
    assert "Traceback" not in err and 'File "' not in err, err
    text = err.strip()
    assert text and "\n\n" not in text, err
    for part in parts:
        assert part in text, (part, err)


def pipe_writer(path: Path, data: bytes, seconds: float = 3) -> threading.Thread:
    """Make `path` a named pipe and start a thread that serves `data` to every reader
    that opens it, for `seconds`: a reader that opens the pipe reads `data` instead of
    hanging, so a test of a refused pipe fails rather than waits. Join it afterwards."""
    os.mkfifo(path)

    def feed() -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # no reader now
                time.sleep(0.05)
                continue
            os.set_blocking(fd, True)
            os.write(fd, data)
            os.close(fd)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    return writer


def run_stopped(
    tmp_path: Path, setup: str, *args: str, answers: str = ""
) -> subprocess.CompletedProcess[str]:
    """`mafia-arena ARGS` in a child process, `setup` (Python) run first to wrap a writer
    so that it signals the process mid-write; SIGINT is the default one, as in a terminal.
    `answers` are the lines a person at a ``--human`` seat types."""
    child = textwrap.dedent(setup) + "\nfrom mafia_arena.cli import main\nmain(sys.argv[1:])\n"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)])}
    return subprocess.run(
        [sys.executable, "-c", "import os, signal, sys\n" + child, *args],
        env=env,
        cwd=tmp_path,
        input=answers,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def signal_on_call(module: str, name: str, at: int | str | None = None) -> str:
    """`setup` for `run_stopped` that wraps `name` of `module` (a function, or a
    method written ``Class.method``) so that each call (or only the `at`-th) first
    sends ``{signal}`` to the process and then calls through; ``{signal}`` (and an `at`
    given as a placeholder) is left for the test to fill in with `str.replace`."""
    holder, _, attribute = name.rpartition(".")
    reach = f"getattr(_owner, {holder!r})" if holder else "_owner"
    return f"""
import importlib
_owner = importlib.import_module({module!r})
_holder = {reach}
_wrapped = getattr(_holder, {attribute!r})
_calls = []

def _stopped(*args, **kwargs):
    _calls.append(None)
    if {at} is None or len(_calls) == {at}:
        os.kill(os.getpid(), signal.{{signal}})
    return _wrapped(*args, **kwargs)

setattr(_holder, {attribute!r}, _stopped)
"""


def assert_quiet(stderr: str) -> None:
    """No traceback, and none of the "Exception ignored" lines Python prints at exit."""
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
