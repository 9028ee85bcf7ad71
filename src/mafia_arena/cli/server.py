"""The serve command: the web app for mixed games of humans and bots.

Every switch and the port are checked before the server starts (`serve_settings`,
`check_port_free`): a bad value, or a port another program holds, is a `CliError`
naming the switch (exit 2), not the server's own log lines and exit code 3. So are the
folders the server writes into (`check_server_folders`): the live store's, the results'
and the game logs'; one that cannot be made or written is refused in one line naming it
(`output_folders`), not with a traceback from the store's first write.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from mafia_arena.cli.app import CliError


def serve(
    host: Annotated[str, typer.Option(help="interface to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port", min=1, max=65535)] = 8000,
    db: Annotated[
        Path | None,
        typer.Option(help="live store (SQLite): live games resume after a restart"),
    ] = None,
    fixed_nights: Annotated[
        bool,
        typer.Option(
            help="run every night on public slots of public lengths; off, a night ends "
            "once its actors have answered, which shows who acts at night (for tests)"
        ),
    ] = True,
    solo_nights: Annotated[
        bool,
        typer.Option(
            help="a person alone with scripted bots waits at night only for their own "
            "slots; off, such nights last their full timers"
        ),
    ] = True,
    allow_agent: Annotated[
        list[str] | None,
        typer.Option(
            help="a bot creators may seat (a scripted preset or an agent file; repeat "
            "for more); given, only these are offered"
        ),
    ] = None,
    allow_paid_bots: Annotated[
        bool,
        typer.Option(
            "--allow-paid-bots",
            help="offer agent files that spend an API key (api_key_env or a remote base_url)",
        ),
    ] = False,
    grace: Annotated[
        float | None,
        typer.Option(help="seconds a disconnected player keeps the seat (default 120)"),
    ] = None,
    idle_turns: Annotated[
        int | None,
        typer.Option(help="day turns in a row a player may miss before a stand-in (default 2)"),
    ] = None,
    sockets_per_address: Annotated[
        int | None,
        typer.Option(
            help="open game sockets (pages) one address may hold (default 16); raise it "
            "for many players behind one address (a school's or an office's network)"
        ),
    ] = None,
    connections_per_address: Annotated[
        int | None,
        typer.Option(help="open plain HTTP connections one address may hold (default 32)"),
    ] = None,
    request_timeout: Annotated[
        float | None,
        typer.Option(
            help="seconds a client has to send a whole HTTP request, from its first byte "
            "(from the connection's opening for its first one); 408 after (default 10)"
        ),
    ] = None,
    keep_alive: Annotated[
        float | None,
        typer.Option(
            help="seconds an idle HTTP connection is kept open for the client's next "
            "request, then closed (default 5)"
        ),
    ] = None,
) -> None:
    """Start the web app for mixed games of humans and bots."""
    from mafia_arena.web import serve as run_server

    options = serve_settings(
        db=db,
        fixed_nights=fixed_nights,
        solo_nights=solo_nights,
        allow_agent=allow_agent,
        allow_paid_bots=allow_paid_bots,
        grace=grace,
        idle_turns=idle_turns,
        sockets_per_address=sockets_per_address,
        connections_per_address=connections_per_address,
        request_timeout=request_timeout,
        keep_alive=keep_alive,
    )
    check_server_folders(options.get("db"))
    check_port_free(host, port)
    run_server(host=host, port=port, **options)


def check_port_free(host: str, port: int) -> None:
    """Raise `CliError` if the server could not listen on `host`:`port`, before it starts.

    Why: the server's own failure comes as its log lines and exit code 3; a port that
    another program holds is a user error like any other option's. Bound the way the
    server binds (address reuse on), so a port in TIME_WAIT passes."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise CliError("--host", f"cannot resolve {host!r}: {exc}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise CliError("--port", f"cannot listen on {host}:{port}: {reason}") from None


def check_server_folders(db: Path | None) -> None:
    """Raise `output_folders.OutputFolderError` unless the server can keep its files:
    the live store `db` (``--db``; None: the default, `Settings.db`) must not be a
    folder, and its folder, the results folder and the game logs folder (`Settings`'s
    `results_dir` and `logs_dir`) must be folders that can be made and written.

    Why before the server starts: the live store is opened as the server starts, and
    a folder under a file was a traceback from its ``mkdir``; the results and logs
    folders are written only when a game ends, which would lose that game."""
    from mafia_arena.output_folders import check_output_file, check_output_folder
    from mafia_arena.web.settings import Settings

    defaults = Settings()
    given = "--db" if db is not None else "the default of --db"
    store = db if db is not None else defaults.db
    if store is not None:
        check_output_file(store, given)
    check_output_folder(defaults.results_dir, "the server's results folder")
    check_output_folder(defaults.logs_dir, "the server's game logs folder")


def serve_settings(
    *,
    db: Path | None = None,
    fixed_nights: bool = True,
    solo_nights: bool = True,
    allow_agent: Sequence[str] | None = None,
    allow_paid_bots: bool = False,
    grace: float | None = None,
    idle_turns: int | None = None,
    sockets_per_address: int | None = None,
    connections_per_address: int | None = None,
    request_timeout: float | None = None,
    keep_alive: float | None = None,
) -> dict[str, Any]:
    """The `Settings` fields `serve`'s switches set (only those given), checked first:
    a bad value is a `CliError` naming the switch, before any server starts.

    An allowed agent must be a scripted preset or an agent file that exists (a typo
    would otherwise offer creators a bot that fails when seated)."""
    import math

    from mafia_arena.agents.registry import scripted_agent_names

    options: dict[str, Any] = {"fixed_nights": fixed_nights, "solo_nights": solo_nights}
    if db is not None:
        options["db"] = db
    if allow_agent:
        scripted = scripted_agent_names()
        for spec in allow_agent:
            if spec not in scripted and not Path(spec).is_file():
                raise CliError(
                    "--allow-agent",
                    f"unknown agent {spec!r}; scripted: {', '.join(scripted)}, "
                    "or the path of an agent file",
                )
        options["allowed_agents"] = tuple(dict.fromkeys(allow_agent))
    if allow_paid_bots:
        options["allow_paid_bots"] = True
    if grace is not None:
        if not math.isfinite(grace) or grace < 0:
            raise CliError("--grace", f"expected a number of seconds of at least 0, got {grace}")
        options["grace"] = grace
    if idle_turns is not None:
        if idle_turns < 1:
            raise CliError(
                "--idle-turns", f"expected a whole number of at least 1, got {idle_turns}"
            )
        options["idle_turns"] = idle_turns
    limits = (
        ("--sockets-per-address", "max_sockets_per_client", sockets_per_address),
        ("--connections-per-address", "max_connections_per_client", connections_per_address),
    )
    for switch, field, value in limits:  # per-address caps: many people may share one
        if value is not None:
            if value < 1:
                raise CliError(switch, f"expected a whole number of at least 1, got {value}")
            options[field] = value
    timeouts = (
        ("--request-timeout", "request_timeout", request_timeout),
        ("--keep-alive", "keep_alive", keep_alive),
    )
    for switch, field, seconds in timeouts:  # 0 would close a connection as it is used
        if seconds is not None:
            if not math.isfinite(seconds) or seconds <= 0:
                raise CliError(switch, f"expected a number of seconds above 0, got {seconds}")
            options[field] = seconds
    return options
