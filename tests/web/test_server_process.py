"""The restart tests' server process: a port still taken when it starts is waited for,
not lost, and a server that cannot start says why (its own output in the failure)."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest
from tests.web.support import ServerProcess, _ephemeral_low, bindable

pytestmark = pytest.mark.timeout(120)


def test_the_port_lies_below_the_ephemeral_range_and_a_taken_port_is_waited_for(
    tmp_path: Path,
) -> None:
    process = ServerProcess(tmp_path, tmp_path / "live.sqlite")
    assert process.port < _ephemeral_low()
    holder = socket.socket()
    holder.bind(("127.0.0.1", process.port))
    holder.listen()
    release = threading.Timer(1.5, holder.close)
    release.start()
    began = time.monotonic()
    try:
        process.start()
        assert time.monotonic() - began >= 1.4  # it waited for the port, then started
        assert not bindable(process.port)  # the server holds it now
        assert "--- start" in process.tail()
    finally:
        release.cancel()
        holder.close()
        process.kill()


def test_a_server_that_exits_at_start_quotes_its_output(tmp_path: Path) -> None:
    process = ServerProcess(tmp_path, tmp_path / "no-such-folder" / "x" / "live.sqlite")
    (tmp_path / "no-such-folder").write_text("a file where the store's folder should be")
    with pytest.raises(AssertionError, match="exited at start") as failure:
        # a hang guard only: the process imports the whole server before it fails, which
        # took 39 s of a loaded 2-core machine (the file's timeout mark still bounds it)
        process.start(timeout=100)
    assert "Traceback" in str(failure.value) or "error" in str(failure.value).lower()
