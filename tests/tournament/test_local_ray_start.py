"""The private local Ray a tournament starts keeps token authentication on and does not
print Ray's notice that it is on by default on every run; and it is a new cluster of
its own whatever cluster Ray would join by itself: the one named by the address file
that ``ray start --head`` leaves in Ray's temporary folder (which outlives the cluster
until ``ray stop``), or by ``RAY_ADDRESS``."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.ray_folder import ray_folder_of_this_run
from tests.tournament.conftest import REPO

pytest.importorskip("ray")

PROBE = """
import ray
from ray._raylet import AuthenticationMode, get_authentication_mode
from mafia_arena.local_ray import start_local_ray

start_local_ray(1)
print("token" if get_authentication_mode() == AuthenticationMode.TOKEN else "off")
ray.shutdown()
"""

CLUSTER = """
import json, ray
from mafia_arena.local_ray import start_local_ray

start_local_ray(1)
print(json.dumps({
    "gcs": ray.get_runtime_context().gcs_address,
    "cpus": ray.cluster_resources().get("CPU"),
}))
ray.shutdown()
"""
"""Starts a private cluster of 1 CPU and prints the address and CPUs of the cluster it
is connected to."""


def test_a_local_start_keeps_token_authentication_without_its_notice() -> None:
    env = {k: v for k, v in os.environ.items() if k != "RAY_AUTH_MODE"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["token"]
    assert "Token authentication is enabled" not in done.stderr + done.stdout


@pytest.fixture
def ray_folder() -> Iterator[Path]:
    """A folder for Ray's temporary files (``RAY_TMPDIR``) of this test's own.

    Why not `tmp_path`: Ray makes Unix sockets in it, whose paths may not exceed 107
    bytes, and a session folder under pytest's temporary folder can exceed that."""
    folder = Path(tempfile.mkdtemp(prefix="ray-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def unused_address() -> Iterator[str]:
    """A loopback address where no cluster listens: what the address of a cluster that
    has since gone looks like. Its port is held bound (never listening) while inside, so
    nothing else, the new cluster included, can take it meanwhile."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        yield f"127.0.0.1:{holder.getsockname()[1]}"


@pytest.mark.parametrize("left", ["address file", "RAY_ADDRESS"])
def test_a_local_start_is_a_new_cluster_whatever_cluster_ray_would_join(
    left: str, ray_folder: Path
) -> None:
    """The address of a cluster that is gone, left where `ray.init` looks for one to
    join: in the ``ray_current_cluster`` file of Ray's temporary folder (as ``ray start
    --head`` leaves it, and a machine that keeps its temporary folder keeps it), or in
    ``RAY_ADDRESS``. A private start went to join it and stopped with Ray's "When
    connecting to an existing cluster, num_cpus and num_gpus must not be provided"."""
    address_file = ray_folder / "ray" / "ray_current_cluster"
    address_file.parent.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["RAY_TMPDIR"] = str(ray_folder)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    with unused_address() as gone:
        if left == "address file":
            address_file.write_text(gone)
        else:
            env["RAY_ADDRESS"] = gone
        done = subprocess.run(
            [sys.executable, "-c", CLUSTER], env=env, capture_output=True, text=True, timeout=180
        )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["cpus"] == 1
    assert seen["gcs"].startswith("127.0.0.1:") and seen["gcs"] != gone
    assert list(address_file.parent.glob("session_*_*")), "the cluster is in Ray's folder"
    if left == "address file":  # it is ray start's, and names its cluster for `--address auto`
        assert address_file.read_text() == gone


def test_the_suite_s_clusters_keep_their_files_in_a_folder_of_this_run(ray_cluster: str) -> None:
    """`tests.ray_folder`: the session's cluster (and every other the suite starts) keeps
    its files in a folder made for this run, never among those earlier runs left in the
    machine's ``/tmp/ray``."""
    folder = ray_folder_of_this_run()
    if folder is None and os.environ.get("RAY_TMPDIR"):
        pytest.skip("RAY_TMPDIR was set by whoever runs the tests: their folder is used")
    assert folder is not None, "the suite's clusters use the machine's /tmp/ray"
    from ray._private import worker

    node = worker._global_node
    assert node is not None, "the session's cluster runs in this process"
    session = Path(node.get_session_dir_path())
    assert session.parent == folder / "ray"
    assert os.environ["RAY_TMPDIR"] == str(folder)
