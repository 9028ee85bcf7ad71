"""What a page may send over its websocket, validated before anything else reads it.

Messages are JSON objects with a ``type``: ``auth`` (first message: the session
credential), ``act`` (a choice index for an open turn), ``say`` (free text for an open
turn), ``form`` (a forum form the turn does not list, with its words: a message to
several players, a private testament, an ad under or the transfer of one's own
pseudonym; `agents.human.written_act` builds and checks it), ``back`` (take the seat
back from the stand-in bot that plays it), ``chat`` (a line of table chat,
`web/chat.py`) and ``ping``.
Models forbid extra keys — a message naming a ``seat`` is refused, because the seat
always comes from the credential — and bound every field. The text's final limit is
the open request's `max_chars` (checked in `agents.human.decision_for`).

`RateLimiter` is a token bucket per connection: a flood is dropped (and a persistent
one disconnects) without touching the game.
"""

from __future__ import annotations

import json
import time
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from mafia_arena.web.guard import too_deep

MAX_TEXT = 4000  # hard cap before the request's own max_chars
MAX_CHAT = 600  # hard cap on a chat frame's text (a stored line keeps `chat.MAX_CHAT`)


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Auth(_Msg):
    type: Literal["auth"]
    credential: str = Field(min_length=10, max_length=128)


class Act(_Msg):
    type: Literal["act"]
    turn: int = Field(ge=0, le=10**9)
    choice: int = Field(ge=0, le=10_000)


class Say(_Msg):
    type: Literal["say"]
    turn: int = Field(ge=0, le=10**9)
    text: str = Field(min_length=1, max_length=MAX_TEXT)
    choice: int | None = Field(default=None, ge=0, le=10_000)
    """A forum turn: the option whose form the text fills (a private message to P3,
    an ad, a testament); absent: plain speech (a thread post)."""


class Write(_Msg):
    """A forum form the request does not list (`agents.human.Form`): `seats` are 0-based
    (recipients, or a pseudonym's new owner), `pseudonym` one of the seat's own."""

    type: Literal["form"]
    turn: int = Field(ge=0, le=10**9)
    verb: Literal["pm", "ad", "give", "testament"]
    seats: list[Annotated[int, Field(ge=0, le=10_000)]] = Field(default=[], max_length=64)
    pseudonym: str | None = Field(default=None, min_length=1, max_length=64)
    text: str = Field(default="", max_length=MAX_TEXT)


class Ping(_Msg):
    type: Literal["ping"]


class Back(_Msg):
    type: Literal["back"]


class Chat(_Msg):
    """A line of table chat (`web/chat.py`) in a channel the sender may write."""

    type: Literal["chat"]
    channel: str = Field(min_length=1, max_length=32, pattern=r"^[a-z_]+$")
    text: str = Field(min_length=1, max_length=MAX_CHAT)


Message = Auth | Act | Say | Write | Ping | Back | Chat
ClientMessage = Annotated[Message, Field(discriminator="type")]
_ADAPTER: TypeAdapter[Message] = TypeAdapter(ClientMessage)


class BadMessage(ValueError):
    """A message that is not valid JSON of one of the types above; `reason` is safe to show."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def parse(raw: str | bytes, max_frame: int, max_depth: int = 8) -> Message:
    """Validate one frame; raise `BadMessage` with a short reason otherwise. Size and
    nesting are checked on the text, before the JSON parser sees it.

    A binary frame must be UTF-8, decoded here: the JSON parser would take UTF-16 or
    UTF-32 bytes too, which the nesting check would then have read as other characters
    (a frame 1,500 levels deep got through to the parser and raised `RecursionError`)."""
    if len(raw) > max_frame:
        raise BadMessage(f"message too large (at most {max_frame} bytes)")
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadMessage("not JSON") from exc
    if too_deep(raw, max_depth):
        raise BadMessage(f"message nested too deeply (at most {max_depth} levels)")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise BadMessage("not JSON") from exc
    except ValueError as exc:  # valid JSON: an integer past Python's digit limit (4300)
        raise BadMessage("a number in the message is too long") from exc
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "message"
        raise BadMessage(f"invalid {where}: {first.get('msg', 'bad value')}"[:200]) from exc


class RateLimiter:
    """Token bucket: `rate` messages per second, bursts up to `burst`.

    `strikes` counts dropped messages; the caller disconnects past a limit.
    """

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()
        self.strikes = 0

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.strikes += 1
        return False

    def refilled(self) -> bool:
        """Whether the bucket is back at its burst by now (nothing spent is still owed)."""
        elapsed = time.monotonic() - self.stamp
        return self.tokens + elapsed * self.rate >= self.burst
