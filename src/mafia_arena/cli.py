"""The `mafia-arena` command: play, run, replay, tournament, leaderboard, serve.

Errors
------
`main` is the entry point. A user error — a bad spec, variant, agent file or option, an
unreachable service, a results folder that cannot be resumed — prints one paragraph
naming the file (or option), the key and the reason, and exits with code 2; no
traceback unless ``--debug`` is given (then the error propagates with its traceback).
Ctrl-C during a tournament prints ``N games stored; run the same command to resume``
and exits 130. Games that failed exit 1 after the summary.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import statistics
import sys
from collections import Counter
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from tqdm import tqdm

from mafia_arena.rules import VariantError, available_variants, load_variant
from mafia_arena.rules.errors import NoSuchVariant
from mafia_arena.rules.loader import coerce

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Mafia Arena: play, evaluate and rank Mafia players.",
)

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130
_STATE = {"debug": False}


class CliError(ValueError):
    """A bad command-line value: names the option and the reason."""

    def __init__(self, option: str, reason: str) -> None:
        super().__init__(f"{option}: {reason}")


@app.callback()
def _options(
    debug: Annotated[
        bool, typer.Option("--debug", help="show the traceback of an error (for bug reports)")
    ] = False,
) -> None:
    """Mafia Arena: play, evaluate and rank Mafia players."""
    _STATE["debug"] = debug


def _user_errors() -> tuple[type[BaseException], ...]:
    """The exceptions that are the user's to fix (the message says how), not bugs."""
    from mafia_arena.agents.llm_prompts import TemplateError
    from mafia_arena.experiments.errors import ResultsConflict, ServiceError, SpecError
    from mafia_arena.leaderboard.cli import LeaderboardError
    from mafia_arena.results_file import StoreFormatError
    from mafia_arena.rules import VariantError
    from mafia_arena.runner.log_file import LogFileError

    errors: list[type[BaseException]] = [
        CliError,
        LogFileError,
        SpecError,
        VariantError,
        ResultsConflict,
        ServiceError,
        TemplateError,
        LeaderboardError,
        StoreFormatError,
    ]
    try:
        from mafia_arena.llm.definition import AgentDefinitionError
    except ImportError:  # the llm extra is not installed
        pass
    else:
        errors.append(AgentDefinitionError)
    return tuple(errors)


def _paragraph(error: BaseException) -> str:
    """The error's message as one paragraph (no blank lines, no trailing space)."""
    if isinstance(error, OSError) and error.filename:
        return f"{error.filename}: cannot read: {error.strerror or error}"
    lines = [line.rstrip() for line in str(error).strip().splitlines()]
    return "\n".join(line for line in lines if line)


def main(args: Sequence[str] | None = None) -> None:
    """Run the command line (see the module docstring for exit codes)."""
    from mafia_arena.experiments.errors import Interrupted, TournamentError

    _STATE["debug"] = "--debug" in (sys.argv[1:] if args is None else args)
    try:
        code = app(args=None if args is None else list(args), standalone_mode=False)
    except typer.Exit as exc:
        sys.exit(getattr(exc, "exit_code", 0))
    except typer.Abort:
        typer.echo("interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except typer.TyperException as exc:  # a usage error (unknown option, bad value)
        formatter = getattr(exc, "format_message", None)
        message = formatter() if formatter is not None else str(exc)
        context = getattr(exc, "ctx", None)
        where = f" (see: {context.command_path} --help)" if context is not None else ""
        typer.echo(f"error: {' '.join(message.split())}{where}", err=True)
        sys.exit(getattr(exc, "exit_code", EXIT_USER_ERROR))
    except Interrupted as exc:
        typer.echo(str(exc), err=True)
        sys.exit(EXIT_INTERRUPTED)
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except TournamentError as exc:
        if _STATE["debug"]:
            raise
        typer.echo(_paragraph(exc), err=True)
        sys.exit(1)
    except Exception as exc:
        user_errors = (*_user_errors(), FileNotFoundError, IsADirectoryError, PermissionError)
        if _STATE["debug"] or not isinstance(exc, user_errors):
            raise
        typer.echo(f"error: {_paragraph(exc)}", err=True)
        sys.exit(EXIT_USER_ERROR)
    if isinstance(code, int) and code:  # typer hands back an Exit's code (Ctrl-C: 130)
        sys.exit(code)


def _seat(agents: str, players: int, rules: Any) -> list[Any]:
    """The agents of a command-line table; an unknown agent is a `CliError`."""
    from mafia_arena.seating import seat_agents

    try:
        return seat_agents(agents, players, rules)
    except ValueError as exc:
        raise CliError("--agents", str(exc)) from exc


SetOption = Annotated[
    list[str] | None,
    typer.Option("--set", help="Override a variant switch or count, e.g. --set mafia=3"),
]


def warn_below_recommended(rules: Any, players: int) -> None:
    """Print the variant's notice for a game below its recommended size (classic OP-C1)."""
    from mafia_arena.engine.flow import below_recommended

    notice = below_recommended(rules, players)
    if notice:
        typer.echo(f"warning: {notice}", err=True)


def check_seat(option: str, seat: int | None, players: int, where: str = "") -> None:
    """A 1-based seat option must name a seat of the table (`CliError` otherwise)."""
    if seat is not None and not 1 <= seat <= players:
        table = where or f"the table has {players} players"
        raise CliError(option, f"seat {seat} is out of range 1..{players} ({table})")


def parse_overrides(items: list[str] | None) -> dict[str, Any]:
    overrides: dict[str, Any] = {}
    for item in items or []:
        if "=" not in item:
            raise CliError("--set", f"needs KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        if not key.strip():
            raise CliError("--set", f"needs a switch name before '=', got {item!r}")
        overrides[key.strip()] = coerce(value.strip())
    return overrides


def load_for_table(variant: str, set_: list[str] | None, players: int) -> Any:
    """The variant with the ``--set`` switches, checked to deal `players` seats.

    Why: a deck that cannot be dealt at this size must fail before a progress bar or a
    game starts. An error that comes from a ``--set`` says so, in the user's spelling.
    """
    from mafia_arena.rules import load_table

    overrides = parse_overrides(set_)
    try:
        return load_table(variant, overrides, [players])
    except VariantError as exc:
        if isinstance(exc, NoSuchVariant):  # the option's value, and what it could be
            raise CliError("--variant", str(exc)) from exc
        if not exc.overrides:
            raise
        spelled = {item.split("=", 1)[0].strip(): item for item in set_ or []}
        named = ", ".join(f"--set {spelled[key]}" for key in exc.overrides)
        raise VariantError(exc.source, exc.key, f"{exc.reason} (from {named})") from exc


@app.command()
def variants() -> None:
    """List the bundled variants."""
    for name in available_variants():
        variant = load_variant(name)
        upper = variant.max_players
        players = (
            f"{variant.min_players}-{upper}" if upper is not None else f"{variant.min_players}+"
        )
        typer.echo(f"{name:10} {players:6} players  {variant.title}")


@app.command()
def play(
    variant: Annotated[str, typer.Option(help="variant name or file")] = "standard",
    players: Annotated[int, typer.Option(help="number of players", min=1)] = 7,
    agents: Annotated[str, typer.Option(help="agents, e.g. heuristic or a,b,c")] = "heuristic",
    seed: Annotated[
        int | None, typer.Option(help="game seed (default: random, printed after the game)")
    ] = None,
    seat: Annotated[int | None, typer.Option(help="show this seat's view (1-based)")] = None,
    human: Annotated[int | None, typer.Option(help="play this seat yourself (1-based)")] = None,
    log: Annotated[Path | None, typer.Option(help="write the game log here")] = None,
    set_: SetOption = None,
) -> None:
    """Play one game and print its transcript as it happens."""
    from mafia_arena.runner.match import play_match
    from mafia_arena.views.display_names import DisplayNames
    from mafia_arena.views.pseudonyms import owners_hidden, tells_owner
    from mafia_arena.views.text import render_event

    check_seat("--seat", seat, players)
    check_seat("--human", human, players)
    if log is not None and not log.parent.is_dir():
        raise CliError("--log", f"{log}: cannot write: no such folder {str(log.parent)!r}")
    overrides = parse_overrides(set_)
    rules = load_for_table(variant, set_, players)
    warn_below_recommended(rules, players)
    seated = _seat(agents, players, rules)
    if human is not None:
        from mafia_arena.web.terminal import QuitGame, play_in_terminal

        try:
            # the bots seated here play, so their endpoint faults can be counted below;
            # the entry at the person's own seat is replaced there and never plays
            played = play_in_terminal(
                variant, players, human - 1, seated, seed, overrides, log_path=log
            )
        except (QuitGame, KeyboardInterrupt):
            typer.echo("\nGame abandoned: nothing was recorded.", err=True)
            raise typer.Exit(130) from None
        except OSError as exc:
            if log is None or exc.filename != str(log):
                raise
            raise _unwritable(log, exc) from exc
        human_faults: Counter[tuple[str, str, str]] = Counter()
        count_endpoint_faults(seated, played.log, human_faults, skip=(human - 1,))
        warn_endpoint_faults(human_faults, 1)
        if log is not None:
            typer.echo(f"log written to {log}")
        return
    viewer = None if seat is None else seat - 1
    hidden = owners_hidden(rules)  # OP-D36: the omniscient transcript names no owner
    names = DisplayNames.of(rules)  # roles and cards by the variant's own names

    def show(event: Any) -> None:
        if viewer is None and event.visibility.scope == "host":
            return
        if viewer is None and hidden and tells_owner(event.fact):
            return
        if viewer is not None and not event.visibility.admits(viewer):
            return
        line = render_event(event, viewer, names)
        if line:
            if viewer is None and event.visibility.scope == "seats":
                seats = ", ".join(f"P{s + 1}" for s in sorted(event.visibility.seats))
                line = f"  (private to {seats}) {line}"
            typer.echo(line)

    if seed is None:
        seed = secrets.randbelow(2**31)
    result = asyncio.run(play_match(rules, seated, seed, overrides, on_event=show))
    faults: Counter[tuple[str, str, str]] = Counter()
    count_endpoint_faults(seated, result.log, faults)
    warn_endpoint_faults(faults, 1)
    typer.echo(f"game seed: {seed}")
    if log is not None:
        try:
            result.log.save(log)
        except OSError as exc:
            raise _unwritable(log, exc) from exc
        typer.echo(f"log written to {log}")


def count_endpoint_faults(
    agents: Sequence[Any],
    log: Any,
    into: Counter[tuple[str, str, str]],
    *,
    skip: Collection[int] = (),
) -> None:
    """Add the infrastructure fallbacks of `log`'s model-backed seats (those with a
    model card) to `into`, keyed by (agent, endpoint, reason).

    `skip`: seats that `agents[seat]` did not play (``play --human``: the person's own
    seat, whose runner timeouts are the person's and no endpoint's)."""
    from mafia_arena.engine.catalogue import DecisionRecord
    from mafia_arena.runner.integrity import infrastructure_faults

    records = (e.fact for e in log.events if isinstance(e.fact, DecisionRecord))
    for seat, reasons in infrastructure_faults(records).items():
        if seat in skip:
            continue
        card = agents[seat].card() if seat < len(agents) else None
        if card is None:
            continue
        for reason, count in reasons.items():
            into[(agents[seat].name, str(card.get("endpoint", "?")), reason)] += count


def warn_endpoint_faults(faults: Counter[tuple[str, str, str]], games: int) -> None:
    """One line on stderr per agent and endpoint whose decisions infrastructure faults
    made: without it, a game against a server that is down ends as if all were well."""
    grouped: dict[tuple[str, str], list[str]] = {}
    totals: Counter[tuple[str, str]] = Counter()
    for (agent, endpoint, reason), count in sorted(faults.items()):
        grouped.setdefault((agent, endpoint), []).append(f"{reason} x{count}")
        totals[(agent, endpoint)] += count
    for (agent, endpoint), kinds in grouped.items():
        where = "the game" if games == 1 else f"{games} games"
        typer.echo(
            f"warning: agent {agent!r} ({endpoint}): {totals[(agent, endpoint)]} decisions "
            f"in {where} played by fallbacks on endpoint faults: {', '.join(kinds)}",
            err=True,
        )


def _unwritable(log: Path, error: OSError) -> CliError:
    """``--log`` names a file that cannot be written (not "cannot read": it is an output)."""
    return CliError("--log", f"{log}: cannot write: {error.strerror or error}")


@app.command()
def run(
    variant: Annotated[str, typer.Option(help="variant name or file")] = "standard",
    players: Annotated[int, typer.Option(help="number of players", min=1)] = 7,
    agents: Annotated[str, typer.Option(help="agents: name, a,b,c or town=x,mafia=y")] = "random",
    games: Annotated[int, typer.Option(help="number of games", min=1)] = 100,
    seed: Annotated[int, typer.Option(help="base seed; game i uses seed+i")] = 0,
    key_dir: Annotated[
        Path | None,
        typer.Option(
            help="folder of the host key that derives the players' own seeds (created "
            "if missing); default: a fresh key, so agents' own draws differ between runs"
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the summary as JSON")] = False,
    set_: SetOption = None,
) -> None:
    """Play many games and print win rates per faction with 95% intervals."""
    from mafia_arena.agents.base import all_synchronous
    from mafia_arena.runner.match import play_match, play_match_sync
    from mafia_arena.seat_seeds import load_or_create_host_key, new_host_key
    from mafia_arena.stats import wilson_interval

    try:
        key = new_host_key() if key_dir is None else load_or_create_host_key(key_dir)
    except OSError as exc:  # the folder cannot be made, or the key cannot be written
        reason = exc.strerror or str(exc)
        raise CliError("--key-dir", f"cannot keep the host key in {key_dir}: {reason}") from None
    overrides = parse_overrides(set_)
    rules = load_for_table(variant, set_, players)
    warn_below_recommended(rules, players)
    _seat(agents, players, rules)  # a bad --agents fails before the progress bar starts
    winners: Counter[str] = Counter()
    lengths: list[int] = []
    faults: Counter[tuple[str, str, str]] = Counter()
    for index in tqdm(range(games), desc=f"{variant} x{players}", disable=as_json):
        seated = _seat(agents, players, rules)
        if all_synchronous(seated):
            result = play_match_sync(rules, seated, seed + index, overrides, host_key=key)
        else:
            result = asyncio.run(play_match(rules, seated, seed + index, overrides, host_key=key))
            count_endpoint_faults(seated, result.log, faults)
        winners[result.winner or "draw"] += 1
        lengths.append(result.game_length)
    summary: dict[str, Any] = {
        "variant": variant,
        "players": players,
        "agents": agents,
        "games": games,
        "seed": seed,
        "overrides": overrides,
        "win_rates": {
            faction: {
                "wins": winners[faction],
                "rate": winners[faction] / games,
                "ci95": list(wilson_interval(winners[faction], games)),
            }
            for faction in [*rules.factions, "draw"]
        },
        "mean_length_days": statistics.fmean(lengths) if lengths else 0.0,
    }
    warn_endpoint_faults(faults, games)
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
        return
    for faction, row in summary["win_rates"].items():
        low, high = row["ci95"]
        typer.echo(
            f"{faction:12} {row['rate']:6.1%}  95% CI [{low:.1%}, {high:.1%}]  "
            f"({row['wins']}/{games})"
        )
    typer.echo(f"mean game length: {summary['mean_length_days']:.2f} days")


@app.command()
def replay(
    log: Annotated[Path, typer.Argument(help="a game log (JSONL)")],
    seat: Annotated[int | None, typer.Option(help="replay from this seat's view (1-based)")] = None,
    traces: Annotated[
        bool,
        typer.Option(
            "--traces",
            help="after each LLM decision print its trace (question, raw answers, "
            "reasoning, reason, choice, tokens, latency, retries; the log's "
            ".traces.jsonl); with --seat only that seat's",
        ),
    ] = False,
) -> None:
    """Replay a stored log, omniscient or from one seat's view."""
    from mafia_arena.runner.log import replay as rebuild
    from mafia_arena.runner.log import replay_differs, traces_path
    from mafia_arena.runner.log_file import read_log
    from mafia_arena.runner.traces import trace_lines, traces_by_decision
    from mafia_arena.views.display_names import DisplayNames
    from mafia_arena.views.pseudonyms import mask, owners_hidden, pseudonyms_in, tells_owner
    from mafia_arena.views.text import render_event

    stored = read_log(log)
    check_seat("--seat", seat, stored.players, f"{log} has {stored.players} players")
    game = rebuild(stored)
    viewer = None if seat is None else seat - 1
    placed, orphans = traces_by_decision(stored) if traces else ({}, [])
    hidden = owners_hidden(game.variant)  # OP-D36: a finished game names no owner
    names = DisplayNames.of(game.variant)  # roles and cards by the variant's own names
    masked = pseudonyms_in(e.fact for e in game.events) if hidden else set()

    def show(found: list[dict[str, Any]]) -> None:
        for trace in found:
            if viewer is None or trace.get("seat") == viewer:
                at = trace.get("seat")
                agent = ""
                if isinstance(at, int) and 0 <= at < len(stored.seating):
                    agent = stored.seating[at]
                for text in trace_lines(trace, agent):
                    typer.echo(mask(text, masked))

    for event in game.events:
        if event.visibility.scope == "host":
            show(placed.get(event.seq, []))
            continue
        if viewer is not None and not event.visibility.admits(viewer):
            continue
        if hidden and tells_owner(event.fact):
            continue
        line = render_event(event, viewer, names)
        if line:
            typer.echo(line)
    if orphans:
        typer.echo("traces of turns with no recorded decision:")
        show(orphans)
    if traces and not stored.traces:
        typer.echo(f"no decision traces beside this log ({traces_path(log)})")
    why = replay_differs(stored, game)
    if why is None:
        typer.echo("replay matches the stored log")
        return
    typer.echo(f"replay DIFFERS FROM the stored log: {why}")
    raise typer.Exit(1)


ResultsOption = Annotated[
    Path | None,
    typer.Option("--results", help="results folder (default: the spec's, else results/<name>)"),
]
TrackingUriOption = Annotated[
    str | None,
    typer.Option(
        "--tracking-uri",
        help="MLflow tracking URI (default: the spec's, $MLFLOW_TRACKING_URI, sqlite:///mlflow.db)",
    ),
]
NoTrackingOption = Annotated[bool, typer.Option("--no-tracking", help="do not log to MLflow")]
NoResumeOption = Annotated[
    bool,
    typer.Option(
        "--no-resume", help="archive the stored games (*.old) and start the tournament over"
    ),
]
ForceResumeOption = Annotated[
    bool,
    typer.Option(
        "--force-resume",
        help="resume even though the stored games were played by other code (records "
        "keep which code played each game)",
    ),
]
AddressOption = Annotated[
    str | None,
    typer.Option(
        help="join this Ray cluster (host:port, ray://host:port or auto); default: a "
        "private local cluster on 127.0.0.1"
    ),
]
NoRayOption = Annotated[bool, typer.Option("--no-ray", help="run in-process")]


def _tournament(
    spec: Path,
    *,
    address: str | None,
    no_ray: bool,
    results: Path | None,
    tracking_uri: str | None,
    no_tracking: bool,
    no_resume: bool,
    force_resume: bool,
) -> Any:
    from mafia_arena.experiments import Interrupted, run_tournament

    if no_resume and force_resume:
        raise CliError("--no-resume/--force-resume", "give one of them, not both")
    if no_ray and address:
        raise CliError("--address", "cannot join a Ray cluster with --no-ray")
    try:
        return run_tournament(
            spec,
            address=address,
            use_ray=not no_ray,
            resume=not no_resume,
            force_resume=force_resume,
            results_dir=results,
            tracking_uri=tracking_uri,
            track=not no_tracking,
        )
    except Interrupted as exc:  # typer turns a KeyboardInterrupt into a bare exit 130
        typer.echo(str(exc), err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None


@app.command()
def tournament(
    spec: Annotated[Path, typer.Argument(help="an experiment spec (experiments/*.toml)")],
    address: AddressOption = None,
    no_ray: NoRayOption = False,
    results: ResultsOption = None,
    tracking_uri: TrackingUriOption = None,
    no_tracking: NoTrackingOption = False,
    no_resume: NoResumeOption = False,
    force_resume: ForceResumeOption = False,
) -> None:
    """Run an experiment spec on Ray; re-running resumes with only the missing games."""
    summary = _tournament(
        spec,
        address=address,
        no_ray=no_ray,
        results=results,
        tracking_uri=tracking_uri,
        no_tracking=no_tracking,
        no_resume=no_resume,
        force_resume=force_resume,
    )
    typer.echo(str(summary))


@app.command()
def leaderboard(
    source: Annotated[
        Path,
        typer.Argument(
            help="an experiment spec (experiments/X.toml: plays the missing games first) or "
            "a results store (results/X or results/X/games.jsonl)"
        ),
    ],
    out: Annotated[Path | None, typer.Option(help="output folder")] = None,
    view: Annotated[str, typer.Option(help="all, bot, human or mixed games")] = "all",
    no_ray: Annotated[bool, typer.Option("--no-ray", help="run missing games in-process")] = False,
    results: ResultsOption = None,
    tracking_uri: TrackingUriOption = None,
    no_tracking: NoTrackingOption = False,
) -> None:
    """Write leaderboards/<experiment>/ (README, CSV, plots) from stored results."""
    from mafia_arena.leaderboard.cli import Invocation, leaderboard_command

    if view not in ("all", "bot", "human", "mixed"):
        raise CliError("--view", f"expected all, bot, human or mixed, got {view!r}")
    invocation = Invocation(source, out, view, results, no_ray, no_tracking)
    if source.suffix == ".toml":
        summary = _tournament(
            source,
            address=None,
            no_ray=no_ray,
            results=results,
            tracking_uri=tracking_uri,
            no_tracking=no_tracking,
            no_resume=False,
            force_resume=False,
        )
        typer.echo(str(summary))
        source = summary.results_dir
    leaderboard_command(source, out, view, invocation)


@app.command()
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
    )
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


def serve_settings(
    *,
    db: Path | None = None,
    fixed_nights: bool = True,
    solo_nights: bool = True,
    allow_agent: Sequence[str] | None = None,
    allow_paid_bots: bool = False,
    grace: float | None = None,
    idle_turns: int | None = None,
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
    return options


@app.command()
def train(
    spec: Annotated[
        Path, typer.Argument(help="a training spec, e.g. experiments/rl-town-votes.toml")
    ],
    out: Annotated[Path | None, typer.Option(help="output folder (runs/train/<name>)")] = None,
    steps: Annotated[
        int | None, typer.Option(help="override the spec's steps (0: evaluate only)", min=0)
    ] = None,
    tracking_uri: Annotated[str | None, typer.Option(help="MLflow tracking URI")] = None,
    track: Annotated[bool, typer.Option(help="log the run to MLflow")] = True,
) -> None:
    """Train a policy from a spec (needs the rl extra); writes policy.npz and a curve."""
    import dataclasses

    from mafia_arena.rl.spec import TrainSpecError, load_train_spec
    from mafia_arena.rl.train import MissingRLExtra
    from mafia_arena.rl.train import train as run_training

    try:
        loaded = load_train_spec(spec)
        if steps is not None:
            loaded = dataclasses.replace(loaded, steps=steps)
        folder = out or Path("runs") / "train" / loaded.name
        result = run_training(loaded, folder, tracking_uri=tracking_uri, track=track)
    except (TrainSpecError, MissingRLExtra) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"policy written to {result.policy_path}")
    for rate in result.final:
        typer.echo(rate.row())


if __name__ == "__main__":
    main()
