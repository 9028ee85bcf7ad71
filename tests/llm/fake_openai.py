"""A scripted OpenAI-compatible HTTP endpoint for fault tests (a test double).

A real HTTP server on a free loopback port that speaks just enough of the OpenAI
chat-completions API to script faults: illegal or malformed answers, empty answers, slow
answers, HTTP errors, dropped connections. Everything above the socket (the openai
package, LangChain, retries, parsing, accounting) is the production code under test.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Action:
    """What the fake endpoint does with the next chat request."""

    text: str | None = None
    status: int = 200
    body: dict[str, Any] | None = None
    delay_s: float = 0.0
    drop: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    prompt_tokens: int = 11
    completion_tokens: int = 7
    reasoning: str | None = None
    usage: bool = True
    raw_body: bytes | None = None
    content_type: str = "application/json"
    #: send the headers (with the full Content-Length) and only this many body bytes,
    #: then close the connection: a server that dies in the middle of its answer
    cut_after: int | None = None
    #: send the body one byte at a time, this many seconds apart (a trickling server
    #: that never trips a per-read timeout)
    trickle_s: float = 0.0
    #: ``(name, arguments)`` of tool calls the message carries (OpenAI's ``tool_calls``,
    #: ``arguments`` a JSON string); with ``text=None`` the content is null
    tool_calls: tuple[tuple[str, str], ...] = ()


def reply(text: str, prompt_tokens: int = 11, completion_tokens: int = 7) -> Action:
    return Action(text=text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)


def error(status: int, message: str = "scripted error", **headers: str) -> Action:
    return Action(status=status, body={"error": {"message": message, "type": "x"}}, headers=headers)


def slow(seconds: float, text: str = "late") -> Action:
    return Action(text=text, delay_s=seconds)


def drop() -> Action:
    return Action(drop=True)


def thinking(reasoning: str, text: str) -> Action:
    """A reply whose reasoning comes in the separate ``reasoning_content`` field."""
    return Action(text=text, reasoning=reasoning)


def no_usage(text: str) -> Action:
    """A reply without a ``usage`` object."""
    return Action(text=text, usage=False)


def tool_call(name: str, arguments: str) -> Action:
    """A reply whose content is null and whose message carries one tool call (a server
    that turns the model's JSON into a call of a tool nobody offered)."""
    return Action(text=None, tool_calls=((name, arguments),))


def garbage_body() -> Action:
    """HTTP 200 whose body is not JSON at all."""
    return Action(raw_body=b"<html><body>502 upstream gone</body></html>")


def error_body_200(message: str, kind: str = "insufficient_quota") -> Action:
    """HTTP 200 whose JSON body is an OpenAI-style error object (some proxies do this)."""
    body = {"error": {"message": message, "type": kind}}
    return Action(raw_body=json.dumps(body).encode())


def no_choices() -> Action:
    """HTTP 200 with a chat-completion body whose ``choices`` is empty."""
    body = {"id": "x", "object": "chat.completion", "created": 0, "choices": []}
    return Action(raw_body=json.dumps(body).encode())


def broken_gzip(status: int = 200) -> Action:
    """A reply sent as ``Content-Encoding: gzip`` whose body no gzip reader can undo: a
    gzip header, then bytes that are no deflate stream (a proxy that mangles what it
    compresses)."""
    return Action(
        status=status,
        raw_body=b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + b"\xff not deflate" * 4,
        headers={"Content-Encoding": "gzip"},
    )


def text_body(text: str = "\x00\xffGARBAGE <html>not json") -> Action:
    """HTTP 200 whose body is plain text, declared as such."""
    return Action(raw_body=text.encode("utf-8", "replace"), content_type="text/plain")


def fake_agent_definition(base_url: str, **overrides: Any) -> Any:
    """An agent definition pointed at a fake endpoint: fast retries, a generous timeout
    (tests of timeouts set a short one)."""
    from mafia_arena.llm.definition import AgentDefinition

    settings: dict[str, Any] = {
        "name": "fake-agent",
        "base_url": base_url,
        "model": "fake-model",
        "max_tokens": 32,
        "timeout_s": 10.0,  # generous: load must not turn answers into retries
        "max_retries": 2,
        "retry_backoff_s": 0.01,
        "retry_backoff_max_s": 0.05,
        "max_reasks": 2,
        "max_concurrency": 4,
        "price_per_input_token": 0.001,
        "price_per_output_token": 0.002,
    }
    return AgentDefinition(**{**settings, **overrides})


class FakeOpenAI:
    """Scripted OpenAI-compatible endpoint. ``script(...)`` queues actions in order."""

    def __init__(self) -> None:
        self.actions: deque[Action] = deque()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.served: list[tuple[int, int]] = []
        self.arrivals: list[float] = []  # time.monotonic() of each request, in order
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                with fake._lock:
                    fake._connections.add(self.connection)

            def finish(self) -> None:
                with fake._lock:
                    fake._connections.discard(self.connection)
                super().finish()

            def _send(self, status: int, payload: dict[str, Any], extra: dict[str, str]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in extra.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def _send_raw(self, data: bytes, action: Action) -> None:
                """``data`` as the body of ``action.status``, cut or trickled as ``action``
                says (a 204 goes without a body, as HTTP wants)."""
                self.send_response(action.status)
                if action.status != 204:
                    self.send_header("Content-Type", action.content_type)
                    self.send_header("Content-Length", str(len(data)))
                for key, value in action.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                if action.status == 204:
                    return
                if action.cut_after is not None:
                    self.wfile.write(data[: action.cut_after])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if action.trickle_s:
                    for i in range(len(data)):
                        if fake._stopping.wait(action.trickle_s):
                            return
                        self.wfile.write(data[i : i + 1])
                        self.wfile.flush()
                    return
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]}, {})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.arrivals.append(time.monotonic())
                    fake.requests.append(body)
                    fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                    action = fake.actions.popleft() if fake.actions else error(500, "no script")
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    if action.delay_s:
                        fake._stopping.wait(action.delay_s)
                    if action.drop:
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                        return
                    if action.status != 200 and action.raw_body is None:
                        self._send(action.status, action.body or {}, action.headers)
                        return
                    if (
                        action.raw_body is not None
                        or action.cut_after is not None
                        or action.trickle_s
                    ):
                        data = action.raw_body
                        if data is None:
                            data = json.dumps(completion(body, action)).encode()
                        self._send_raw(data, action)
                        return
                    if action.usage:
                        with fake._lock:
                            fake.served.append((action.prompt_tokens, action.completion_tokens))
                    self._send(200, completion(body, action), action.headers)
                except OSError:
                    pass  # the client gave up (timeout) and closed the socket
                finally:
                    with fake._lock:
                        fake.in_flight -= 1

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def script(self, *actions: Action) -> FakeOpenAI:
        self.actions.extend(actions)
        return self

    def close(self) -> None:
        """Stop serving and end every open connection.

        A client's keep-alive connection holds a handler thread waiting for its next
        request; shutting the socket down ends that thread now, so that no thread of a
        closed server is still blocked in the socket when the interpreter exits.
        """
        self._stopping.set()
        self._server.shutdown()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        self._server.server_close()
        self._thread.join(timeout=5)


def completion(request: dict[str, Any], action: Action) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": action.text}
    if action.reasoning is not None:
        message["reasoning_content"] = action.reasoning
    if action.tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(action.tool_calls)
        ]
    payload = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "stop",
            }
        ],
    }
    if action.usage:
        payload["usage"] = {
            "prompt_tokens": action.prompt_tokens,
            "completion_tokens": action.completion_tokens,
            "total_tokens": action.prompt_tokens + action.completion_tokens,
        }
    return payload


def free_port() -> int:
    """A loopback port nobody listens on (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


CONTEXT_TOO_LONG = {
    "error": {
        "message": "This model's maximum context length is 10 tokens",
        "type": "invalid_request_error",
        "code": "context_length_exceeded",
    }
}
"""An OpenAI-style 400 body: a prompt longer than the model's context."""
