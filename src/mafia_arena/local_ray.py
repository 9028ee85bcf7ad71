"""Connecting this process to Ray: a private cluster on 127.0.0.1, or a given address.

Tournaments (`experiments.executors`) and training's rollout workers
(`rl.ray_rollouts`) start Ray the same way, so the loopback-only start lives here,
below both.

A private cluster shares the machine with other drivers' clusters (two tournaments run
at once), so it binds no fixed port (`_free_ports`), and its processes end with the
driver however it ends, a SIGKILL included (`local_ray_reaper`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

from mafia_arena.local_ray_reaper import children
from mafia_arena.sigterm import sigterm_is_interrupt

LOOPBACK = "127.0.0.1"

CLUSTER_VARIABLE = "MAFIA_ARENA_LOCAL_RAY"
"""Set in the environment of every process of a private cluster (they inherit it from
the driver, or from the raylet) to a token of the driver's: how its reaper tells them
from every other process of the machine (`local_ray_reaper`)."""

PRIVATE_START = "local"
"""The address `start_local_ray` hands `ray.init`: start a new cluster, always.

Why: given no address, `ray.init` first looks for a cluster to join, in the
``RAY_ADDRESS`` variable and in the address file (``ray_current_cluster``) that
``ray start --head`` leaves in Ray's temporary folder (``/tmp/ray``) and only ``ray stop``
removes. Such a file, of a cluster started by hand and running or long gone, stopped
every tournament and training run of the machine at once with Ray's traceback "When
connecting to an existing cluster, num_cpus and num_gpus must not be provided" (a
private start names its CPUs), and so did the variable. To use a cluster, pass its
address."""

FIXED_PORT_VARIABLES = ("AUTOSCALER_METRIC_PORT", "DASHBOARD_METRIC_PORT")
"""The variables in which Ray's autoscaler monitor and dashboard process read the ports
of their metrics servers (fixed, 44217 and 44227, by default); set to 0 (any free port)
for a private start unless the user set them."""


@contextlib.contextmanager
def _loopback_node() -> Iterator[None]:
    """While inside, Ray takes this machine's node address to be 127.0.0.1.

    Ray 2.x swaps a loopback node address for the machine's network address (so that
    other machines could join) unless its multi-node mode is off; this turns it off for
    one `ray.init`, then restores it.
    """
    from ray._private import ray_constants

    multi_node = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = multi_node


@contextlib.contextmanager
def _keep_sigterm_interrupt() -> Iterator[None]:
    """While inside, `ray.init` leaves a SIGTERM-as-Ctrl-C handler (`mafia_arena.sigterm`)
    in place instead of setting its own.

    Why: `ray.init` sets, first thing, a handler that exits 15 at once, so a SIGTERM
    while Ray starts (seconds) would end a tournament with nothing said and nothing shut
    down. Nor does the core worker it makes in this process install Ray's C++ crash
    handler (Python's fault handler still prints a crash's stack): that handler takes
    SIGTERM too, prints a stack, hands the signal on and arms an alarm that aborts the
    process 3 s later (exit -6, "Aborted") unless it has ended by then, which a tournament
    shutting Ray down on a loaded machine often had not. Python's handler is put back at
    the end all the same, for a Ray that installs its own anyway. A process without that
    handler (training) gets Ray's, as before."""
    if not sigterm_is_interrupt():
        yield
        return
    from ray._private import ray_constants, utils

    ray_sets = utils.set_sigterm_handler
    crash_handler_off = getattr(ray_constants, _NO_CRASH_HANDLER, False)
    utils.set_sigterm_handler = _leave_sigterm
    setattr(ray_constants, _NO_CRASH_HANDLER, True)
    try:
        yield
    finally:
        utils.set_sigterm_handler = ray_sets
        setattr(ray_constants, _NO_CRASH_HANDLER, crash_handler_off)
        signal.signal(signal.SIGTERM, signal.getsignal(signal.SIGTERM))


_NO_CRASH_HANDLER = "RAY_DISABLE_FAILURE_SIGNAL_HANDLER"
"""Ray's switch (read from `ray_constants` as the core worker is made) that leaves its
C++ failure signal handler out of the process."""


def _leave_sigterm(handler: object) -> None:
    """Stands in for Ray's `set_sigterm_handler`: sets nothing."""


_TOKEN_SETUP_LOGGER = "ray._private.authentication.authentication_token_setup"
_DEFAULT_TOKEN_NOTICE = "Token authentication is enabled for this Ray cluster."


class _DropDefaultTokenNotice(logging.Filter):
    """Drops Ray's notice that a new local cluster has token authentication on by default
    (with advice on turning it off), printed on every tournament and training run. Token
    authentication stays on; every other message of that logger, the warning that it is
    off among them, passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(_DEFAULT_TOKEN_NOTICE)


@contextlib.contextmanager
def _quiet_default_token_notice() -> Iterator[None]:
    notices = logging.getLogger(_TOKEN_SETUP_LOGGER)
    drop = _DropDefaultTokenNotice()
    notices.addFilter(drop)
    try:
        yield
    finally:
        notices.removeFilter(drop)


@contextlib.contextmanager
def _free_ports() -> Iterator[None]:
    """While inside, a Ray start binds no fixed port, so it can run beside another
    driver's private cluster.

    Why: `ray.init` leaves three ports fixed: the dashboard agent's HTTP port (52365,
    `RayParams`' default, which `ray.init` does not pass) and the metrics servers of the
    autoscaler monitor and of the dashboard process (`FIXED_PORT_VARIABLES`). A second
    cluster found them taken: its dashboard agent retried the bind for over 3 s, then
    ran without its HTTP service, and both metrics servers were left out, each failure
    a traceback in the session's logs. Here each takes a free
    port (0): `RayParams` defaults to 0 for the agent, and the two variables are 0 in
    the environment the cluster's processes inherit (a value the user set is kept)."""
    from ray._private import parameter

    ray_params = parameter.RayParams

    class _AnyAgentPort(ray_params):  # type: ignore[misc, valid-type]
        def __init__(self, *args: object, **kwargs: object) -> None:
            kwargs.setdefault("dashboard_agent_listen_port", 0)
            super().__init__(*args, **kwargs)

    parameter.RayParams = _AnyAgentPort  # type: ignore[misc]
    try:
        with _environment({name: "0" for name in FIXED_PORT_VARIABLES}, keep_set=True):
            yield
    finally:
        parameter.RayParams = ray_params  # type: ignore[misc]


@contextlib.contextmanager
def _environment(values: dict[str, str], *, keep_set: bool = False) -> Iterator[None]:
    """While inside, `values` are in this process's environment (those already set
    are left as they are with `keep_set`), for the processes it starts to inherit;
    restored on the way out."""
    saved = {name: os.environ.get(name) for name in values}
    for name, value in values.items():
        if not (keep_set and name in os.environ):
            os.environ[name] = value
    try:
        yield
    finally:
        for name, old in saved.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old


_REAPER: dict[int, tuple[subprocess.Popen[bytes], str]] = {}
"""This process's reaper and its token, by process id (a forked child starts its own)."""


def _reaper_token() -> str | None:
    """The token of this process's reaper (`local_ray_reaper`), started on first use;
    None where there is no ``/proc`` to find the cluster's processes in.

    The reaper holds the read end of a pipe whose write end only this process holds
    (`subprocess` makes it non-inheritable), kept open here for the life of the process,
    so the reaper sees end of file when this process ends, however it ends."""
    if not Path("/proc/self/environ").is_file():
        return None
    mine = _REAPER.get(os.getpid())
    if mine is not None and mine[0].poll() is None:
        return mine[1]
    token = f"{os.getpid()}-{uuid.uuid4().hex}"
    script = Path(__file__).with_name("local_ray_reaper.py")
    reaper = subprocess.Popen(
        [sys.executable, "-I", "-S", str(script), CLUSTER_VARIABLE, token],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # a Ctrl-C in the terminal is the driver's alone
    )
    _REAPER[os.getpid()] = (reaper, token)
    return token


@contextlib.contextmanager
def _reaped() -> Iterator[None]:
    """While inside, the processes started here (and everything they start) carry this
    process's reaper token (`CLUSTER_VARIABLE`), so they end when this process does;
    once the cluster is up, its raylet's children are handed to the reaper by number
    (`_hand_raylet_children`)."""
    token = _reaper_token()
    if token is None:
        yield
        return
    with _environment({CLUSTER_VARIABLE: token}):
        yield
    _hand_raylet_children()


def _hand_raylet_children() -> None:
    """Write the children of this process's raylet (its dashboard and runtime env agents,
    which the raylet starts before its node is registered, so before `ray.init`
    returns, and the first workers) to the reaper, a ``PID START`` line each.

    Why by number: the agents write their process titles over the start of their
    environment, where the reaper's variable may lie (`local_ray_reaper`)."""
    from ray._private import ray_constants, worker

    node = getattr(worker, "_global_node", None)
    raylets = node.all_processes.get(ray_constants.PROCESS_TYPE_RAYLET, []) if node else []
    reaper = _REAPER.get(os.getpid())
    if not raylets or reaper is None or reaper[0].stdin is None:
        return
    lines = [f"{pid} {start}\n" for pid, start in children(raylets[0].process.pid)]
    with contextlib.suppress(OSError):  # a reaper that is gone has nothing to take
        reaper[0].stdin.write("".join(lines).encode())
        reaper[0].stdin.flush()


def start_local_ray(num_cpus: int) -> None:
    """Start a private Ray cluster of `num_cpus` CPUs on this machine, reachable from it only.

    Ray's guidance is never to expose a cluster's ports on an untrusted network. Started
    with ``_node_ip_address="127.0.0.1"`` inside `_loopback_node`, the GCS, raylet,
    object manager and workers listen on 127.0.0.1 only. The dashboard is not started.
    Every port is a free one (`_free_ports`), so two drivers' clusters run side by side,
    and the cluster's processes end with this process, also when it is SIGKILLed
    (`_reaped`). A new cluster is started whatever cluster Ray would otherwise join
    (`PRIVATE_START`).
    """
    import ray

    with (
        _loopback_node(),
        _quiet_default_token_notice(),
        _keep_sigterm_interrupt(),
        _free_ports(),
        _reaped(),
    ):
        ray.init(
            address=PRIVATE_START,
            num_cpus=num_cpus,
            include_dashboard=False,
            logging_level=logging.WARNING,
            _node_ip_address=LOOPBACK,
        )


def join_ray(address: str) -> None:
    """Connect to the cluster at `address`; a loopback address (a private cluster of this
    machine, e.g. another driver's) is joined as a loopback node, or Ray would look for
    this machine's raylet at its network address and wait for ever."""
    import ray

    host = address.removeprefix("ray://").rpartition(":")[0].strip("[]")
    loopback = host in ("127.0.0.1", "localhost", "::1")
    with _loopback_node() if loopback else contextlib.nullcontext(), _keep_sigterm_interrupt():
        ray.init(address=address, logging_level=logging.WARNING)


def ensure_ray(address: str | None, num_cpus: int) -> bool:
    """Connect this process to Ray: join `address`, else start a private local cluster of
    `num_cpus` CPUs; a Ray already initialised here is reused. True if this call started
    or joined one (so the caller shuts it down when done), False if it was reused.

    Interrupted while starting (Ctrl-C, or SIGTERM as `mafia_arena.sigterm` makes it),
    what was started of Ray is shut down before the interrupt goes on: the caller has
    nothing to shut down yet, and a half-started cluster would outlive the driver."""
    import ray

    if ray.is_initialized():
        return False
    try:
        if address:
            join_ray(address)
        else:
            start_local_ray(num_cpus)
    except BaseException:
        with contextlib.suppress(Exception):
            ray.shutdown()
        raise
    return True
