"""Invites, seat credentials, resume links and device cookies.

An invite is a token in the fragment of an invite link (``/g/<id>#invite=…``; fragments
never reach servers, logs or Referer headers). The page exchanges it by POST for a seat
credential that it keeps in `localStorage` (so it survives closing the tab) and sends
only in request headers and the first websocket message — never in a URL.

Seats that last:

- the first exchange binds the invite to the browser that made it, through an HttpOnly
  ``mafia_device`` cookie (a random token the page's scripts cannot read); the same
  invite opened again on that device gives that seat again, on any other device it is
  refused — so a forwarded invite link cannot take a seat that is already played;
- every exchange also returns a *resume token*, shown to the player as a link
  (``/g/<id>#resume=…``): it gives the seat to whichever device opens it, which is how
  a player moves from a laptop to a phone; it stays valid for the whole game.

Every token comes from `secrets.token_urlsafe(32)`; the server keeps only SHA-256
digests (in memory and in the live store, `web/db.py`), so neither a dump of server
memory nor the database grants a seat. A credential grants one thing: its own seat of
its own game (or, for the creator's admin credential, starting the game and listing the
unclaimed invites and the watch link; a watch token only opens a spectator's page,
`web/gallery.py`).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Literal

from mafia_arena.web.db import LiveStore, StoredToken

DEVICE_COOKIE = "mafia_device"
KEYS_PER_SEAT = 16
"""Seat credentials (and resume tokens) a seat keeps: each exchange of its invite or
resume link makes a new one, and past this many the oldest stops working."""


def new_token() -> str:
    """A fresh unguessable token (256 bits)."""
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


@dataclass(frozen=True)
class Grant:
    """What a credential may do: act and see as `seat` of `game_id`, or administer it."""

    game_id: str
    scope: Literal["seat", "admin", "watch"]
    seat: int | None = None


@dataclass(frozen=True)
class SeatKeys:
    """What a successful exchange returns: the seat, its credential, its resume token."""

    seat: int
    credential: str
    resume: str


class Credentials:
    """All invites and credentials of one server, by digest, written through to the store."""

    def __init__(self, store: LiveStore) -> None:
        self.store = store
        self._tokens: dict[str, StoredToken] = {t.digest: t for t in store.tokens()}

    def _add(self, token: str, game_id: str, kind: str, seat: int | None) -> str:
        record = StoredToken(digest(token), game_id, kind, seat, None)
        self._tokens[record.digest] = record
        self.store.add_token(record)
        return token

    def issue_invite(self, game_id: str, seat: int) -> str:
        return self._add(new_token(), game_id, "invite", seat)

    def issue_admin(self, game_id: str) -> str:
        return self._add(new_token(), game_id, "admin", None)

    def issue_watch(self, game_id: str) -> str:
        """The game's watch link token: any number of spectators, public events only."""
        return self._add(new_token(), game_id, "watch", None)

    def _seat_keys(self, game_id: str, seat: int) -> SeatKeys:
        return SeatKeys(
            seat,
            self._add_key(game_id, "seat", seat),
            self._add_key(game_id, "resume", seat),
        )

    def _add_key(self, game_id: str, kind: str, seat: int) -> str:
        """A new seat credential or resume token for `seat`; beyond `KEYS_PER_SEAT` of
        that kind the oldest is revoked.

        Why: the same device may exchange its invite again at any time, and a resume link
        works on every device, each time for fresh keys; unbounded, a player repeating
        the exchange in a loop grew the server's memory and live store without limit
        (thousands of rows a second) and made every one of those keys a seat credential
        forever. A person uses a handful of devices."""
        token = self._add(new_token(), game_id, kind, seat)
        held = [
            d
            for d, t in self._tokens.items()
            if t.game_id == game_id and t.kind == kind and t.seat == seat
        ]
        if len(held) > KEYS_PER_SEAT:
            stale = held[: len(held) - KEYS_PER_SEAT]  # oldest first: insertion order
            for d in stale:
                del self._tokens[d]
            self.store.drop_tokens(stale)
        return token

    def redeem(self, game_id: str, invite: str, device: str) -> SeatKeys | None:
        """Exchange an invite: the first time from any device (which it is then bound
        to), afterwards only from that same `device`. None when refused."""
        found = self._tokens.get(digest(invite))
        if found is None or found.game_id != game_id or found.kind != "invite":
            return None
        assert found.seat is not None
        if found.device is None:
            bound = StoredToken(found.digest, game_id, "invite", found.seat, digest(device))
            self._tokens[found.digest] = bound
            self.store.add_token(bound)
        elif found.device != digest(device):
            return None
        return self._seat_keys(game_id, found.seat)

    def device_keys(self, game_id: str, seat: int, device: str) -> SeatKeys | None:
        """Fresh keys for `seat` when one of its invites was exchanged on `device`, as
        exchanging that invite again there gives; None otherwise.

        Why: a rematch's invites live in memory only (the store keeps digests), so a
        player who took their rematch seat before a restart and asks again after it
        has no invite left to exchange; their device is what proves the seat theirs."""
        mine = digest(device)
        for t in self._tokens.values():
            if (t.game_id, t.kind, t.seat, t.device) == (game_id, "invite", seat, mine):
                return self._seat_keys(game_id, seat)
        return None

    def invite_seat(self, game_id: str, invite: str) -> int | None:
        """The seat an invite of `game_id` is for (it stays valid), else None."""
        found = self._tokens.get(digest(invite))
        if found is None or found.game_id != game_id or found.kind != "invite":
            return None
        return found.seat

    def invite_used(self, game_id: str, invite: str) -> bool:
        found = self._tokens.get(digest(invite))
        return found is not None and found.game_id == game_id and found.device is not None

    def resume(self, game_id: str, token: str) -> SeatKeys | None:
        """A resume link opened on any device: a fresh credential for the same seat."""
        if not token or len(token) > 128:
            return None
        found = self._tokens.get(digest(token))
        if found is None or found.game_id != game_id or found.kind != "resume":
            return None
        assert found.seat is not None
        return SeatKeys(found.seat, self._add_key(game_id, "seat", found.seat), token)

    def lookup(self, game_id: str, credential: str | None) -> Grant | None:
        """The grant of a credential if it belongs to `game_id`, else None."""
        if not credential or len(credential) > 128:
            return None
        found = self._tokens.get(digest(credential))
        if found is None or found.game_id != game_id:
            return None
        if found.kind == "seat":
            return Grant(game_id, "seat", found.seat)
        if found.kind == "admin":
            return Grant(game_id, "admin")
        if found.kind == "watch":
            return Grant(game_id, "watch")
        return None

    def revoke_invites(self, game_id: str) -> None:
        """Unclaimed invites die when the game starts (their seats went to bots); claimed
        ones stay, bound to their device, so that device can come back through them."""
        dead = [
            d
            for d, t in self._tokens.items()
            if t.game_id == game_id and t.kind == "invite" and t.device is None
        ]
        for d in dead:
            del self._tokens[d]
        self.store.drop_tokens(dead)

    def kept(self, game_id: str) -> bool:
        """Whether any token of `game_id` is still held (`forget` drops them all)."""
        return any(t.game_id == game_id for t in self._tokens.values())

    def forget(self, game_id: str) -> None:
        dead = [d for d, t in self._tokens.items() if t.game_id == game_id]
        for d in dead:
            del self._tokens[d]
        self.store.drop_tokens(dead)


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header."""
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None
