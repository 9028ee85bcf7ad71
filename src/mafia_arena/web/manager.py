"""`GameManager`: the server's games, invites and credentials.

Creating a game validates the creator's `GameSpec` against the variant (players in
range, switches valid, bot agents known and allowed), deals nothing yet, and returns
the creator's admin credential and one invite per human seat. Joining exchanges an
invite once for a seat credential. Finished games stay (for the reveal and replay) for
`Settings.finished_ttl` seconds; at most `Settings.max_games` games live at once.
"""

from __future__ import annotations

import secrets
import time
from pathlib import Path
from typing import Any

from mafia_arena.agents.registry import make_agent, scripted_agent_names
from mafia_arena.rules import VariantError, available_variants, load_variant
from mafia_arena.rules.composition import deck
from mafia_arena.seat_seeds import new_host_key
from mafia_arena.web.auth import Credentials, Grant
from mafia_arena.web.session import GameSession
from mafia_arena.web.settings import GameSpec, Settings


class CreateError(ValueError):
    """The creator's request cannot make a game; the message is safe to show."""


def agent_choices(settings: Settings) -> list[str]:
    """Bot specs a creator may pick: scripted presets and agent files under `agents/`."""
    if settings.allowed_agents is not None:
        return list(settings.allowed_agents)
    files = sorted(f"agents/{p.name}" for p in Path("agents").glob("*.toml"))
    return [*scripted_agent_names(), *files]


class GameManager:
    """All live sessions of one server (single event loop; no locking needed)."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.credentials = Credentials()
        self.games: dict[str, GameSession] = {}
        self.host_key = new_host_key()
        """Derives the bots' seat seeds; never leaves the server (web games replay from
        their logs' decisions, not from the bots' randomness)."""

    def create(self, spec: GameSpec) -> dict[str, Any]:
        """A new game in its lobby: ``{game_id, admin, invites: [{seat, invite}]}``."""
        self.prune()
        if len(self.games) >= self.settings.max_games:
            raise CreateError("too many games on this server; try again later")
        if spec.variant not in available_variants():
            raise CreateError(f"unknown variant {spec.variant!r}")
        try:
            variant = load_variant(spec.variant, spec.overrides)
        except VariantError as exc:
            raise CreateError(f"{exc.key}: {exc.reason}") from exc
        upper = variant.max_players
        if spec.players < variant.min_players or (upper is not None and spec.players > upper):
            raise CreateError(
                f"{variant.name} needs {variant.min_players}"
                + (f"-{upper}" if upper is not None else " or more")
                + " players"
            )
        try:
            deck(variant, spec.players)  # the composition must work at this player count
        except (VariantError, ValueError) as exc:
            raise CreateError(f"no valid deal for {spec.players} players: {exc}") from exc
        try:
            seats = spec.seat_list()
        except ValueError as exc:
            raise CreateError(str(exc)) from exc
        allowed = agent_choices(self.settings)
        for agent in {s.agent for s in seats if s.kind == "bot"} | {spec.replacement}:
            if agent not in allowed:
                raise CreateError(f"unknown or disallowed bot {agent!r}")
            try:
                make_agent(agent)
            except Exception as exc:
                raise CreateError(f"bot {agent!r} cannot be loaded") from exc
        if spec.seed is not None and not self.settings.chosen_seeds:
            raise CreateError("seed: this server draws every game's seed itself")
        game_id = secrets.token_urlsafe(12)
        seed = spec.seed if spec.seed is not None else secrets.randbelow(2**31)
        session = GameSession(game_id, spec, variant, seed, self.settings, self.host_key)
        self.games[game_id] = session
        invites = []
        for slot in session.slots:
            if slot.human:
                token = self.credentials.issue_invite(game_id, slot.seat)
                session.invites[slot.seat] = token
                invites.append({"seat": slot.seat, "invite": token})
        return {
            "game_id": game_id,
            "admin": self.credentials.issue_admin(game_id),
            "invites": invites,
        }

    def get(self, game_id: str) -> GameSession | None:
        return self.games.get(game_id)

    def join(self, session: GameSession, invite: str, name: str | None) -> tuple[int, str] | None:
        """Exchange an invite once: ``(seat, credential)``; the lobby starts when full."""
        if session.started:
            return None
        redeemed = self.credentials.redeem(session.id, invite)
        if redeemed is None:
            return None
        seat, credential = redeemed
        session.invites.pop(seat, None)
        session.claim(seat, name)
        if session.ready():
            self.start(session)
        return seat, credential

    def start(self, session: GameSession) -> None:
        self.credentials.revoke_invites(session.id)
        session.start()

    def grant(self, game_id: str, credential: str | None) -> Grant | None:
        return self.credentials.lookup(game_id, credential)

    def prune(self) -> None:
        """Forget finished games past their time-to-live."""
        now = time.monotonic()
        for game_id, session in list(self.games.items()):
            done = session.finished_at
            stale_lobby = not session.started and now - session.created > self.settings.finished_ttl
            if (done is not None and now - done > self.settings.finished_ttl) or stale_lobby:
                session.close_all()
                self.credentials.forget(game_id)
                del self.games[game_id]

    async def shutdown(self) -> None:
        for session in self.games.values():
            if session.task is not None:
                session.task.cancel()
            session.close_all()
