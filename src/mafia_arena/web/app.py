"""The FastAPI app: one static page, a small JSON API and a websocket per page.

Routes (credentials travel only in ``Authorization: Bearer`` headers and the first
websocket message, never in URLs):

- ``GET /``, ``GET /g/{id}``: the page (vanilla JS, no build step), ``/static/*``;
- ``GET /api/variants``, ``GET /api/agents``: what a creator may choose;
- ``POST /api/games``: create (a `GameSpec`) → admin credential and invites;
- ``GET /api/games/{id}``: the public lobby (seats, bot/human, taken; no secrets); for
  a finished game no longer in memory (after a restart) its facts, ``over`` and the
  address of its ``replay``;
- ``POST /api/games/{id}/join``: exchange an invite → seat credential and resume token
  (again from the same device only: the ``mafia_device`` HttpOnly cookie, `web/auth.py`);
- ``POST /api/games/{id}/seat``: which seat an invite is for (the join page shows it);
- ``POST /api/games/{id}/rematch``: a player of a finished game → their seat in the
  same group's next game (made by the first to ask); also after a restart (410 for a
  game forgotten to make room: its seats' credentials are gone);
- ``POST /api/games/{id}/resume``: a resume token (the player's link to move to another
  device) → a fresh seat credential;
- ``POST /api/games/{id}/start``, ``GET /api/games/{id}/invites``: creator only (the
  unused invites and the watch link for spectators);
- ``GET /api/games/{id}/view``: the caller's seat view (same content as the socket);
- ``GET /api/games/{id}/replay``: every seat's view, after the game only (public then,
  also after a restart: finished games are browsable);
- ``GET /api/finished``: finished games, newest first, 50 a page (``?limit=`` 1 to 50;
  ``?before=<id>``, the last id of a page: the next page); ``GET /replay/{id}``: a
  finished game's page;
- ``WS /ws/{id}``: see `web/ws.py`.

A finished game held only in the store (after a restart) answers the routes that need
it in play (join, seat, resume, start, rulings, invites, view) with 409 "the game is
over", never 404, which stays for ids the server never finished.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, HTTPException, Query, Request, WebSocket
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from mafia_arena.rules import VariantError, available_variants, load_variant, variant_path
from mafia_arena.runner.log_file import LogFileError
from mafia_arena.web.auth import DEVICE_COOKIE, Grant, SeatKeys, bearer, new_token
from mafia_arena.web.db import StoredGame, UnknownCursor
from mafia_arena.web.guard import BodyGuard
from mafia_arena.web.manager import CreateError, GameManager, LimitError, agent_choices
from mafia_arena.web.render import lines
from mafia_arena.web.replay_cache import ReplayCache
from mafia_arena.web.rulings import Ruling, RulingRefused, give, ruling_kinds
from mafia_arena.web.session import GameSession, NameTaken
from mafia_arena.web.settings import (
    MAX_PLAYERS,
    GameSpec,
    InviteRequest,
    JoinRequest,
    ResumeRequest,
    RulingRequest,
    Settings,
)
from mafia_arena.web.storage import ReplayMismatch
from mafia_arena.web.ws import serve_socket

STATIC = Path(__file__).parent / "static"
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}

log = logging.getLogger(__name__)

FINISHED_PAGE = 50
"""The most finished games one `GET /api/finished` lists (the home page's page)."""
GAME_ID = r"^[A-Za-z0-9_-]{1,64}$"
"""What a game id looks like (the server's are `secrets.token_urlsafe(12)`)."""


def refusal(exc: RequestValidationError) -> JSONResponse:
    """A request body that fails validation: 422 with each problem's place and words.

    The offending values are not echoed back. Why: Python's JSON parser accepts ``NaN``
    and ``Infinity``, which no JSON reply may carry, so FastAPI's own handler (which
    echoes them) failed with a 500 on ``{"players": NaN}``; the page shows only each
    problem's words (`refusal` in ``static/app.js``)."""
    problems = [
        {
            "type": str(e.get("type", "")),
            "loc": list(e.get("loc", ())),
            "msg": str(e.get("msg", "")),
        }
        for e in exc.errors()
    ]
    return JSONResponse({"detail": problems}, status_code=422)


async def sendable_http_error(request: Request, exc: StarletteHTTPException) -> Response:
    """An HTTP refusal with its words, every character of them sendable; otherwise
    FastAPI's own handler (`http_exception_handler`: no body where the status allows
    none).

    Why: a refusal may quote what the client sent (a switch's key names itself), and a
    lone surrogate there (``"\\ud800"``, valid in a JSON string, no character in UTF-8)
    made the reply fail to encode: a 500 instead of the refusal. Such characters are
    written as their escape."""
    detail = exc.detail
    if isinstance(detail, str):
        detail = detail.encode("utf-8", "backslashreplace").decode("utf-8")
    clean = StarletteHTTPException(exc.status_code, detail, exc.headers)
    return await http_exception_handler(request, clean)


def variant_files() -> tuple[tuple[str, int], ...] | None:
    """The bundled variants' names with their files' modification times (nanoseconds),
    or None when a file cannot be looked at (removed meanwhile)."""
    try:
        return tuple((name, variant_path(name).stat().st_mtime_ns) for name in available_variants())
    except OSError:
        return None


def create_app(settings: Settings | None = None, *, manager: GameManager | None = None) -> FastAPI:
    """The web app. `app.state.manager` holds the games (tests reach the truth there)."""
    manager = manager or GameManager(settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI):
        manager.restore()  # live games of the last run continue where they stopped
        # agent files that do not load are logged at start, in a worker thread: building
        # an LLM bot first imports its client library (about a second), which must not
        # delay the server's first answer
        checked = asyncio.create_task(asyncio.to_thread(agent_choices, manager.settings))
        yield
        checked.cancel()
        await manager.shutdown()
        if "mafia_arena.llm.local_server" in sys.modules:  # a bot started the local LLM
            sys.modules["mafia_arena.llm.local_server"].stop_local_server()

    app = FastAPI(
        title="Mafia Arena", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None
    )
    app.state.manager = manager

    @app.exception_handler(RequestValidationError)
    async def invalid_body(_: Request, exc: RequestValidationError) -> JSONResponse:
        return refusal(exc)

    app.exception_handler(StarletteHTTPException)(sendable_http_error)

    app.add_middleware(
        BodyGuard, max_body=manager.settings.max_body, max_depth=manager.settings.max_json_depth
    )
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.middleware("http")
    async def headers(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        return response

    def session_of(game_id: str) -> GameSession:
        """The game held in memory; 409 for a finished game held only in the store (a
        restart, or forgotten to make room), 404 for a game the server never finished.

        Why 409: the game's links (an invite, a seat's page) still name a real game,
        which is over; "no such game" told the people who came back that it was lost."""
        session = manager.get(game_id)
        if session is None:
            if manager.stored_over(game_id) is not None:
                raise HTTPException(409, f"the game is over; its replay: /replay/{game_id}")
            raise HTTPException(404, "no such game")
        return session

    def grant_of(request: Request, game_id: str) -> Grant:
        grant = manager.grant(game_id, bearer(request.headers.get("authorization")))
        if grant is None:
            raise HTTPException(403, "not authorised")
        return grant

    def seat_of_grant(request: Request, game_id: str, refusal: str) -> int:
        """The seat the request's credential plays; 403 with `refusal` for any other grant."""
        grant = grant_of(request, game_id)
        if grant.scope != "seat" or grant.seat is None:
            raise HTTPException(403, refusal)
        return grant.seat

    def require_admin(request: Request, game_id: str, refusal: str) -> None:
        """403 with `refusal` unless the request carries the creator's credential."""
        if grant_of(request, game_id).scope != "admin":
            raise HTTPException(403, refusal)

    @app.get("/", include_in_schema=False)
    @app.get("/g/{game_id}", include_in_schema=False)
    @app.get("/replay/{game_id}", include_in_schema=False)
    async def page(game_id: str = "") -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    offered: dict[tuple[tuple[str, int], ...], list[dict[str, Any]]] = {}
    """The create form's variants, by the variant files' names and modification times."""

    @app.get("/api/variants")
    async def variants() -> list[dict[str, Any]]:
        """The variants a creator may pick. A variant file that does not load (edited
        while the server runs) is left out and logged: one broken file must not take
        every other variant off the create form.

        ``min_players`` and ``max_players`` are the rules' own range, as ``mafia-arena
        variants`` shows it (``max_players`` is null where the rules set no upper
        bound: classic's "7+"); ``table_cap`` is the most players this server seats at
        one table (`MAX_PLAYERS`), whatever the rules allow. Two fields, because one
        number cannot say both: 40 for classic read as a bound of the rules.

        Made again only when a variant file changed (`variant_files`). Why: reading and
        checking every file took about 10 ms of the event loop per request, so a few
        clients asking at once, in a loop, slowed every live table's sockets."""
        stamp = variant_files()
        if stamp is not None and stamp in offered:
            return offered[stamp]
        out = []
        for name in available_variants():
            try:
                v = load_variant(name)
            except VariantError as error:
                log.warning("variant %s left off the create form: %s", name, error)
                continue
            out.append(
                {
                    "name": name,
                    "title": v.title,
                    "description": v.description,
                    "min_players": v.min_players,
                    "max_players": v.max_players,
                    "table_cap": MAX_PLAYERS,
                    # the switches a creator may set from the page: numbers and yes/no
                    # (the others are formulas or named options: `--set` on the CLI)
                    "params": {
                        key: value
                        for key, value in v.params.items()
                        if isinstance(value, bool | int) and not isinstance(value, float)
                    },
                }
            )
        offered.clear()
        if stamp is not None:
            offered[stamp] = out
        return out

    @app.get("/api/agents")
    async def agents() -> list[str]:
        return agent_choices(manager.settings)

    @app.post("/api/games")
    async def create(spec: GameSpec, request: Request) -> dict[str, Any]:
        try:
            created = manager.create(spec, request.client.host if request.client else "")
        except LimitError as exc:
            raise HTTPException(429, str(exc)) from exc
        except CreateError as exc:
            raise HTTPException(400, str(exc)) from exc
        session = session_of(created["game_id"])
        if session.ready():  # no human seat: nothing to wait for
            manager.start(session)
        return created

    @app.get("/api/games/{game_id}")
    async def lobby(game_id: str) -> dict[str, Any]:
        """The public lobby; for a finished game no longer in memory (a restart, or
        forgotten to make room) its facts from the store with ``over`` and ``replay``
        (`GameManager.finished_lobby`); 404 only for a game the server never finished."""
        session = manager.get(game_id)
        if session is not None:
            return session.lobby()
        finished = manager.finished_lobby(game_id)
        if finished is None:
            raise HTTPException(404, "no such game")
        return finished

    def seat_reply(game_id: str, keys: SeatKeys | None, device: str | None) -> JSONResponse:
        if keys is None:
            raise HTTPException(
                403,
                "this link is not valid here (its seat is played from another device, "
                "or the game has started without it)",
            )
        response = JSONResponse(
            {
                "seat": keys.seat,
                "credential": keys.credential,
                "resume": keys.resume,
                "game_id": game_id,
            }
        )
        if device is not None:
            response.set_cookie(
                DEVICE_COOKIE, device, max_age=365 * 86400, httponly=True, samesite="strict"
            )
        return response

    def device_of(request: Request) -> tuple[str, str | None]:
        """The caller's device token, and a fresh one to set when it has none."""
        device = request.cookies.get(DEVICE_COOKIE)
        fresh = None if device and 20 <= len(device) <= 128 else new_token()
        return fresh or device or "", fresh

    @app.post("/api/games/{game_id}/join")
    async def join(game_id: str, body: JoinRequest, request: Request) -> JSONResponse:
        session = session_of(game_id)
        device, fresh = device_of(request)
        try:
            keys = manager.join(session, body.invite, body.name, device)
        except NameTaken as exc:
            raise HTTPException(409, str(exc)) from exc
        return seat_reply(game_id, keys, fresh)

    @app.post("/api/games/{game_id}/seat")
    async def seat_of_invite(game_id: str, body: InviteRequest) -> dict[str, Any]:
        """Which seat an invite is for, before taking it (the join page names it)."""
        seat = manager.credentials.invite_seat(session_of(game_id).id, body.invite)
        if seat is None:
            raise HTTPException(403, "this invite is not valid for this game")
        return {"seat": seat, "label": f"P{seat + 1}"}

    @app.post("/api/games/{game_id}/rematch")
    async def rematch(game_id: str, request: Request) -> JSONResponse:
        """A player's seat in the rematch; for a finished game held only in the store
        the same, from its stored seating (`GameManager.rematch_stored`)."""
        row = manager.stored_over(game_id)
        if row is not None:
            return stored_rematch(row, request)
        session = session_of(game_id)
        seat = seat_of_grant(request, game_id, "only the game's players can ask for a rematch")
        if not session.slots[seat].human:
            raise HTTPException(403, "that seat is played by a bot")
        device, fresh = device_of(request)
        try:
            new, keys = manager.rematch(session, seat, device)
        except LimitError as exc:
            raise HTTPException(429, str(exc)) from exc
        except CreateError as exc:
            raise HTTPException(400, str(exc)) from exc
        return seat_reply(new.id, keys, fresh)

    def stored_rematch(row: StoredGame, request: Request) -> JSONResponse:
        """`rematch` for a finished game held only in the store. Its players' seat
        credentials are stored, so they survive a restart; a game forgotten to make room
        lost them (`GameManager._forget`), which is said (410), not a bare refusal."""
        if not manager.credentials.kept(row.id):
            raise HTTPException(
                410,
                "this game's seats are no longer kept (it finished a while ago), "
                "so no rematch can be asked for from it: create a new game",
            )
        seat = seat_of_grant(request, row.id, "only the game's players can ask for a rematch")
        if seat >= len(row.slots) or row.slots[seat]["kind"] != "human":
            raise HTTPException(403, "that seat is played by a bot")
        device, fresh = device_of(request)
        client = request.client.host if request.client else ""
        try:
            new, keys = manager.rematch_stored(row, seat, device, client)
        except LimitError as exc:
            raise HTTPException(429, str(exc)) from exc
        except CreateError as exc:
            raise HTTPException(400, str(exc)) from exc
        return seat_reply(new.id, keys, fresh)

    @app.post("/api/games/{game_id}/resume")
    async def resume(game_id: str, body: ResumeRequest) -> JSONResponse:
        return seat_reply(game_id, manager.resume(session_of(game_id), body.resume), None)

    @app.post("/api/games/{game_id}/start")
    async def start(game_id: str, request: Request) -> dict[str, Any]:
        session = session_of(game_id)
        require_admin(request, game_id, "only the creator can start the game")
        manager.start(session)
        return session.lobby()

    @app.post("/api/games/{game_id}/rulings")
    async def ruling(game_id: str, body: RulingRequest, request: Request) -> dict[str, Any]:
        """A moderator's ruling from the creator (`web/rulings.py`); 409 with the reason
        when it is not possible now."""
        session = session_of(game_id)
        require_admin(request, game_id, "only the creator can give rulings")
        try:
            give(session, Ruling(body.kind, body.seat, body.value))
        except RulingRefused as exc:
            raise HTTPException(409, str(exc)) from None
        return {"applied": body.model_dump(), "kinds": list(ruling_kinds(session.variant))}

    @app.get("/api/games/{game_id}/invites")
    async def invites(game_id: str, request: Request) -> dict[str, Any]:
        session = session_of(game_id)
        require_admin(request, game_id, "only the creator can list invites")
        if session.watch is None:  # the one made at creation did not survive a restart
            session.watch = manager.credentials.issue_watch(game_id)
        return {
            "invites": [{"seat": s, "invite": t} for s, t in sorted(session.invites.items())],
            "watch": session.watch,
        }

    @app.get("/api/games/{game_id}/view")
    async def view(game_id: str, request: Request) -> JSONResponse:
        session = session_of(game_id)
        seat = seat_of_grant(request, game_id, "not a seat credential")
        if not session.started:
            return JSONResponse({"type": "lobby", "seat": seat, **session.lobby()})
        seat_view = session.view(seat)
        state = session.state(seat, seat_view)
        return JSONResponse(
            {
                "type": "state",
                "reset": True,
                "seat": seat,
                "lines": lines(
                    seat_view.knowledge,
                    moves=session.moves(),
                    names=session.names,
                    variant=session.variant,
                ),
                **state,
            }
        )

    replays = ReplayCache()  # computed once per game, off the event loop

    @app.get("/api/games/{game_id}/replay")
    async def replay(game_id: str) -> Response:
        session = manager.get(game_id)
        if session is not None and not session.over:
            raise HTTPException(409, "the replay opens when the game is over")
        stored = session.log if session is not None else None
        try:
            stored = stored or manager.stored_log(game_id)
        except LogFileError as exc:  # damaged in the store: said to the page, with no path
            where = f"{exc.key}: " if exc.key else ""
            raise HTTPException(
                409, f"the stored log of this game is damaged ({where}{exc.reason})"
            ) from None
        if stored is None:
            if session is not None:  # over, its log being written
                raise HTTPException(409, "the replay opens when the game is over")
            raise HTTPException(404, "no such game")
        try:
            body = await replays.body(game_id, stored)
        except ReplayMismatch as exc:  # said to the page, not a server error
            raise HTTPException(409, str(exc)) from None
        return Response(body, media_type="application/json")

    @app.get("/api/finished")
    async def finished(
        limit: Annotated[int, Query(ge=1, le=FINISHED_PAGE)] = FINISHED_PAGE,
        before: Annotated[str | None, Query(pattern=GAME_ID)] = None,
    ) -> list[dict[str, Any]]:
        """A page of finished games, newest first: at most `limit`, and with `before`
        (the id of the last game of the previous page) the ones finished before it, so
        every finished game can be reached from the home page. A `limit` out of range
        or a malformed id is refused (422, by the query's checks), an id of no finished
        game too (400)."""
        try:
            return manager.finished(limit, before)
        except UnknownCursor:
            raise HTTPException(400, "before: no finished game with that id") from None

    @app.websocket("/ws/{game_id}")
    async def socket(websocket: WebSocket, game_id: str) -> None:
        await serve_socket(websocket, manager, game_id)

    return app


def serve(
    host: str = "127.0.0.1", port: int = 8000, settings: Settings | None = None, **options: Any
) -> None:
    """Run the app with uvicorn (blocking). `options` set `Settings` fields by name."""
    import uvicorn

    settings = settings or Settings(**options)
    uvicorn.run(
        create_app(settings), host=host, port=port, log_level="info", **server_options(settings)
    )


def server_options(settings: Settings) -> dict[str, Any]:
    """The uvicorn options the app is served with (`serve`, and the tests' server).

    Why each: a client's own ``X-Forwarded-For`` must not pick its address (the
    per-address limits count by it); frames above 64 KiB close the socket;
    uvicorn's HTTP protocol waits for a request without a deadline and takes any
    number of connections from one address, so the app's is `connections.guarded_http`;
    its websocket protocol answers every ping, so the app's is
    `connections.guarded_ws`, which bounds their rate; and an idle connection is
    closed after `Settings.keep_alive` seconds, set here rather than left to
    uvicorn's default (why that value: `Settings`)."""
    from mafia_arena.web.connections import guarded_http, guarded_ws

    return {
        "http": guarded_http(settings.request_timeout, settings.max_connections_per_client),
        "ws": guarded_ws(settings.rate_per_s, settings.rate_burst),
        "timeout_keep_alive": settings.keep_alive,
        "ws_max_size": 64 * 1024,
        "proxy_headers": False,
    }
