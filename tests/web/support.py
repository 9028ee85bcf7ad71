"""Test support for the web app: a live uvicorn server, an autopilot player, leak checks.

`LiveServer` runs `create_app(settings)` in a thread on a free port; tests read the
game's true state from `server.manager` (only after a game is over, or for reading
counters), never through the app. `autopilot` plays one human seat over a real
websocket with random legal choices and records every message it receives.
`check_no_leaks` compares those messages with the true log.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn
import websockets

from mafia_arena.engine.catalogue import RoleChange, RoleDealt
from mafia_arena.engine.game import Game
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.people_text import people_line
from mafia_arena.web import Settings, create_app
from mafia_arena.web.app import server_options
from mafia_arena.web.manager import GameManager

HTTP_TIMEOUT = 60.0
"""Seconds a test gives a request to the live server, a socket's opening handshake, or
a message it waits for on a socket, to be answered: the helpers here (`recv_until`'s
default among them) and every test's own httpx call or client and ``websockets.connect``
under tests/web, which pass it rather than a shorter number of their own or none
(httpx's own default is 5 s, websockets' 10 s). A test that checks a timeout itself
keeps its own value, and says so.

Why so long: the server answers from the test's own process, on a thread that shares
the interpreter with the test's clients, and a bot that thinks holds the server's loop
while it does. On a loaded 2-core machine a join that started a game with the deal
reader of tests/deal_reader.py (it tries 100,001 seeds at its first turn) took over
10 s, and a Palermo game's view, polled beside its autopilots in test_leaks.py, over
5 s: each failed with a read timeout. A server that never answers still fails the
request, and each test's own timeout bounds the whole."""


class LiveServer:
    """The app on 127.0.0.1:<free port>, served from a background thread."""

    def __init__(self, settings: Settings) -> None:
        self.app = create_app(settings)
        self.manager: GameManager = self.app.state.manager
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        config = uvicorn.Config(
            self.app, log_level="warning", lifespan="on", **server_options(settings)
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + HTTP_TIMEOUT  # a hang guard, as for a request
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("server did not start")
            time.sleep(0.02)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)

    # ------------------------------------------------------------------ helpers
    def create(self, **spec: Any) -> dict[str, Any]:
        response = httpx.post(f"{self.url}/api/games", json=spec, timeout=HTTP_TIMEOUT)
        assert response.status_code == 200, response.text
        return response.json()

    def join(self, game_id: str, invite: str, name: str | None = None) -> dict[str, Any]:
        response = httpx.post(
            f"{self.url}/api/games/{game_id}/join",
            json={"invite": invite, "name": name},
            timeout=HTTP_TIMEOUT,
        )
        assert response.status_code == 200, response.text
        return response.json()

    def game(self, game_id: str) -> Game:
        session = self.manager.get(game_id)
        assert session is not None and session.game is not None
        return session.game

    def wait_over(self, game_id: str, timeout: float = 60) -> Game:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            session = self.manager.get(game_id)
            if session is not None and session.stored is not None:
                return self.game(game_id)
            time.sleep(0.05)
        raise TimeoutError("game did not finish")


@dataclass
class Played:
    """What one autopilot seat received: raw frames and the decoded messages."""

    seat: int
    raw: list[str] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def receive(self, raw: str | bytes) -> dict[str, Any]:
        """Record one frame (raw, decoded, and its reason if it is an error); the message."""
        self.raw.append(str(raw))
        msg: dict[str, Any] = json.loads(raw)
        self.messages.append(msg)
        if msg["type"] == "error":
            self.errors.append(msg["reason"])
        return msg


class SendPace:
    """A client-side token bucket that keeps a page's frames within the server's limit.

    The server reads `Settings.rate_per_s` frames a second per page after a burst of
    `Settings.rate_burst` (`web/ws.py`) and drops the rest, answering each dropped
    frame with "slow down". A dropped answer leaves its turn open until the page
    answers again or the turn's timer runs out (a minute for a forum window), and a
    retry sent at once on the reply is dropped too. A person never answers that fast; the
    autopilot answers at once, and a forum game asks a seat dozens of times within a
    second or two: unpaced, the whole table would wait out a full timer, and two such
    waits outlast the autopilot's timeout.

    `wait` returns once a frame may go. The bucket runs at `share` of the server's
    rate and burst: the server's own bucket starts later (after the credential) and
    may read frames in a bunch, and the margin keeps every paced frame within it.
    """

    def __init__(
        self,
        rate: float = Settings.rate_per_s,
        burst: float = Settings.rate_burst,
        share: float = 0.75,
    ) -> None:
        self.rate, self.burst = rate * share, burst * share
        self.tokens = self.burst
        self.stamp = time.monotonic()

    async def wait(self) -> None:
        """Wait until the bucket holds a frame, then take it."""
        while True:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now
            if self.tokens >= 1:
                self.tokens -= 1
                return
            await asyncio.sleep((1 - self.tokens) / self.rate)


async def autopilot(
    ws_url: str,
    game_id: str,
    credential: str,
    seat: int,
    seed: int,
    *,
    speak_ratio: float = 0.3,
    timeout: float = 120,
    text: str = "seat {seat} thinks <b>out loud</b> #{n}",
    chat: bool = False,
) -> Played:
    """Play a human seat over the websocket until the game is over; record everything.

    With `chat`, the seat also tries the dead chat once while alive (refused) and
    writes there once dead. Every frame after the credential is paced (`SendPace`) so
    that the server's rate limit never drops one."""
    rng = random.Random(seed)
    pace = SendPace()
    played = Played(seat)
    answered: int | None = None
    tried = wrote = False
    async with websockets.connect(
        f"{ws_url}/ws/{game_id}", max_size=2**24, open_timeout=HTTP_TIMEOUT
    ) as ws:
        await ws.send(json.dumps({"type": "auth", "credential": credential}))
        async with asyncio.timeout(timeout):
            async for raw in ws:
                msg = played.receive(raw)
                if msg["type"] == "error":
                    if msg.get("about") == "chat":
                        continue
                    if "server error" in msg["reason"]:
                        raise RuntimeError(msg["reason"])
                    answered = None  # try again with a choice
                if msg["type"] != "state" and msg["type"] != "error":
                    continue
                last = next((m for m in reversed(played.messages) if m["type"] == "state"), None)
                if last is None:
                    continue
                if last["over"]:
                    break
                alive = last["you"]["alive"]
                if chat and (not tried if alive else not wrote):
                    tried, wrote = True, wrote or not alive
                    words = f"P{seat + 1} {'alive' if alive else 'dead'} #{rng.randrange(99)}"
                    await pace.wait()
                    await ws.send(json.dumps({"type": "chat", "channel": "dead", "text": words}))
                request = last["request"]
                if request is None or request["turn"] == answered:
                    continue
                answered = request["turn"]
                if request["free_text"] and rng.random() < speak_ratio and msg["type"] != "error":
                    said = text.format(seat=seat + 1, n=rng.randrange(99))
                    await pace.wait()
                    await ws.send(json.dumps({"type": "say", "turn": answered, "text": said}))
                else:
                    choice = rng.randrange(len(request["options"]))
                    await pace.wait()
                    await ws.send(json.dumps({"type": "act", "turn": answered, "choice": choice}))
    return played


async def spectate(ws_url: str, game_id: str, watch: str, timeout: float = 120) -> Played:
    """Watch a game through its watch token until it is over; write in the spectators'
    chat once and try the dead chat once (refused). Records everything received."""
    played = Played(-1)
    async with websockets.connect(
        f"{ws_url}/ws/{game_id}", max_size=2**24, open_timeout=HTTP_TIMEOUT
    ) as ws:
        await ws.send(json.dumps({"type": "auth", "credential": watch}))
        await ws.send(json.dumps({"type": "chat", "channel": "spectators", "text": "hi all"}))
        await ws.send(json.dumps({"type": "chat", "channel": "dead", "text": "let me in"}))
        async with asyncio.timeout(timeout):
            async for raw in ws:
                msg = played.receive(raw)
                if msg.get("type") == "state" and msg["over"]:
                    break
    return played


def check_chat(messages: list[dict[str, Any]], spectator: bool) -> int:
    """Assert that a page got table chat only where it belongs; return lines checked.

    Before the end a living seat gets no chat message at all, a dead seat only the dead
    chat (after the state that told it of its death), a spectator only theirs."""
    alive, over, checked = True, False, 0
    for msg in messages:
        if msg.get("type") == "state":
            over = bool(msg["over"])
            alive = not spectator and bool(msg["you"]["alive"])
        if msg.get("type") != "chat" or over:
            continue
        assert not alive, "a living seat was sent table chat"
        for line in msg["lines"]:
            assert line["channel"] == ("spectators" if spectator else "dead"), line
            checked += 1
    return checked


def assert_no_empty_pushes(messages: list[dict[str, Any]]) -> None:
    """Consecutive pushed states differ in more than the countdown.

    Why: an empty push is observable; one per hidden night step would count them.
    """

    def content(msg: dict[str, Any]) -> str:
        request = msg.get("request")
        request = request and {k: v for k, v in request.items() if k != "seconds_left"}
        return json.dumps({**msg, "request": request, "reset": None, "lines": None}, sort_keys=True)

    states = [m for m in messages if m.get("type") == "state"]
    for before, after in itertools.pairwise(states):
        assert after["lines"] or content(before) != content(after), "a push carried nothing"


def _true_allies(game: Game, seat: int) -> set[int]:
    card = game.state.seats[seat].card
    known = set(game.variant.roles[card].knows_roles)
    return {s.seat for s in game.state.seats if s.card in known and s.seat != seat}


_DEATH_CARD = re.compile(r"(?:^|\] )P(\d+) (?:was|died).*Role: (.+)\.$")
_CARD_SHOWN = re.compile(r"P(\d+)'s card: ([^.]+)\.")


def role_ids(game: Game) -> dict[str, str]:
    """The role id each role word of a line stands for: every id as itself, and each
    readable name the lines write (`DisplayNames.of`, the variant's public rule data:
    "Known Mafioso A") as its id, so a shown card compares with the true card (an id).

    Refuses a variant whose names are ambiguous (two roles with one name, or a name
    that is another role's id): the check could not tell which card a line shows."""
    ids = {role: role for role in game.variant.roles}
    for role, shown in DisplayNames.of(game.variant).roles.items():
        assert ids.get(shown, role) == role, f"the role name {shown!r} is ambiguous"
        ids[shown] = role
    return ids


def cards_shown(
    line: str, public_reveals: dict[str, set[tuple[int, str]]], ids: dict[str, str]
) -> set[tuple[int, str]]:
    """The (seat, role id) pairs a received line makes public: a death with its card, a
    shown card, or a public event that carries the card (a Palermo state change). A
    line writes a role by its readable name where the variant gives one; `ids`
    (`role_ids`) maps it back. A word that is no role stays as it is, and then matches
    no true card, so an unreadable line never passes for a reveal."""
    pairs = set(public_reveals.get(line, ()))
    if match := _DEATH_CARD.search(line):
        pairs.add((int(match.group(1)) - 1, ids.get(match.group(2), match.group(2))))
    pairs.update((int(n) - 1, ids.get(card, card)) for n, card in _CARD_SHOWN.findall(line))
    return pairs


def check_no_leaks(
    game: Game, seat: int, messages: list[dict[str, Any]], secrets_: list[str]
) -> int:
    """Assert `messages` to `seat` hold nothing hidden from it; return lines checked.

    - no credential, invite or admin token (`secrets_`), and no seed before the end;
    - no rendering of an event that does not admit the seat (other channels' picks,
      other seats' night results, host decisions and draws);
    - a role shown for another seat is true, and allowed: an ally (the seat's card
      knows that role) or already revealed by a public line the seat has received.

    `seat` -1 checks a spectator: public lines only, no ally, no card of its own.

    Lines are rendered as the server writes them (`people_line`: the lines people
    read), roles and cards by the variant's readable names (`DisplayNames.of`), and a
    role a line shows is read back to its id (`role_ids`) before it is compared with
    the true cards.
    """
    names = DisplayNames.of(game.variant)
    ids = role_ids(game)

    def render(event: Any) -> str | None:
        return people_line(event, seat, names, game.variant)

    admitted = {render(e) for e in game.events if e.visibility.admits(seat)}
    hidden = {render(e) for e in game.events if not e.visibility.admits(seat)} - admitted - {None}
    allies = _true_allies(game, seat) if seat >= 0 else set()  # -1: a spectator
    public_reveals: dict[str, set[tuple[int, str]]] = {}  # a public line naming a card
    for e in game.events:  # (a Palermo state change that shows it, say) -> (seat, card)
        shown = getattr(e.fact, "role", None)
        if (
            e.visibility.scope == "public"
            and shown
            and isinstance(getattr(e.fact, "seat", None), int)
        ):
            text = render(e)
            if text:
                public_reveals.setdefault(text, set()).add((e.fact.seat, shown))  # type: ignore[attr-defined]
    told = {  # the roles the seat's own stream gave it (a dark past is told "citizen")
        e.fact.role
        for e in game.events
        if isinstance(e.fact, RoleDealt | RoleChange)
        and e.fact.seat == seat
        and e.visibility.admits(seat)
    }
    cards = {s.seat: s.card for s in game.state.seats}
    seen: set[str] = set()
    shown_so_far: set[tuple[int, str]] = set()  # (seat, card) pairs public lines showed
    checked = 0
    for msg in messages:
        blob = json.dumps(msg)
        for secret in secrets_:
            assert secret not in blob, f"credential leaked to seat {seat}"
        assert '"decision"' not in blob and '"rng"' not in blob
        if msg.get("type") != "state":
            continue
        over = bool(msg.get("over"))
        if not over:
            assert not re.search(r'"seed"', blob), "seed leaked before the end"
        for line in msg.get("lines", []):
            text = line["text"].replace(" (stand-in)", "")  # a stand-in's move, tagged
            assert text not in hidden, f"hidden line to seat {seat}: {line['text']}"
            assert text in admitted, f"unknown line to seat {seat}: {line['text']}"
            if line["text"] not in seen:
                seen.add(line["text"])
                shown_so_far.update(cards_shown(line["text"], public_reveals, ids))
            checked += 1
        for player in msg.get("players", []):
            other, role = player["seat"], player.get("role")
            if role is None or other == seat:
                continue
            assert role == cards[other], f"wrong role shown for P{other + 1}"
            revealed = (other, role) in shown_so_far
            assert over or other in allies or revealed, (
                f"seat {seat} was shown the hidden role of P{other + 1}"
            )
        you = msg.get("you") or {}
        if seat < 0:
            assert not you, "a spectator was sent a card"
            continue
        assert you.get("role") in (None, *told), "the card shown is not one the seat was told"
    return checked


START_TIMEOUT = 120.0
"""Seconds `ServerProcess.start` waits for the server to answer. The child imports the
whole server before it listens: a second or two on an idle machine, but 29 to 37 s
measured on a loaded 2-core machine (and 39 s for the failing start of
tests/web/test_server_process.py), more than half of a minute. A server that exits
at start is told at once, whatever the wait."""


class ServerProcess:
    """``mafia-arena serve`` as a child process on a fixed port, killable with SIGKILL.

    Why a process: a restart test must kill the server the hard way (no shutdown
    hooks, nothing flushed at exit) and start a fresh one on the same live store, the
    same port and the same working folder, as an operator's crash and restart would.

    Why the port lies below the kernel's ephemeral range (`free_fixed_port`): while the
    server is down, an outgoing connection of any process on the machine may be given
    an ephemeral port as its own source port; a server port from that range could then
    be taken when the server comes back (the bind fails, "address already in use").
    `start` also waits until the port can be bound, and retries a start that lost the
    race anyway. The server's output goes to ``server.log`` in the folder, and a
    failed start quotes its end. `args` are more ``serve`` switches, given at every
    start.
    """

    def __init__(
        self, folder: Any, db: Any, port: int | None = None, args: tuple[str, ...] = ()
    ) -> None:
        self.folder, self.db = Path(folder), db
        self.args = args
        self.port = free_fixed_port() if port is None else port
        self.proc: subprocess.Popen[bytes] | None = None
        self.output = self.folder / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = START_TIMEOUT) -> None:
        """Start the server and wait until it answers (see `START_TIMEOUT`)."""
        deadline = time.monotonic() + timeout
        while True:
            wait_until_bindable(self.port, deadline)
            self._spawn()
            if self._ready(deadline):
                return
            # it exited at start: only the lost race for the port is tried again
            assert "address already in use" in self.tail().lower(), (
                f"the server exited at start:\n{self.tail()}"
            )
            assert time.monotonic() < deadline, f"the port stayed taken:\n{self.tail()}"

    def _spawn(self) -> None:
        src = str(Path(__file__).resolve().parents[2] / "src")
        env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
        command = [sys.executable, "-m", "mafia_arena.cli", "serve", "--port", str(self.port)]
        command.append("--no-fixed-nights")  # as `settings_for`: nights end once answered
        with self.output.open("ab") as log:
            log.write(f"--- start {time.strftime('%H:%M:%S')} port {self.port}\n".encode())
            log.flush()
            self.proc = subprocess.Popen(
                [*command, "--db", str(self.db), *self.args],
                cwd=self.folder,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def _ready(self, deadline: float) -> bool:
        """True once the server answers; False if it exited first."""
        assert self.proc is not None
        while True:
            if self.proc.poll() is not None:
                return False
            try:  # a short probe on purpose: one that times out is tried again
                if httpx.get(self.url + "/api/variants", timeout=2).status_code == 200:
                    return True
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, f"the server did not start:\n{self.tail()}"
            time.sleep(0.1)

    def tail(self, chars: int = 4000) -> str:
        """The end of the server's output (all starts, in order)."""
        try:
            return self.output.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no server output)"

    def kill(self) -> None:
        """SIGKILL: the process gets no chance to save anything."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)


def _ephemeral_low() -> int:
    """The lowest port the kernel hands out as a connection's own port (Linux)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_fixed_port() -> int:
    """A port free now that no outgoing connection will be given meanwhile: below the
    ephemeral range, where only an explicit bind takes a port."""
    low = min(_ephemeral_low(), 32768)
    rng = random.SystemRandom()
    for _ in range(200):
        port = rng.randrange(max(1024, low - 12000), low)
        if bindable(port):
            return port
    raise RuntimeError("no free port below the ephemeral range")


def bindable(port: int) -> bool:
    """Whether a server could listen on 127.0.0.1:`port` now (as uvicorn binds)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def wait_until_bindable(port: int, deadline: float) -> None:
    """Wait until `port` is free (a killed server's socket can outlive it briefly)."""
    while not bindable(port):
        assert time.monotonic() < deadline, f"port {port} stayed in use"
        time.sleep(0.1)


async def recv_until(ws: Any, predicate: Any, timeout: float = HTTP_TIMEOUT) -> dict[str, Any]:
    """The first message from `ws` that `predicate` accepts (earlier ones are skipped);
    `TimeoutError` after `timeout` seconds (a hang guard: `HTTP_TIMEOUT` unless told)."""
    async with asyncio.timeout(timeout):
        while True:
            msg = json.loads(await ws.recv())
            if predicate(msg):
                return msg


async def open_seat(server: LiveServer, game_id: str, credential: str) -> Any:
    """A websocket to game `game_id`, authenticated with `credential` (a seat's, or the
    watch token); frames up to 16 MiB are read (a finished game's state is large)."""
    ws = await websockets.connect(
        f"{server.ws_url}/ws/{game_id}", max_size=2**24, open_timeout=HTTP_TIMEOUT
    )
    await ws.send(json.dumps({"type": "auth", "credential": credential}))
    return ws


DAY_FIRST = {"rules.first_phase": "day"}


def two_humans(
    server: LiveServer, names: tuple[str, str] = ("h0", "h1")
) -> tuple[str, list[dict[str, Any]]]:
    """A standard day-first game with people at P1 and P2, both joined (so it started)
    under `names`."""
    created = server.create(
        variant="standard",
        players=7,
        seed=11,
        overrides=DAY_FIRST,
        seats=[{"kind": "human"}, {"kind": "human"}],
    )
    game_id = created["game_id"]
    joined = [server.join(game_id, inv["invite"], names[inv["seat"]]) for inv in created["invites"]]
    return game_id, joined


STATUS_LINE = re.compile(rb"HTTP/1\.1 (\d{3}) ")
NORMAL_REQUEST = b"GET /api/variants HTTP/1.1\r\nHost: x\r\n\r\n"
"""A whole small request (the create form's variants), for raw sockets."""


def http_responses(stream: bytes, whole_only: bool = False) -> list[tuple[int, bytes]]:
    """The HTTP responses in `stream`, in order, as (status, body), each read by its
    ``content-length``. A stream that ends inside one fails the test, or, with
    `whole_only`, leaves that one out (the rest of it may still be on its way)."""
    found: list[tuple[int, bytes]] = []
    rest = stream
    while rest:
        head, blank, after = rest.partition(b"\r\n\r\n")
        length = re.search(rb"(?i)content-length: (\d+)", head)
        if whole_only and (not blank or length is None or len(after) < int(length.group(1))):
            break
        status = STATUS_LINE.match(head)
        assert blank and status and length, f"not a whole response: {rest[:200]!r}"
        assert len(after) >= int(length.group(1)), f"a body cut short: {head[:200]!r}"
        found.append((int(status.group(1)), after[: int(length.group(1))]))
        rest = after[int(length.group(1)) :]
    return found


@dataclass
class IdleRace:
    """How a server closed a kept-alive connection left idle and a later one that sent
    nothing (`idle_and_silent`)."""

    closed: list[str]
    """``"idle"`` and ``"silent"`` in the order the server closed them."""
    after: dict[str, bytes]
    """What each received after its answers: the silent one's should be its 408."""
    idle_seconds: float
    """From the idle connection's first request to its close, by the test's clock: at
    least the keep-alive time, which runs from its last answer."""


def idle_and_silent(port: int, guard: float = 60.0) -> IdleRace:
    """Send two requests on one connection to the server on `port` and read both
    answers (so it was kept alive between them), leave it idle, open a second
    connection that sends nothing, and wait until the server has closed both.

    Why two connections: the idle one is closed at the keep-alive timeout after its
    last answer, the silent one with a 408 at the request deadline after it opened (a
    later start); both are timers of the server's one event loop, so the order of the
    closes tells which time is the shorter, whatever the load, with no clock in the
    test. `guard` seconds without a close fail it (a hang)."""
    idle = socket.create_connection(("127.0.0.1", port))
    idle.settimeout(guard)
    began = time.monotonic()
    idle.sendall(NORMAL_REQUEST * 2)
    received = b""
    while len(http_responses(received, whole_only=True)) < 2:
        chunk = idle.recv(65536)
        assert chunk, f"closed before its two answers: {received[:200]!r}"
        received += chunk
    assert [status for status, _ in http_responses(received)] == [200, 200]
    silent = socket.create_connection(("127.0.0.1", port))
    names = {idle: "idle", silent: "silent"}
    race = IdleRace([], {"idle": b"", "silent": b""}, 0.0)
    while names:
        ready, _, _ = select.select(list(names), [], [], guard)
        assert ready, "the server closed neither connection"
        for sock in ready:
            chunk = sock.recv(65536)
            if chunk:
                race.after[names[sock]] += chunk
            else:
                race.closed.append(names.pop(sock))
                sock.close()
                if sock is idle:
                    race.idle_seconds = time.monotonic() - began
    return race
