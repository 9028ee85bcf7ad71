"""Running the command line in-process and judging a user error's message, for the
command-line tests."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from mafia_arena.cli import main


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
