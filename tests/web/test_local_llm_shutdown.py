"""Stopping the web server stops the bundled local LLM process that a bot started.

The process here is a real child process standing in for ``llama_cpp.server`` (the
model is not needed to check who stops it): the process-wide local server holds it as
its running process, the app starts and stops on a live uvicorn server, and the child
must be gone after the shutdown."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.web.conftest import settings_for
from tests.web.support import LiveServer

from mafia_arena.llm import local_server

pytestmark = pytest.mark.timeout(60)


def test_the_apps_shutdown_stops_the_local_llm_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        server = local_server.LocalServer()
        server._process = child  # as `start` leaves it once the process answered
        server._answered = True
        server.port = 1
        monkeypatch.setattr(local_server, "_singleton", server)
        assert server.ready

        live = LiveServer(settings_for(tmp_path))
        assert child.poll() is None  # starting the app leaves it alone
        live.close()

        assert child.wait(timeout=10) is not None  # terminated by the app's shutdown
        assert not server.running and server.port is None
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
