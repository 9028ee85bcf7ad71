"""Fixtures and session hooks shared by several test folders."""

from __future__ import annotations

import atexit
import faulthandler
import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from tests.ray_folder import use_a_ray_folder_of_this_run

_EXIT_STATUS = pytest.StashKey[int]()


def pytest_configure(config: pytest.Config) -> None:
    """Give this run's Ray clusters a temporary folder of their own (`tests.ray_folder`:
    the machine's ``/tmp/ray`` keeps every earlier run's), before any test starts one."""
    use_a_ray_folder_of_this_run()


@pytest.fixture(scope="session")
def local_server() -> Iterator[Any]:
    """The process-wide SmolLM2 server, started once for the whole test session."""
    from mafia_arena.llm.local_server import get_local_server, stop_local_server

    server = get_local_server()
    yield server
    stop_local_server()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Keep pytest's verdict for `pytest_unconfigure` below."""
    session.config.stash[_EXIT_STATUS] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """End the process with pytest's own exit status once the report is written.

    The suite loads native libraries (PyTorch, Ray's core worker and gRPC, Chromium's
    driver, pyarrow) into one interpreter. After every test has passed and the summary is
    printed, the interpreter's own teardown of those modules can still crash (seen once as
    a segmentation fault, exit 139, with nothing failed), which would turn a passing run
    into a failing one for reasons no test is about. So this hook runs the registered exit
    handlers first (Ray's shutdown, child-process cleanup, log flushes), with the fault
    handler on so a crash there still prints its stack, and then leaves with
    `os._exit(status)` instead of tearing the modules down. The status is exactly the one
    pytest decided: 0 passed, 1 failed, 5 no tests, and so on.
    """
    status = config.stash.get(_EXIT_STATUS, None)
    if status is None:
        return
    faulthandler.enable(file=sys.__stderr__ or sys.stderr, all_threads=True)
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
