"""Limits on plain HTTP connections, held in the server's protocol, below the app.

uvicorn reads a request with no deadline: a client that opens a connection and sends
half a request line or half its headers and then nothing (slowloris), or a body one
byte every few seconds, holds the connection for as long as it likes, and one address
may open as many connections as the server has file descriptors. The app is called
only once a request's headers are in, so a half-sent request never reaches it
(`BodyGuard` included): the deadline belongs where the bytes are read. `guarded_http`
gives uvicorn a protocol (its httptools one, which the ``web`` extra's
``uvicorn[standard]`` brings and uvicorn would pick itself) that:

- answers 408 and closes the connection when a request is not wholly received
  (request line, headers and body) within `Settings.request_timeout` seconds of its
  first byte, or of the connection's opening for its first request (the idle time
  between requests stays uvicorn's keep-alive timeout);
- refuses (429, then closes) a connection from an address that already holds
  `Settings.max_connections_per_client` open HTTP connections. A connection that
  becomes a websocket leaves this count at the upgrade: the app counts sockets
  (`Settings.max_sockets_per_client`).
"""

from __future__ import annotations

import asyncio
import json

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from mafia_arena.web.guard import ClientCounter

TIMED_OUT = "request not received in time"
TOO_MANY = "too many connections from your address"


def _response(status: str, detail: str, default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """A whole HTTP/1.1 response with a JSON ``detail`` that closes the connection."""
    body = json.dumps({"detail": detail}).encode()
    lines = [f"HTTP/1.1 {status}".encode()]
    lines += [name + b": " + value for name, value in default_headers]
    lines += [
        b"content-type: application/json",
        b"content-length: %d" % len(body),
        b"connection: close",
    ]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def guarded_http(request_timeout: float, max_per_client: int) -> type[HttpToolsProtocol]:
    """uvicorn's HTTP protocol (httptools) with a deadline to receive each request and
    at most `max_per_client` open connections per client address (one count per server:
    each call makes a class of its own)."""
    open_connections = ClientCounter(max_per_client)

    class GuardedHttp(HttpToolsProtocol):
        """One connection: its request deadline and its place in the address's count."""

        deadline: asyncio.TimerHandle | None = None
        counted: str | None = None
        receiving: RequestResponseCycle | None = None
        """The cycle of the request being received, once its headers are in."""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            host = self.client[0] if self.client else ""
            if not open_connections.take(host):
                self._answer("429 Too Many Requests", TOO_MANY)
                return
            self.counted = host
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self.counted is None:  # refused: nothing it sends is read
                return
            super().data_received(data)

        def on_message_begin(self) -> None:
            """A request's first byte (the parser's callback): its deadline runs from
            here, or from the connection's opening for the first request."""
            self.receiving = None
            if self.deadline is None:
                self._arm()
            super().on_message_begin()

        def on_headers_complete(self) -> None:
            super().on_headers_complete()
            self.receiving = self.cycle

        def on_message_complete(self) -> None:
            self._disarm()  # the whole request is in: the app's time is not bounded here
            super().on_message_complete()

        def handle_websocket_upgrade(self) -> None:
            self._disarm()
            self._release()
            super().handle_websocket_upgrade()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            self._release()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self.deadline = self.loop.call_later(request_timeout, self._expired)

        def _disarm(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None

        def _release(self) -> None:
            if self.counted is not None:
                open_connections.give_back(self.counted)
                self.counted = None

        def _expired(self) -> None:
            """The request was not received in time: 408, unless an answer is being
            sent on the connection or the request has had one already (a 413 from its
            declared length): then only closed.
            The app, if it waits for the body, reads a disconnect and its answer goes
            nowhere."""
            self.deadline = None
            answering = bool(self.pipeline) or (
                self.cycle is not None
                and self.cycle.response_started
                and not self.cycle.response_complete
            )
            answered = self.receiving is not None and self.receiving.response_started
            if answering or answered:  # a 408 now would land inside or after an answer
                self.transport.close()
                return
            self._answer("408 Request Timeout", TIMED_OUT)

        def _answer(self, status: str, detail: str) -> None:
            self.transport.write(_response(status, detail, self.server_state.default_headers))
            self.transport.close()

    return GuardedHttp
