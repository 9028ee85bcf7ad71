"""Limits that hold before any request body or game message is parsed.

- `too_deep` scans JSON text for nesting without building anything (a deeply nested
  document makes Python's parser recurse until `RecursionError`, before any check of
  its content could run);
- `BodyGuard`, an ASGI middleware, refuses a request body over `max_body` bytes (413,
  from the ``Content-Length`` header when there is one, else while the body streams in),
  a body that is not UTF-8 text (415: `utf8_text`) and a JSON body nested deeper than
  `max_depth` (400), before the app parses it, and
  answers a request whose client left mid-body (400, never read);
- `ClientCounter` counts what each client address holds open (websockets, and HTTP
  connections in `web/connections.py`), so one visitor cannot use up the server for
  everyone.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

Scope = dict[str, Any]
Receive = Any
Send = Any


def too_deep(raw: str | bytes, limit: int) -> bool:
    """True when the JSON text nests arrays/objects deeper than `limit` (strings skipped)."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def utf8_text(raw: bytes) -> bool:
    """Whether `raw` is UTF-8 text that a JSON parser reads as UTF-8 too.

    Why: the parser behind the app (`json.loads` on bytes) also reads UTF-16 and UTF-32,
    recognised by their zero bytes, while `too_deep` scans bytes as UTF-8. In UTF-16 a
    character such as U+2200 carries the byte of a quote mark, so a body could look to
    the scan as if its brackets sat inside a string, and pass nested past the limit.
    JSON exchanged between systems is UTF-8 (RFC 8259, section 8.1): other encodings
    are refused before anything reads them."""
    if json.detect_encoding(raw) not in ("utf-8", "utf-8-sig"):
        return False
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


async def _refuse(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class BodyGuard:
    """ASGI middleware: bodies of at most `max_body` bytes, JSON at most `max_depth` deep."""

    def __init__(self, app: Any, max_body: int, max_depth: int) -> None:
        self.app, self.max_body, self.max_depth = app, max_body, max_depth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        too_big = f"request body too large (at most {self.max_body} bytes)"
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_body):
            await _refuse(send, 413, too_big)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                # the client left mid-body: answered all the same (the server drops it).
                # Why: without a response the app's HTTP middleware raised "No response
                # returned", a traceback in the server's log for every cut-off request
                await _refuse(send, 400, "request body incomplete")
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                await _refuse(send, 413, too_big)
                return
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        if not utf8_text(body):
            await _refuse(send, 415, "request body must be JSON text in UTF-8")
            return
        if too_deep(body, self.max_depth):
            await _refuse(send, 400, f"JSON nested too deeply (at most {self.max_depth} levels)")
            return
        sent = False

        async def replay() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class ClientCounter:
    """How many of something (open websockets, HTTP connections) each client address
    holds now."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held: Counter[str] = Counter()

    def take(self, client: str) -> bool:
        """Count one more for `client`, or refuse (False) at the limit."""
        if self.held[client] >= self.limit:
            return False
        self.held[client] += 1
        return True

    def give_back(self, client: str) -> None:
        self.held[client] -= 1
        if self.held[client] <= 0:
            del self.held[client]
