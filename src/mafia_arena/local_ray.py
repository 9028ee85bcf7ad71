"""Connecting this process to Ray: a private cluster on 127.0.0.1, or a given address.

Tournaments (`experiments.executors`) and training's rollout workers
(`rl.ray_rollouts`) start Ray the same way, so the loopback-only start lives here,
below both.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from mafia_arena.sigterm import sigterm_is_interrupt

LOOPBACK = "127.0.0.1"


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
    down. A process without that handler (training) gets Ray's, as before."""
    if not sigterm_is_interrupt():
        yield
        return
    from ray._private import utils

    ray_sets = utils.set_sigterm_handler
    utils.set_sigterm_handler = _leave_sigterm
    try:
        yield
    finally:
        utils.set_sigterm_handler = ray_sets


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


def start_local_ray(num_cpus: int) -> None:
    """Start a private Ray cluster of `num_cpus` CPUs on this machine, reachable from it only.

    Ray's guidance is never to expose a cluster's ports on an untrusted network. Started
    with ``_node_ip_address="127.0.0.1"`` inside `_loopback_node`, the GCS, raylet,
    object manager and workers listen on 127.0.0.1 only. The dashboard is not started.
    """
    import ray

    with _loopback_node(), _quiet_default_token_notice(), _keep_sigterm_interrupt():
        ray.init(
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
