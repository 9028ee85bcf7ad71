"""Server settings, timers and the validated request to create a game.

Timers depend only on the request kind (``speak``, ``vote``, ``night:<step>``, …), never
on the roles in play, the roles alive or who is asked. Why: a timer that is longer for a
doctor's pick than for a villager's nothing, or that shrinks once the detective is dead,
would tell every player who holds which card. The same rule holds for bot pacing (a
fixed delay per decision, with role-independent jitter) and for the night, which runs
on public slots of public lengths (`web/night_pace.py`), so a night with dead power
roles or quick actors does not end sooner.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from mafia_arena.agents.look_alikes import look_alike_key
from mafia_arena.agents.speaker_tags import VOICES
from mafia_arena.whole_numbers import MAX_SEED

#: Seconds a seat has to answer, by request kind (scaled by `Settings.timer_scale`).
TIMERS: dict[str, float] = {
    "speak": 90.0,
    "plea": 60.0,
    "night_chat": 60.0,
    "describe": 45.0,
    "nominate": 30.0,
    "vote": 45.0,
    "final_vote": 45.0,
    "last_dead": 30.0,
}
NIGHT_TIMER = 45.0  # every ``night:<step>`` request
DEFAULT_TIMER = 60.0  # kinds added later by other variants

MAX_PLAYERS = 40
NAME_PATTERN = r"^[\w .'-]{1,24}$"
_SEAT_LABEL = re.compile(r"p\s*\d+", re.IGNORECASE)
_BOT_NAME = re.compile(r".*\bbot", re.IGNORECASE)
_GUEST_NAME = re.compile(r"guest\s*\d+", re.IGNORECASE)
#: The names under which words read as the game's (`agents.speaker_tags.VOICES`).
_VOICE_NAME = re.compile(r"(?:the\s+)?(?:" + VOICES + ")", re.IGNORECASE)
"""What a person's seat is called until they name it (`GameSession`: "guest 3")."""


def player_name(value: str | None) -> str | None:
    """A name a person gives their seat, trimmed; None (the seat's "guest n") for none.

    Compatibility forms are folded (NFKC: fullwidth letters and digits, ligatures).
    Raises ValueError with the reason the page shows. Why the refusals: the table writes
    "Ada (P3)" and marks a bot by the word "bot" after its name, so a person called "P2"
    or "heuristic bot" would read as another seat or as a bot, one called "guest 3" as
    the seat P3 before its person named it, and one called "Host" or "Moderator" as the
    game itself (in the table chat: "Host (P2): ...")."""
    if value is None or not value.strip():
        return None
    # compatibility forms folded first: a fullwidth "Ａda" or "Ｐ3" is the "Ada" or "P3"
    # it looks like, so the checks below and the table's "taken" check see it as such
    name = " ".join(unicodedata.normalize("NFKC", value).split())
    if not re.fullmatch(NAME_PATTERN, name):
        raise ValueError("a name is 1 to 24 letters, digits, spaces, dots, apostrophes or hyphens")
    # a Cyrillic "Р2" reads as the seat label P2; "P3." or "random bot'" read as what
    # they end in, so the punctuation a name may have around it is left out of the checks
    looks_like = look_alike_key(name).strip(" .'-")
    if _SEAT_LABEL.fullmatch(looks_like):
        raise ValueError(f"{name!r} is a seat's label; choose a name")
    if _BOT_NAME.fullmatch(looks_like):
        raise ValueError("a name cannot end in 'bot': the table marks its bots that way")
    if _VOICE_NAME.fullmatch(looks_like):
        raise ValueError(f"{name!r} would read as the game speaking; choose a name")
    if _GUEST_NAME.fullmatch(looks_like):
        # another seat may still be called that: a rematch, which seats each person
        # under their name while the others' seats are still "guest n", failed on it
        raise ValueError(f"{name!r} is what a seat without a name is called; choose a name")
    return name


def timer_for(kind: str, scale: float = 1.0) -> float:
    """The answer time for a request kind: a pure function of `kind` (and the scale)."""
    base = NIGHT_TIMER if kind.startswith("night:") else TIMERS.get(kind, DEFAULT_TIMER)
    return base * scale


@dataclass
class Settings:
    """Knobs of one server. Tests use `bot_delay=0` and short timers.

    - `bot_delay`: seconds a bot waits before answering (×0.5–1.5 jitter), so humans can
      follow; 0 disables pacing (a night without patient players then takes no time).
    - `fixed_nights`: every night runs on its public slots (`web/night_pace.py`), so
      its length and the times its prompts open are the same whoever holds the cards.
      Off, a night ends as soon as its actors have answered — which shows who acts at
      night; only for tests that play many games with people.
    - `solo_nights`: a person alone with scripted bots waits at night only for their
      own slots (`web/night_pace.py`, solo nights); the night's length then shows
      nothing to anyone but them. Off, every patient night lasts its full timers.
    - `timer_scale`: multiplies every `TIMERS` entry.
    - `grace`: seconds a disconnected human keeps the seat before the creator's absence
      policy (a flagged bot, or default actions) takes it over.
    - `idle_turns`: day turns in a row a connected person may let run out before a
      stand-in takes the seat (each miss before that is a warning). Only day requests
      count — every living seat gets them — so a replacement never shows who was asked
      something at night; nor do forum windows of a variant with its own inactivity
      rule (dictator), where the engine's warnings apply instead.
    - `db`: the live store (SQLite, `web/db.py`): every game's seats, tokens and
      decisions as they happen, so a restarted server resumes its live games; None keeps
      it in memory (nothing survives a restart).
    - hardening: `max_body` bytes per request body, `max_json_depth` nesting in any
      JSON (bodies and socket frames, checked before parsing), `max_games_per_client`
      live games per creating address, `creation_burst` games an address may create at
      once and `creations_per_hour` after that (games of bots alone finish at once, so
      the live-games cap alone does not bound them), `max_sockets_per_client` open
      sockets per address (a seat is played from one page, its newest:
      `GameSession.attach`), `max_spectators` watching pages per game;
      `request_timeout` seconds to send a whole request (request line, headers, body;
      408 after) and
      `max_connections_per_client` open HTTP connections per address (429), held in
      the server's protocol (`web/connections.py`): uvicorn itself waits for a slow
      request forever;
      `keep_alive` seconds an idle HTTP connection is kept open after its last answer
      for the client's next request (uvicorn's keep-alive timeout; closed after). Why 5:
      the page's HTTP traffic comes in bursts (its files, a click's request, the
      creator's lobby polled every 2 s) and then moves to its websocket, which this
      does not touch; each idle connection holds a place in its address's
      `max_connections_per_client` and a file descriptor, and a browser keeps one
      open as long as the server lets it (a minute or more), so people behind one
      address would fill its places with connections nobody uses. Reopening one costs
      a round trip;
      `allow_paid_bots`: whether creators may seat bots that spend an API key (agent
      files with ``api_key_env`` or a remote ``base_url``) — off unless the operator
      turns it on, or lists them in `allowed_agents`; `chosen_seeds` (below).
    - `results_dir` / `logs_dir`: where finished games go (results record JSONL / GameLog
      JSONL, one file per game) — kept apart so a leaderboard reading every ``*.jsonl``
      under the results folder never meets a game log.
    """

    bot_delay: float = 1.5
    fixed_nights: bool = True
    solo_nights: bool = True
    timer_scale: float = 1.0
    grace: float = 120.0
    idle_turns: int = 2
    results_dir: Path = field(default_factory=lambda: Path("results/web"))
    logs_dir: Path = field(default_factory=lambda: Path("runs/web"))
    db: Path | None = field(default_factory=lambda: Path("runs/web/live.sqlite"))
    max_games: int = 50
    finished_ttl: float = 3600.0
    auth_timeout: float = 10.0
    rate_per_s: float = 5.0
    rate_burst: float = 20.0
    max_frame: int = 16_384
    max_body: int = 65_536
    max_json_depth: int = 32
    max_games_per_client: int = 3
    creation_burst: int = 20
    creations_per_hour: float = 120.0
    max_sockets_per_client: int = 16
    max_spectators: int = 50
    """Spectators' pages per game (the watch link can be passed around)."""
    request_timeout: float = 10.0
    max_connections_per_client: int = 32
    """Open HTTP connections per address; a browser keeps about 6 per server."""
    keep_alive: float = 5.0
    """Seconds an idle HTTP connection waits for its next request before it is closed."""
    allow_paid_bots: bool = False
    allowed_agents: tuple[str, ...] | None = None  # None: scripted presets + agents/*.toml
    chosen_seeds: bool = False
    """Whether a creator may set `GameSpec.seed` (demos, tests). Off: the server draws
    every seed, so nobody at the table can know the deal from it."""


class SeatSpec(BaseModel):
    """One seat at creation: a human (gets an invite) or a bot (an agent spec)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["human", "bot"]
    agent: str = Field("random", max_length=200)


class GameSpec(BaseModel):
    """The creator's request. Checked again against the variant in `GameManager.create`.

    `seed` is refused unless the server allows chosen seeds (`Settings.chosen_seeds`);
    either way it stays secret until the game ends (it determines the deal).
    `absent`: what takes over a seat whose human is gone past the grace period (or idle
    for `Settings.idle_turns` day turns): ``bot`` — a stand-in bot (`replacement`, by
    default the scripted ``heuristic`` player), labelled as a stand-in on every page and
    in the log — or ``default`` actions.
    """

    model_config = ConfigDict(extra="forbid")

    variant: str = Field("standard", max_length=64, pattern=r"^[a-z0-9_-]+$")
    players: int = Field(7, ge=3, le=MAX_PLAYERS)
    seats: list[SeatSpec] = Field(default_factory=list, max_length=MAX_PLAYERS)
    overrides: dict[str, int | float | bool | str] = Field(default_factory=dict, max_length=32)
    seed: int | None = Field(None, ge=0, le=MAX_SEED)
    absent: Literal["bot", "default"] = "bot"
    replacement: str = Field("heuristic", max_length=200)
    bot_delay: float | None = Field(None, ge=0, le=30)
    timer_scale: float | None = Field(None, gt=0, le=10)

    @field_validator("overrides")
    @classmethod
    def _short_overrides(cls, value: dict[str, object]) -> dict[str, object]:
        for key, item in value.items():
            if len(key) > 64 or (isinstance(item, str) and len(item) > 64):
                raise ValueError("override keys and values are at most 64 characters")
            if isinstance(item, float) and not math.isfinite(item):
                # Python's JSON parser takes NaN and Infinity; the rules text cannot
                # say them (a 500 on creating), and no JSON reply could carry them
                raise ValueError(f"{key}: a switch's number must be finite")
        return value

    def seat_list(self) -> list[SeatSpec]:
        """Exactly `players` seats: given ones first, bots fill the rest."""
        if len(self.seats) > self.players:
            raise ValueError(f"{len(self.seats)} seats for {self.players} players")
        fill = [
            SeatSpec(
                kind="bot",
                agent=self.seats[-1].agent
                if self.seats and self.seats[-1].kind == "bot"
                else "random",
            )
        ]
        return list(self.seats) + fill * (self.players - len(self.seats))


class JoinRequest(BaseModel):
    """Exchange of an invite token for a session credential."""

    model_config = ConfigDict(extra="forbid")

    invite: str = Field(min_length=10, max_length=128)
    name: str | None = Field(None, max_length=200)

    @field_validator("name")
    @classmethod
    def _readable(cls, value: str | None) -> str | None:
        return player_name(value)


class InviteRequest(BaseModel):
    """An invite token, to learn its seat before taking it."""

    model_config = ConfigDict(extra="forbid")

    invite: str = Field(min_length=10, max_length=128)


class RulingRequest(BaseModel):
    """A moderator's ruling from the game's creator (`Game.moderate`): its kind, the seat
    it concerns, and the reason (a warning's words, a post's number to disregard)."""

    model_config = ConfigDict(extra="forbid")

    kind: str = Field(min_length=1, max_length=20, pattern=r"^[a-z_]+$")
    seat: int = Field(ge=0, lt=MAX_PLAYERS)
    value: str = Field("", max_length=300)


class ResumeRequest(BaseModel):
    """A resume token (from a seat's resume link) for a fresh seat credential."""

    model_config = ConfigDict(extra="forbid")

    resume: str = Field(min_length=10, max_length=128)
