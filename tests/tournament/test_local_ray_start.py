"""The private local Ray a tournament starts keeps token authentication on and does not
print Ray's notice that it is on by default on every run."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("ray")

PROBE = """
import ray
from ray._raylet import AuthenticationMode, get_authentication_mode
from mafia_arena.local_ray import start_local_ray

start_local_ray(1)
print("token" if get_authentication_mode() == AuthenticationMode.TOKEN else "off")
ray.shutdown()
"""


def test_a_local_start_keeps_token_authentication_without_its_notice() -> None:
    env = {k: v for k, v in os.environ.items() if k != "RAY_AUTH_MODE"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["token"]
    assert "Token authentication is enabled" not in done.stderr + done.stdout
