"""The embedded model's server process: llama-cpp-python's server, weights in plain buffers.

Run as ``python -m mafia_arena.llm.llama_server_entry <llama_cpp.server arguments>``;
`local_server.LocalServer` starts it so. It is ``python -m llama_cpp.server`` with one
change: the model is loaded with ``use_extra_bufts`` off, so llama.cpp keeps the weights
in ordinary CPU buffers instead of the "extra" buffer types it picks for a CPU's special
units (AMX tiles, repacked layouts).

Why: a llama.cpp built for the CPU it runs on uses AMX when the CPU lists it. On a
virtual Xeon that lists ``amx_tile`` and ``amx_int8``, the first matrix product then
died with a general-protection fault at the tile-configuration load (``ldtilecfg``),
and the server with SIGSEGV at its first answer. Plain buffers run the same vector
kernels on every CPU, with or without AMX, so a prompt also gets the same answer
wherever the tests run; the speed given up on CPUs where the extra buffers work was not
measured. An older llama-cpp-python whose model parameters have no such field is run
unchanged.

The process also ends with its owner (`exit_with_owner`): `LocalServer` names itself in
``MAFIA_ARENA_SERVER_OWNER`` and stops the server at exit, but an owner that is killed
(SIGTERM from ``kill`` or ``timeout``, SIGKILL) runs no exit handler, and its server
went on as an orphan holding a few hundred MB and a port.
"""

from __future__ import annotations

import os
import runpy
import threading
import time
from typing import Any

EXTRA_BUFFERS_FIELD = "use_extra_bufts"
OWNER_ENV = "MAFIA_ARENA_SERVER_OWNER"
"""The owning process's pid, set by `LocalServer` for the server it starts."""


def exit_with_owner(poll_s: float = 0.5) -> threading.Thread | None:
    """Watch the owner named in ``MAFIA_ARENA_SERVER_OWNER`` from a daemon thread and
    end this process once the owner is gone: the parent pid changes when the parent
    dies, so no signal from it is needed. Returns the thread, or None when no owner is
    named (a server run by hand)."""
    owner = os.environ.get(OWNER_ENV, "")
    if not owner.isdigit():
        return None
    pid = int(owner)

    def watch() -> None:
        while os.getppid() == pid:
            time.sleep(poll_s)
        os._exit(0)  # the server's threads would keep an orderly exit waiting

    thread = threading.Thread(target=watch, name="exit-with-owner", daemon=True)
    thread.start()
    return thread


def load_in_plain_buffers() -> None:
    """Make every model that llama-cpp-python loads from here on skip the extra buffer
    types: its `Llama` reads `llama_model_default_params()` from the low-level module,
    which is wrapped so the field is off. Idempotent."""
    import llama_cpp.llama_cpp as low

    defaults = low.llama_model_default_params
    if getattr(defaults, "_plain_buffers", False):
        return
    fields = {name for name, *_ in getattr(low.llama_model_params, "_fields_", ())}
    if EXTRA_BUFFERS_FIELD not in fields:
        return

    def plain_defaults() -> Any:
        params = defaults()
        setattr(params, EXTRA_BUFFERS_FIELD, False)
        return params

    plain_defaults._plain_buffers = True  # type: ignore[attr-defined]
    low.llama_model_default_params = plain_defaults


def main() -> None:
    """Run llama-cpp-python's server (its own argument parsing) with plain buffers,
    ending with its owner."""
    exit_with_owner()
    load_in_plain_buffers()
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
