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
  between requests is uvicorn's keep-alive timeout, `Settings.keep_alive`);
- answers 431 and closes the connection when a request's head (request line and
  headers) runs past `MAX_HEAD` bytes before its end. Why: httptools joins a header's
  value piece by piece as its bytes come in, each time copying what it has, so the
  work grows with the square of its length: one 40 MB header held the event loop
  (every table's sockets) for six seconds, well within the deadline;
- refuses (429, then closes) a connection from an address that already holds
  `Settings.max_connections_per_client` open HTTP connections. A connection that
  becomes a websocket leaves this count at the upgrade: the app counts sockets
  (`Settings.max_sockets_per_client`).

`guarded_ws` does the same for the websocket protocol (uvicorn's sans-I/O one, which it
would pick itself): a websocket's control frames never reach the app, and uvicorn
answers every ping at once, written out whether or not the client reads. A client
that sent pings as fast as it could and read nothing held the event loop (another
page's request waited seconds) and grew the server's write buffer by every pong. Pings
share the rate of a page's frames (`protocol.RateLimiter`, `Settings.rate_per_s` and
`rate_burst`); past `ws.MAX_STRIKES` pings over it the socket is closed with 1008, as
a flood of frames is (`web/ws.py`).
"""

from __future__ import annotations

import asyncio
import json

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from mafia_arena.web.guard import ClientCounter
from mafia_arena.web.protocol import RateLimiter
from mafia_arena.web.ws import CLOSE_POLICY, MAX_STRIKES

TIMED_OUT = "request not received in time"
TOO_MANY = "too many connections from your address"
HEAD_TOO_LARGE = "request line and headers too large"
PING_FLOOD = "too many pings"
AFTER_CLOSE = 65_536
"""Bytes a socket closed for a ping flood may still send before its close answer (the
frames it sent before it read the close); past them the connection is cut."""
MAX_HEAD = 65_536
"""Bytes a request's head (request line and headers) may take; a browser's are a few
kilobytes, and servers commonly allow 8 to 64 KiB."""


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


def guarded_http(
    request_timeout: float, max_per_client: int, max_head: int = MAX_HEAD
) -> type[HttpToolsProtocol]:
    """uvicorn's HTTP protocol (httptools) with a deadline to receive each request, a
    request head of at most `max_head` bytes, and at most `max_per_client` open
    connections per client address (one count per server: each call makes a class of
    its own)."""
    open_connections = ClientCounter(max_per_client)

    class GuardedHttp(HttpToolsProtocol):
        """One connection: its request deadline, its place in the address's count, and
        the refusal (408, 431) it owes once the answers to earlier requests are out."""

        deadline: asyncio.TimerHandle | None = None
        counted: str | None = None
        receiving: RequestResponseCycle | None = None
        """The cycle of the request being received, once its headers are in."""
        head: int = 0
        """Bytes received since the request's first byte while its head is not whole."""
        refused: bool = False
        """A request was refused: nothing more is read, no later request is answered."""
        owed: bytes | None = None
        """The refusal to write once the earlier answers are whole (`_refuse`)."""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            host = self.client[0] if self.client else ""
            if not open_connections.take(host):
                self._answer("429 Too Many Requests", TOO_MANY)
                return
            self.counted = host
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self.counted is None or self.refused:  # refused: nothing it sends is read
                return
            super().data_received(data)
            # counted None: it became a websocket; refused: its answer is settled
            settled = self.counted is None or self.refused or self.transport.is_closing()
            if self.receiving is None and not settled:
                # the head is still coming in: counted after the parser read the bytes
                # (the work of one read is bounded by its size), refused past `max_head`.
                # The read may also hold the end of an earlier request, counted with it.
                self.head += len(data)
                if self.head > max_head:
                    self._refuse("431 Request Header Fields Too Large", HEAD_TOO_LARGE)

        def on_message_begin(self) -> None:
            """A request's first byte (the parser's callback): its deadline runs from
            here, or from the connection's opening for the first request."""
            if self.refused:
                return
            self.receiving = None
            self.head = 0
            if self.deadline is None:
                self._arm()
            super().on_message_begin()

        def on_url(self, url: bytes) -> None:
            if not self.refused:
                super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            if not self.refused:
                super().on_header(name, value)

        def on_headers_complete(self) -> None:
            """The head is whole: refused (431) if it is past `max_head`, which a head
            read whole in one read was never counted against, before the app sees it."""
            if self.refused:
                return
            if self._head_size() > max_head:
                self._refuse("431 Request Header Fields Too Large", HEAD_TOO_LARGE)
                return
            super().on_headers_complete()
            self.receiving = self.cycle

        def on_body(self, body: bytes) -> None:
            if not self.refused:
                super().on_body(body)

        def on_message_complete(self) -> None:
            if self.refused:
                return
            self._disarm()  # the whole request is in: the app's time is not bounded here
            super().on_message_complete()

        def on_response_complete(self) -> None:
            """An answer is whole: the next pipelined request's app starts, or, where a
            refusal is owed and this was the last answer before it, it is written and
            the connection closed."""
            last = not self.pipeline
            super().on_response_complete()
            if self.owed is not None and last and not self.transport.is_closing():
                self._unset_keepalive_if_required()
                self.transport.write(self.owed)
                self.transport.close()

        def handle_websocket_upgrade(self) -> None:
            if self.refused:
                return
            self._disarm()
            self._release()
            super().handle_websocket_upgrade()

        def send_400_response(self, msg: str) -> None:
            if not self.refused:  # bytes after a refused request are not read as a request
                super().send_400_response(msg)

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

        def _head_size(self) -> int:
            """The bytes of the request line and header lines the parser read (blanks
            around values left out), for a head whose end has come."""
            method = self.parser.get_method()
            line = len(method) + len(self.url) + len(b"  HTTP/1.1\r\n")
            fields = sum(len(name) + len(value) + len(b": \r\n") for name, value in self.headers)
            return line + fields + len(b"\r\n")

        def _expired(self) -> None:
            """The request was not received in time: 408 (after the answers to earlier
            requests, `_refuse`), unless the request has an answer already begun (a 413
            from its declared length): then only closed, as a 408 would land inside or
            after that answer. The app, if it waits for the body, reads a disconnect and
            its answer goes nowhere."""
            self.deadline = None
            receiving = self.receiving
            if receiving is not None and receiving.response_started:
                self.transport.close()
                return
            self._refuse("408 Request Timeout", TIMED_OUT, receiving)

        def _refuse(
            self, status: str, detail: str, request: RequestResponseCycle | None = None
        ) -> None:
            """Refuse the request being received (`request`: its cycle, where its head
            is whole) with `status`, then close: at once, or, where answers to earlier
            requests of the connection (pipelined: sent before this one, on the same
            connection) are not yet whole, once they are (`on_response_complete`).

            Why wait: a refusal written at once landed before or inside an earlier
            request's answer, so the client read it as that request's answer or got
            that answer cut short; HTTP answers the requests of a connection in order.
            Nothing more is read meanwhile, and the refused request's app never runs."""
            self._disarm()
            self.refused = True
            self.flow.pause_reading()
            if not self._earlier_answers_owed(request):
                self._answer(status, detail)
                return
            for entry in list(self.pipeline):
                if entry[0] is request:  # queued behind an earlier answer: never run
                    self.pipeline.remove(entry)
            self.owed = _response(status, detail, self.server_state.default_headers)

        def _earlier_answers_owed(self, request: RequestResponseCycle | None) -> bool:
            """Whether an answer to a request received before `request` is still to
            be written whole: one is queued (so one runs ahead of it), or the newest
            request before it has an answer not yet begun or not yet ended."""
            latest = self.cycle
            running = latest is not None and latest is not request
            return bool(self.pipeline) or (running and not latest.response_complete)

        def _answer(self, status: str, detail: str) -> None:
            self.transport.write(_response(status, detail, self.server_state.default_headers))
            self.transport.close()

    return GuardedHttp


def guarded_ws(rate: float, burst: float) -> type[WebSocketsSansIOProtocol]:
    """uvicorn's websocket protocol (sans-I/O) with a token bucket for pings per socket
    (`rate` a second after a burst of `burst`): a ping over that rate is still answered,
    as a frame over it is (`web/ws.py`), and past `MAX_STRIKES` of them the socket is
    closed with `CLOSE_POLICY` (the app reads a disconnect)."""

    class GuardedWebSocket(WebSocketsSansIOProtocol):
        """One websocket: its pings' token bucket."""

        pings: RateLimiter | None = None
        after_close: int | None = None
        """Bytes received since the flood's close frame was sent (None: not closed so)."""

        def data_received(self, data: bytes) -> None:
            if self.after_close is not None:
                # a client that floods on after its close frame is cut off: reading its
                # pings until the close timeout would hold the event loop all that time
                self.after_close += len(data)
                if self.after_close > AFTER_CLOSE:
                    self.transport.abort()
                    return
            super().data_received(data)

        def handle_ping(self) -> None:
            if self.close_sent or self.transport.is_closing():
                self.conn.data_to_send()  # the pong of a ping read after the close: dropped
                return
            if self.pings is None:
                self.pings = RateLimiter(rate, burst)
            if not self.pings.allow() and self.pings.strikes > MAX_STRIKES:
                self._close_flooded()
                return
            super().handle_ping()

        def _close_flooded(self) -> None:
            """Close as uvicorn closes for the app: the app reads the disconnect, the
            client gets the close frame, and the connection ends when the client answers
            it or after uvicorn's close timeout. Why not at once, as uvicorn's keepalive
            timeout does: pings still unread on the server would turn the close into a
            reset, and the client would never read why (1008). A client that sends on
            past `AFTER_CLOSE` bytes is cut off then (`data_received`)."""
            code = CLOSE_POLICY
            self.after_close = 0
            self.queue.put_nowait({"type": "websocket.disconnect", "code": code})
            self.conn.send_close(code, PING_FLOOD)
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
            if self.read_paused:
                self.read_paused = False
                self.transport.resume_reading()
            self.close_timer = self.loop.call_later(self.close_timeout, self.transport.close)

    return GuardedWebSocket
