"""`GameManager`: the server's games, invites and credentials, kept in the live store.

Creating a game validates the creator's `GameSpec` against the variant (players in
range, switches valid, bot agents known and allowed), deals nothing yet, and returns
the creator's admin credential and one invite per human seat. Joining exchanges an
invite once for a seat credential. Finished games stay (for the reveal and replay) for
`Settings.finished_ttl` seconds, or until room is needed; at most `Settings.max_games`
unfinished games live at once.

Everything is written through to the live store (`web/db.py`); `restore` (run when the
server starts) rebuilds every lobby and live game from it, replaying their decisions.
Finished games stay browsable from the store (`finished`, a page at a time;
`finished_lobby`; `stored_log`), also after a restart, and their players may ask for
the rematch from them then too (`rematch_stored`).
"""

from __future__ import annotations

import logging
import re
import secrets
import stat
import threading
import time
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mafia_arena.agents.registry import make_agent, scripted_agent_names
from mafia_arena.rules import VariantError, available_variants, load_variant
from mafia_arena.rules.composition import deck
from mafia_arena.rules.expressions import ExpressionError, evaluate
from mafia_arena.runner.log import GameLog, load_traces
from mafia_arena.toml_file import TomlFileError, parse_toml, read_toml_text
from mafia_arena.views.rules_text import rules_text
from mafia_arena.web.auth import Credentials, Grant, SeatKeys
from mafia_arena.web.db import LiveStore, StoredGame
from mafia_arena.web.guard import ClientCounter
from mafia_arena.web.protocol import RateLimiter
from mafia_arena.web.session import GameSession
from mafia_arena.web.settings import GameSpec, SeatSpec, Settings

log = logging.getLogger(__name__)

MAX_RAISED = 10
"""The most a creator's switch may raise a number of the rules to (or the variant's own
value, where that is more): see `raised_too_far`."""


def raised_too_far(base: Any, switched: Any, players: int, path: str = "") -> str | None:
    """The first number of the rules (`path`, dotted) that the creator's switches raised
    past `MAX_RAISED` and past the variant's own value, else None. `base` and `switched`
    are the variant's dumps without and with the switches; a count written as a formula
    over `n` is compared by its value at `players` seats.

    Why: a switch counts rounds (talk rounds of a night, a day's discussion rounds,
    pick rounds, Palermo's moves, the rounds before a draw); a count in the millions made
    a game that never ends, whose driver wrote decisions to the live store without pause
    (megabytes a minute) and which a restarted server would replay in full. Numbers are
    compared after the switches are resolved, so a count given as text, as a formula
    (``"n*100000000"``) or through a dotted path is caught too."""
    if isinstance(switched, dict):
        for key, value in switched.items():
            below = base.get(key) if isinstance(base, dict) else None
            found = raised_too_far(below, value, players, f"{path}.{key}" if path else str(key))
            if found:
                return found
        return None
    if isinstance(switched, list | tuple):
        for i, value in enumerate(switched):
            below = base[i] if isinstance(base, list | tuple) and i < len(base) else None
            found = raised_too_far(below, value, players, f"{path}.{i}" if path else str(i))
            if found:
                return found
        return None
    value = _count_value(switched, players)
    if value is not None and switched != base:
        own = _count_value(base, players) or 0
        if value > max(MAX_RAISED, own):
            return f"{path}: at most {max(MAX_RAISED, own)} at this server"
    return None


def _count_value(value: Any, players: int) -> float | None:
    """A whole number as itself, a formula over `n` by its value at `players` seats,
    anything else (text, true/false, a formula over other names) None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            return evaluate(value, {"n": players})
        except ExpressionError:
            return None
    return None


class CreateError(ValueError):
    """The creator's request cannot make a game; the message is safe to show."""


class LimitError(CreateError):
    """The creator's address holds as many live games as the server allows, or has
    created as many as its budget allows for now (HTTP 429)."""


class CreationBudget:
    """How many games each client address may create: `burst` at once, then
    `per_hour`, one token bucket per address.

    Why: the cap on live games does not bound a visitor who creates games of bots
    alone, since each finishes within moments and frees its place; every one of them
    still costs the server a game's work and a stored record. Addresses whose bucket
    has refilled are forgotten, so the table stays as small as the recent creators."""

    def __init__(self, per_hour: float, burst: int) -> None:
        self.per_hour, self.burst = per_hour, burst
        self.buckets: dict[str, RateLimiter] = {}

    def spend(self, client: str) -> bool:
        """One creation for `client`, or False where its budget is spent."""
        self._forget_refilled()
        bucket = self.buckets.get(client)
        if bucket is None:
            bucket = self.buckets[client] = RateLimiter(self.per_hour / 3600.0, self.burst)
        return bucket.allow()

    def _forget_refilled(self) -> None:
        for client, bucket in list(self.buckets.items()):
            if bucket.refilled():
                del self.buckets[client]


def paid(path: Path) -> bool:
    """Whether an agent file spends money: an API key to read, or a remote server."""
    try:
        data = parse_toml(read_toml_text(path))
    except (OSError, TomlFileError, tomllib.TOMLDecodeError):
        return True  # unreadable (not UTF-8, a pipe that would stall the server): not offered
    base_url = str(data.get("base_url", "local"))
    return bool(data.get("api_key_env")) or base_url not in ("local", "")


_load_checks: dict[tuple[str, int, int], str | None] = {}
"""Why each agent file failed to load (None: it loads), by the file's absolute path,
modification time and size: a file is tried once per version (`load_failure`)."""
_load_lock = threading.Lock()


def load_failure(path: Path) -> str | None:
    """Why the agent file at `path` cannot make a bot (`make_agent`'s reason), or None
    when it can; a failure is logged, naming the file, once per version of the file.

    Why: a file that does not load was offered on the create form and refused only
    once a creator had picked it ("cannot be loaded"), with nothing telling the operator
    which file or why. A file's answer is kept until it changes: building a bot from it
    again on every look at the form would cost each request the loading of every file."""
    try:
        info = path.stat()
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if not stat.S_ISREG(info.st_mode):  # a pipe would stall the check until written to
        return "not a regular file"
    key = (str(path.resolve()), info.st_mtime_ns, info.st_size)
    with _load_lock:  # the start-up check runs in a worker thread (`create_app`)
        if key not in _load_checks:
            try:
                make_agent(f"agents/{path.name}")
                reason = None
            except Exception as exc:  # any failure to build the bot: left off the form
                reason = str(exc) or type(exc).__name__
                log.warning("agent file agents/%s left off the bot list: %s", path.name, reason)
            _load_checks[key] = reason
        return _load_checks[key]


def agent_choices(settings: Settings) -> list[str]:
    """Bot specs a creator may pick: the operator's list (`Settings.allowed_agents`), or
    else the scripted presets and the agent files under `agents/` that load
    (`load_failure`) — without those that spend an API key unless
    `Settings.allow_paid_bots`."""
    if settings.allowed_agents is not None:
        return list(settings.allowed_agents)
    files = sorted(
        f"agents/{p.name}"
        for p in Path("agents").glob("*.toml")
        if (settings.allow_paid_bots or not paid(p)) and load_failure(p) is None
    )
    return [*scripted_agent_names(), *files]


class GameManager:
    """All live sessions of one server (single event loop; no locking needed)."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.store = LiveStore(self.settings.db)
        self.credentials = Credentials(self.store)
        self.games: dict[str, GameSession] = {}
        self.sockets = ClientCounter(self.settings.max_sockets_per_client)
        self.creations = CreationBudget(
            self.settings.creations_per_hour, self.settings.creation_burst
        )
        self.host_key = self.store.host_key()
        """Derives the bots' seat seeds; never leaves the server. Kept in the live store,
        so a restarted server seats its bots with the same seeds (`web/catch_up.py`)."""

    def restore(self) -> None:
        """Rebuild the stored lobbies and live games (call on the server's event loop).

        A game whose variant no longer loads is left in the store and skipped (logged):
        one broken game must not keep the server from starting.
        """
        for row in self.store.games(over=False):
            try:
                spec = GameSpec.model_validate(row.spec)
                variant = load_variant(spec.variant, spec.overrides)
                session = GameSession(
                    row.id, spec, variant, row.seed, self.settings, self.host_key, self.store
                )
                session.restore_slots(row.slots)
                session.chat.restore(self.store.chat(row.id))
                if row.started:
                    session.resume(self.store.decisions(row.id))
                else:
                    self._reissue_invites(session)
            except Exception:
                log.exception("could not resume stored game %s", row.id)
                continue
            self.games[row.id] = session

    def _reissue_invites(self, session: GameSession) -> None:
        """A fresh invite for each free human seat of a restored lobby, for the
        creator's page.

        Why: the store keeps only token digests, so the links made at creation cannot be
        shown again. Those links keep working (the creator may have sent them already);
        whichever invite of a seat is exchanged first takes it, and `join` refuses the
        others, since a taken seat is never taken again through another invite."""
        for slot in session.slots:
            if slot.human and not slot.taken and slot.seat not in session.invites:
                session.invites[slot.seat] = self.credentials.issue_invite(session.id, slot.seat)

    def finished(self, limit: int = 50, before: str | None = None) -> list[dict[str, Any]]:
        """Finished games (public facts), newest first, for the browser of past games:
        one page of at most `limit`, after the game `before` when given
        (`LiveStore.finished`; raises `db.UnknownCursor` for an id it does not hold)."""
        return self.store.finished(limit, before)

    def finished_lobby(self, game_id: str) -> dict[str, Any] | None:
        """The lobby of a finished game the server no longer holds in memory (forgotten
        to make room, or from before a restart): its public facts from the store, with
        ``over`` and the address of its replay; None when the store holds no finished
        game of that id.

        Why: every link to a game (an invite, the creator's page, a seat's page) keeps
        working after the game is over, as its replay does; a bare "no such game" told
        the people who came back that their game was lost."""
        facts = self.store.finished_game(game_id)
        if facts is None:
            return None
        try:
            title = load_variant(str(facts["variant"])).title
        except VariantError:
            title = str(facts["variant"])
        return {
            **facts,
            "title": title,
            "started": True,
            "over": True,
            "failed": False,
            "replay": f"/replay/{game_id}",
            "rematch": self._held_rematch(game_id),
        }

    def _held_rematch(self, game_id: str) -> str | None:
        """The rematch made for `game_id` (`LiveStore.rematch_of`) while the server
        still holds it, else None: asking then makes a new one."""
        next_id = self.store.rematch_of(game_id)
        return next_id if next_id is not None and next_id in self.games else None

    def stored_log(self, game_id: str) -> GameLog | None:
        """A finished game's log from the store (also after a restart), with its
        decision traces when the trace file beside the stored log is there. A stored
        log that is not a readable log raises `runner.log_file.LogFileError`."""
        text = self.store.log_of(game_id)
        if not text:
            return None
        return GameLog.loads(text, game_id, self._traces_of(game_id))

    def _traces_of(self, game_id: str) -> list[dict[str, Any]]:
        """The decision traces beside a game's stored log; none where the file is
        missing, unreadable or damaged (`runner.log_file`: the replay is still served,
        without traces; the reason goes to the server's log, not to the page)."""
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", game_id):
            return []
        try:
            return load_traces(self.settings.logs_dir / f"{game_id}.jsonl")
        except (OSError, ValueError) as exc:
            log.warning("the decision traces of game %s are left out: %s", game_id, exc)
            return []

    def create(self, spec: GameSpec, client: str = "") -> dict[str, Any]:
        """A new game in its lobby: ``{game_id, admin, invites: [{seat, invite}]}``.

        `client` (the creator's address) may hold `Settings.max_games_per_client` live
        games at once and create `Settings.creation_burst` games at once, then
        `Settings.creations_per_hour` (`CreationBudget`: a valid request spends it); a
        seed may be chosen only where `Settings.chosen_seeds`."""
        self.prune()
        mine = [g for g in self.games.values() if g.creator == client and g.finished_at is None]
        if len(mine) >= self.settings.max_games_per_client:
            raise LimitError(
                f"you already have {len(mine)} live games on this server "
                f"(at most {self.settings.max_games_per_client}); finish one first"
            )
        if not self._room_for_one():
            raise LimitError("too many games on this server; try again later")
        if spec.variant not in available_variants():
            raise CreateError(f"unknown variant {spec.variant!r}")
        try:
            base = load_variant(spec.variant)
        except VariantError as exc:
            raise CreateError(f"{exc.key}: {exc.reason}") from exc
        try:
            variant = load_variant(spec.variant, spec.overrides) if spec.overrides else base
        except VariantError as exc:  # the bundled variant loads: the switches are to blame
            switches = ", ".join(map(repr, spec.overrides))
            raise CreateError(f"{exc.key}: {exc.reason} (from the switches {switches})") from exc
        if spec.overrides:
            too_far = raised_too_far(base.model_dump(), variant.model_dump(), spec.players)
            if too_far:
                raise CreateError(too_far)
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
            rules_text(variant, spec.players)  # what every page shows: it must be sayable
        except (ValueError, ArithmeticError) as exc:
            # a number of the rules that cannot be told (1e308 as a share of the seats)
            raise CreateError(f"these switches make rules that cannot be stated: {exc}") from exc
        try:
            seats = spec.seat_list()
        except ValueError as exc:
            raise CreateError(str(exc)) from exc
        allowed = agent_choices(self.settings)
        if spec.replacement not in scripted_agent_names() and spec.replacement not in allowed:
            raise CreateError(f"unknown or disallowed stand-in bot {spec.replacement!r}")
        for agent in {s.agent for s in seats if s.kind == "bot"} | {spec.replacement}:
            if agent not in allowed and agent != spec.replacement:
                raise CreateError(f"unknown or disallowed bot {agent!r}")
            try:
                make_agent(agent)
            except Exception as exc:
                raise CreateError(f"bot {agent!r} cannot be loaded") from exc
        if spec.seed is not None and not self.settings.chosen_seeds:
            raise CreateError("seed: this server draws every game's seed itself")
        if not self.creations.spend(client):
            raise LimitError(
                f"you have created {self.settings.creation_burst} games in a short time; "
                f"this server allows {self.settings.creations_per_hour:g} an hour after "
                "that, so try again in a few minutes"
            )
        game_id = secrets.token_urlsafe(12)
        seed = spec.seed if spec.seed is not None else secrets.randbelow(2**31)
        session = GameSession(
            game_id, spec, variant, seed, self.settings, self.host_key, self.store
        )
        session.creator = client
        self.store.add_game(game_id, spec.model_dump(mode="json"), seed)
        self.games[game_id] = session
        invites = []
        for slot in session.slots:
            if slot.human:
                token = self.credentials.issue_invite(game_id, slot.seat)
                session.invites[slot.seat] = token
                invites.append({"seat": slot.seat, "invite": token})
        session.watch = self.credentials.issue_watch(game_id)
        return {
            "game_id": game_id,
            "admin": self.credentials.issue_admin(game_id),
            "invites": invites,
            "watch": session.watch,
        }

    def get(self, game_id: str) -> GameSession | None:
        return self.games.get(game_id)

    def join(
        self, session: GameSession, invite: str, name: str | None, device: str
    ) -> SeatKeys | None:
        """Exchange an invite for seat keys; the lobby starts when full.

        The first exchange takes the seat and binds the invite to `device`; the same
        device may exchange it again at any time (its tab was closed), any other is
        refused. A new seat cannot be taken once the game has started, nor a taken seat
        through another of its invites (`_reissue_invites`)."""
        again = self.credentials.invite_used(session.id, invite)
        if session.started and not again:
            return None
        seat = self.credentials.invite_seat(session.id, invite)
        if not again and seat is not None and session.slots[seat].taken:
            return None  # another invite of that seat took it (a restored lobby's)
        if not again and seat is not None and name is not None:
            session.check_name_free(seat, name)
        keys = self.credentials.redeem(session.id, invite, device)
        if keys is None:
            return None
        if not again:
            session.invites.pop(keys.seat, None)
            session.claim(keys.seat, name)
            if session.ready():
                self.start(session)
        return keys

    def resume(self, session: GameSession, token: str) -> SeatKeys | None:
        """A seat's resume link, opened on another device: fresh keys for that seat."""
        return self.credentials.resume(session.id, token)

    def rematch(
        self, session: GameSession, seat: int, device: str
    ) -> tuple[GameSession, SeatKeys | None]:
        """The same group again, in a new game with the same settings and seating (the
        seats bots took stay bots) and a new seed: the first player to ask makes it,
        every player who asks takes their own seat there under the same name, and it
        starts once every person is back (or the creator starts it)."""
        if not session.over:
            raise CreateError("a rematch can be asked for once the game is over")
        new = self.games.get(session.rematch) if session.rematch else None
        if new is None:
            spec = session.spec.model_copy(
                update={"seed": None, "seats": [slot.spec for slot in session.slots]}
            )
            created = self.create(spec, session.creator)
            new = self.games[created["game_id"]]
            session.rematch = new.id
            session.rematch_invites = {i["seat"]: i["invite"] for i in created["invites"]}
            self.store.set_rematch(session.id, new.id)
            session.push_all()  # every page offers to join it
        invite = session.rematch_invites.get(seat)
        keys = self.join(new, invite, session.slots[seat].name, device) if invite else None
        return new, keys

    def rematch_stored(
        self, row: StoredGame, seat: int, device: str, client: str
    ) -> tuple[GameSession, SeatKeys | None]:
        """`rematch` for a finished game the server holds only in its store (after a
        restart, or forgotten to make room): the same seating, names and settings from
        its stored row, and the rematch its table already made (`LiveStore.rematch_of`)
        while that game is still held. `seat` must be a person's seat of `row`.

        The asker's seat there: through its invite while it is free; once taken, again
        for the device that took it (`Credentials.device_keys`), as asking twice before
        the restart gave. `client` (the asker's address) stands for the creator's,
        which the store does not keep, in the per-client limits of a new rematch."""
        next_id = self._held_rematch(row.id)
        new = self.games.get(next_id) if next_id else None
        if new is None:
            try:
                stored = GameSpec.model_validate(row.spec)
            except ValidationError:  # stored by an older server, no longer a valid spec
                raise CreateError("this game's settings cannot make a game any more") from None
            spec = stored.model_copy(
                update={
                    "seed": None,
                    "seats": [SeatSpec(kind=s["kind"], agent=s["agent"]) for s in row.slots],
                }
            )
            new = self.games[self.create(spec, client)["game_id"]]
            self.store.set_rematch(row.id, new.id)
        name = str(row.slots[seat]["name"])
        invite = new.invites.get(seat)
        if invite is not None:
            return new, self.join(new, invite, name, device)
        return new, self.credentials.device_keys(new.id, seat, device)

    def start(self, session: GameSession) -> None:
        self.credentials.revoke_invites(session.id)
        session.start()

    def grant(self, game_id: str, credential: str | None) -> Grant | None:
        return self.credentials.lookup(game_id, credential)

    def stored_over(self, game_id: str) -> StoredGame | None:
        """A finished game the server holds only in its store (not in memory), else None."""
        if game_id in self.games:
            return None
        row = self.store.game(game_id)
        return row if row is not None and row.over else None

    def prune(self) -> None:
        """Forget finished games past their time-to-live."""
        now = time.monotonic()
        for session in list(self.games.values()):
            done = session.finished_at
            stale_lobby = not session.started and now - session.created > self.settings.finished_ttl
            if (done is not None and now - done > self.settings.finished_ttl) or stale_lobby:
                self._forget(session)

    def _room_for_one(self) -> bool:
        """Whether one more game fits under `Settings.max_games`, forgetting the
        longest-finished games (they stay browsable from the store) to make room.

        Only unfinished games (lobbies and games in play) can fill the server. Why: a
        game of bots alone finishes at once, so if finished games counted, one visitor
        creating such games (three at a time, within their own limit) could fill the
        server in seconds and refuse every other creator until the finished games' time
        to live ran out."""
        done = sorted(
            (s for s in self.games.values() if s.finished_at is not None),
            key=lambda s: s.finished_at or 0.0,
        )
        while len(self.games) >= self.settings.max_games and done:
            self._forget(done.pop(0))
        return len(self.games) < self.settings.max_games

    def _forget(self, session: GameSession) -> None:
        """Drop a game from memory with its credentials; a lobby also from the store
        (a finished game stays browsable)."""
        session.close_all()
        self.credentials.forget(session.id)
        if not session.started:
            self.store.forget(session.id)
        self.games.pop(session.id, None)

    async def shutdown(self) -> None:
        for session in self.games.values():
            if session.task is not None:
                session.task.cancel()
            session.close_all()
        self.store.close()
