"""Invites and session credentials.

An invite is a one-time token in the fragment of an invite link (``/g/<id>#invite=…``;
fragments never reach servers, logs or Referer headers). The page exchanges it once,
by POST, for a session credential that it keeps in `sessionStorage` and sends only in
request headers and the first websocket message — never in a URL. Every token comes from
`secrets.token_urlsafe(32)`; the store keeps only SHA-256 digests, so a dump of server
memory or a log line holds nothing that grants a seat.

A credential grants one thing: its own seat of its own game (or, for the creator's
admin credential, starting the game and listing the unclaimed invites).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Literal


def new_token() -> str:
    """A fresh unguessable token (256 bits)."""
    return secrets.token_urlsafe(32)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


@dataclass(frozen=True)
class Grant:
    """What a credential may do: act and see as `seat` of `game_id`, or administer it."""

    game_id: str
    scope: Literal["seat", "admin"]
    seat: int | None = None


class Credentials:
    """All invites and credentials of one server, by digest."""

    def __init__(self) -> None:
        self._invites: dict[str, tuple[str, int]] = {}
        self._grants: dict[str, Grant] = {}

    def issue_invite(self, game_id: str, seat: int) -> str:
        token = new_token()
        self._invites[_digest(token)] = (game_id, seat)
        return token

    def redeem(self, game_id: str, invite: str) -> tuple[int, str] | None:
        """Exchange an invite of `game_id` once: ``(seat, credential)`` or None."""
        key = _digest(invite)
        found = self._invites.get(key)
        if found is None or found[0] != game_id:
            return None
        del self._invites[key]
        seat = found[1]
        return seat, self._issue(Grant(game_id, "seat", seat))

    def issue_admin(self, game_id: str) -> str:
        return self._issue(Grant(game_id, "admin"))

    def _issue(self, grant: Grant) -> str:
        token = new_token()
        self._grants[_digest(token)] = grant
        return token

    def lookup(self, game_id: str, credential: str | None) -> Grant | None:
        """The grant of a credential if it belongs to `game_id`, else None."""
        if not credential or len(credential) > 128:
            return None
        grant = self._grants.get(_digest(credential))
        if grant is None or grant.game_id != game_id:
            return None
        return grant

    def revoke_invites(self, game_id: str) -> None:
        """Unclaimed invites die when the game starts (their seats went to bots)."""
        self._invites = {k: v for k, v in self._invites.items() if v[0] != game_id}

    def forget(self, game_id: str) -> None:
        self.revoke_invites(game_id)
        self._grants = {k: g for k, g in self._grants.items() if g.game_id != game_id}


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header."""
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None
