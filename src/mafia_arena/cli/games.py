"""The game commands: variants, play (one game, or a person at a seat), run (many games'
win rates), replay (a stored log, checked against a fresh replay).

A game whose model-backed agents fell back on infrastructure faults says so on stderr
(`count_endpoint_faults`, `warn_endpoint_faults`): without it, a game against a server
that is down ends as if all were well. ``--log`` names an output: a folder, or a path
whose folder cannot be made or written, is refused before the game as every output
folder is (`check_log_path`), and a file that then cannot be written is "cannot write"
(`CliError`, exit 2). ``run`` and ``replay`` write no file (``--key-dir`` is checked
alike, `tables.host_key_in`). A replay that differs from its stored
log exits 1. Ctrl-C prints one line on stderr saying what was (not) written and exits
130 (`EXIT_INTERRUPTED`): ``play``, that nothing was recorded and the game's seed (its
``--log`` is written only once the game is over, and whole), also when stopped as the
game ended, while its end is found, or before it started, while the variant is loaded
and the players seated; ``run``, how many games it finished (none, stopped while it
sets up) and that no summary was printed, or, once every game is played, that they
were and whether their summary is out (one stopped while it is printed is printed
whole first); ``replay``, that the log was not checked.
SIGTERM stops them as Ctrl-C does, from their first line (`sigterm.sigterm_as_interrupt`):
a ``kill`` or ``timeout`` ending a script's ``run --json`` or ``replay`` leaves the line a
Ctrl-C does, not a process ended by the signal with nothing said. ``play`` and ``run``
say their line from their first line too, while they import the engine and the runner
(`said_if_interrupted`), and a ``--key-dir`` folder made for the key is removed again
when the key is not yet in it (`tables.host_key_in`).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import statistics
from collections import Counter
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from tqdm import tqdm

from mafia_arena.cli.app import EXIT_INTERRUPTED, CliError, nonempty_path, path_argument
from mafia_arena.cli.tables import (
    DEFAULT_PLAYERS,
    KeyDirOption,
    SetOption,
    _seat,
    check_seat,
    host_key_in,
    load_for_table,
    parse_overrides,
    warn_below_recommended,
)
from mafia_arena.rules import available_variants, load_variant
from mafia_arena.sigterm import (
    interrupt_behind,
    interrupts_deferred,
    sigterm_arrived,
    sigterm_as_interrupt,
)
from mafia_arena.whole_numbers import MAX_SEED

REPLAY_DIFFERS = "replay DIFFERS FROM the stored log:"
"""How `replay` starts the line saying why a log does not replay (exit 1): a variant
file whose content is not the one that played it, refused before anything is replayed,
or a logged decision the game refuses (`runner.log.replay_or_why`), or events that
differ (`runner.log.replay_differs`)."""


def variants() -> None:
    """List the bundled variants."""
    for name in available_variants():
        variant = load_variant(name)
        upper = variant.max_players
        players = (
            f"{variant.min_players}-{upper}" if upper is not None else f"{variant.min_players}+"
        )
        typer.echo(f"{name:10} {players:6} players  {variant.title}")


@sigterm_as_interrupt()
def play(
    variant: Annotated[str, typer.Option(help="variant name or file")] = "standard",
    players: Annotated[int, typer.Option(help="number of players", min=1)] = DEFAULT_PLAYERS,
    agents: Annotated[str, typer.Option(help="agents, e.g. heuristic or a,b,c")] = "heuristic",
    seed: Annotated[
        int | None,
        typer.Option(
            min=0, max=MAX_SEED, help="game seed (default: random, printed after the game)"
        ),
    ] = None,
    seat: Annotated[
        int | None,
        typer.Option(help="show only this seat's view (1-based); with --human, that seat's"),
    ] = None,
    human: Annotated[int | None, typer.Option(help="play this seat yourself (1-based)")] = None,
    log: Annotated[
        Path | None,
        typer.Option(parser=nonempty_path, metavar="<path>", help="write the game log here"),
    ] = None,
    key_dir: KeyDirOption = None,
    set_: SetOption = None,
) -> None:
    """Play one game and print its transcript as it happens.

    The same ``--seed`` deals the same cards; with the same ``--key-dir`` too (and, at a
    ``--human`` seat, the same answers) the whole game plays again, log for log."""
    try:  # from the first line to the players seated: stopped, it says no game started
        from mafia_arena.engine.catalogue import GameEnded
        from mafia_arena.runner.log import replay_or_why
        from mafia_arena.runner.match import play_match
        from mafia_arena.views.display_names import DisplayNames
        from mafia_arena.views.knowledge import KnowledgeFold
        from mafia_arena.views.people_text import log_line, seat_line
        from mafia_arena.views.pseudonyms import owners_hidden, tells_owner

        check_seat("--seat", seat, players)
        check_seat("--human", human, players)
        check_seat_with_human(seat, human)
        if log is not None:
            check_log_path(log)
        overrides = parse_overrides(set_)
        rules = load_for_table(variant, set_, players)
        warn_below_recommended(rules, players)
        seated = _seat(agents, players, rules)  # agent files read, clients made
        key = host_key_in(key_dir)
        if sigterm_arrived():  # its interrupt was dropped on the way (see sigterm_arrived)
            raise KeyboardInterrupt
    except BaseException as exc:
        said_if_interrupted(exc, play_interrupted_message(None, log))
        raise
    if human is not None:
        from mafia_arena.web.terminal import QuitGame, play_in_terminal

        try:
            # the bots seated here play, so their endpoint faults can be counted below;
            # the entry at the person's own seat is replaced there and never plays. The
            # log is written below, once the game is over: one abandoned recorded nothing
            played = play_in_terminal(
                variant, players, human - 1, seated, seed, overrides, host_key=key, key_dir=key_dir
            )
        except (QuitGame, KeyboardInterrupt):
            typer.echo("\nGame abandoned: nothing was recorded.", err=True)
            raise typer.Exit(130) from None
        human_faults: Counter[tuple[str, str, str]] = Counter()
        count_endpoint_faults(seated, played.log, human_faults, skip=(human - 1,))
        warn_endpoint_faults(human_faults, 1)
        if log is not None:
            _write_log(played.log, log)
        return
    viewer = None if seat is None else seat - 1
    hidden = owners_hidden(rules)  # OP-D36: the omniscient transcript names no owner
    names = DisplayNames.of(rules)  # roles and cards by the variant's own names
    fold = None if viewer is None else KnowledgeFold(viewer)  # the seat's view so far

    def shown(event: Any, game: Any = None) -> str | None:
        """The line `event` prints, if any, as the terminal game prints a seat's lines
        (`seat_line`: whose a private line is first) or, without ``--seat``, as the
        moderator's view tags the whole log's (`log_line`); `game`, the finished game,
        says why it ended. Each event is shown once, in log order."""
        if fold is None:
            if event.visibility.scope == "host" or (hidden and tells_owner(event.fact)):
                return None
            return log_line(event, names, rules, game)
        if not event.visibility.admits(fold.seat):
            return None
        fold.extend([event.seen])
        return seat_line(event.seen, fold.snapshot(), names, rules, game)

    ending: list[Any] = []  # the end and what follows it: printed once the game is over

    def show(event: Any) -> None:
        if ending or isinstance(event.fact, GameEnded):
            ending.append(event)
            return
        line = shown(event)
        if line:
            typer.echo(line)

    if seed is None:
        seed = secrets.randbelow(2**31)
    ended = False
    try:
        result = asyncio.run(
            play_match(rules, seated, seed, overrides, on_event=show, host_key=key)
        )
        ended = True
        if ending:  # why it ended is found in the finished game (`views.endings`)
            finished = replay_or_why(result.log)
            for event in ending:
                line = shown(event, None if isinstance(finished, str) else finished)
                if line:
                    typer.echo(line)
        faults: Counter[tuple[str, str, str]] = Counter()
        count_endpoint_faults(seated, result.log, faults)
        warn_endpoint_faults(faults, 1)
        typer.echo(f"game seed: {seed}")
    except KeyboardInterrupt:  # typer would make it a bare exit 130
        typer.echo(play_interrupted_message(seed, log, ended=ended), err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if log is not None:
        _write_log(result.log, log)


def said_if_interrupted(error: BaseException, line: str) -> None:
    """Print `line` on stderr and exit 130 (`EXIT_INTERRUPTED`) when `error` is Ctrl-C
    or SIGTERM: a `KeyboardInterrupt`, or an error Python raised from one
    (`sigterm.interrupt_behind`); return otherwise, for the caller to raise `error`.

    Why: typer turns a `KeyboardInterrupt` into a bare exit 130, and an interrupt that
    lands while a module is imported (a class made: `dataclasses`) can reach the
    command as a `RuntimeError`, a traceback; a command stopped while it starts says
    its own line instead, as it does once its games run."""
    if interrupt_behind(error):
        typer.echo(line, err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None


def check_log_path(log: Path) -> None:
    """Raise `output_folders.OutputFolderError` unless ``--log`` `log` can be written
    when the game is over: `log` must not be a folder, and its folder must be one that
    can be made (the log's writer makes a missing one) and written, worded as every
    output folder's refusal is (``FOLDER: REASON (the folder of --log LOG)``, as
    ``serve --db`` words its store's folder).

    Why before the game: the log is written only once the game is over, so a bad path
    found then loses the game played; and a folder under a file read "no such folder"
    where the reason is the file in its way."""
    from mafia_arena.output_folders import check_output_file

    check_output_file(log, "--log")  # a name too long: writing the log says so


def play_interrupted_message(seed: int | None, log: Path | None, *, ended: bool = False) -> str:
    """What `play` says when Ctrl-C stops it: nothing was recorded (a log is written
    only once the game is over), and the seed of the game it stopped. `seed` None: it
    stopped before the game started, while the variant was loaded or the players
    seated. `ended`: the game was over, and it stopped while it found and printed why
    the game ended (it replays the finished game for that) or what followed, before
    the log.

    Why the seed: a game dealt from a random seed is otherwise lost; with it, ``play
    --seed`` deals the same cards. Why words of its own before the game and once it
    ended: "before the game ended" would say a game was lost, or be untrue, and a bare
    exit 130 (typer's) would not say that no log was written."""
    unwritten = "" if log is None else f"; no log written to {log}"
    if seed is None:
        return f"\ninterrupted before the game started: nothing was recorded{unwritten}"
    when = "as the game ended" if ended else "before the game ended"
    return (
        f"\ninterrupted {when}: nothing was recorded{unwritten} "
        f"(game seed: {seed}; --seed {seed} deals it again)"
    )


def _write_log(log: Any, path: Path) -> None:
    """Write the game `log` (a `runner.log.GameLog`) to ``--log`` `path` and say so.

    Ctrl-C or SIGTERM arriving meanwhile waits until both are done
    (`sigterm.interrupts_deferred`): a game stopped then has its whole log where the
    line says, rather than a truncated one or a line never printed."""
    with interrupts_deferred():
        try:
            log.save(path)
        except OSError as exc:
            raise _unwritable(path, exc) from exc
        typer.echo(f"log written to {path}")


def check_seat_with_human(seat: int | None, human: int | None) -> None:
    """``--seat`` beside ``--human`` must name the person's own seat (`CliError`).

    Why: the person sees their own seat's view and no other (another seat's private
    events would be hidden information); a different ``--seat`` cannot be honoured, and
    ignoring it would let the person believe they see that seat's view."""
    if seat is not None and human is not None and seat != human:
        raise CliError(
            "--seat",
            f"with --human {human} you see seat {human}'s view only; "
            f"leave --seat out (or to play seat {seat}, give --human {seat})",
        )


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


def _check_last_seed(seed: int, games: int) -> None:
    """Usage error naming ``--seed`` when the last game's seed (``seed + games - 1``)
    passes `MAX_SEED`: every seed ``run`` plays is bounded like ``play --seed``, so each
    game can be played again alone with ``play --seed``."""
    last = seed + games - 1
    if last > MAX_SEED:
        raise typer.BadParameter(
            f"the last game's seed, {seed} + {games - 1} = {last}, is above {MAX_SEED}; "
            f"use a seed of at most {MAX_SEED - games + 1} for {games} games",
            param_hint="'--seed'",
        )


@sigterm_as_interrupt()
def run(
    variant: Annotated[str, typer.Option(help="variant name or file")] = "standard",
    players: Annotated[int, typer.Option(help="number of players", min=1)] = DEFAULT_PLAYERS,
    agents: Annotated[str, typer.Option(help="agents: name, a,b,c or town=x,mafia=y")] = "random",
    games: Annotated[int, typer.Option(help="number of games", min=1)] = 100,
    seed: Annotated[
        int, typer.Option(min=0, max=MAX_SEED, help="base seed; game i uses seed+i")
    ] = 0,
    key_dir: KeyDirOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the summary as JSON")] = False,
    set_: SetOption = None,
) -> None:
    """Play many games and print win rates per faction with 95% intervals."""
    lengths: list[int] = []  # one per game played
    try:  # from the first line to the last game: stopped, it says how many it played
        _check_last_seed(seed, games)
        from mafia_arena.agents.base import all_synchronous
        from mafia_arena.runner.match import play_match, play_match_sync
        from mafia_arena.seat_seeds import new_host_key

        winners: Counter[str] = Counter()
        faults: Counter[tuple[str, str, str]] = Counter()
        overrides = parse_overrides(set_)
        key = host_key_in(key_dir) or new_host_key()  # one key for all the games of the run
        rules = load_for_table(variant, set_, players)
        warn_below_recommended(rules, players)
        _seat(agents, players, rules)  # a bad --agents fails before the progress bar starts
        if sigterm_arrived():  # its interrupt was dropped on the way (see sigterm_arrived)
            raise KeyboardInterrupt
        for index in tqdm(range(games), desc=f"{variant} x{players}", disable=as_json):
            seated = _seat(agents, players, rules)
            if all_synchronous(seated):
                result = play_match_sync(rules, seated, seed + index, overrides, host_key=key)
            else:
                played = play_match(rules, seated, seed + index, overrides, host_key=key)
                result = asyncio.run(played)
                count_endpoint_faults(seated, result.log, faults)
            winners[result.winner or "draw"] += 1
            lengths.append(result.game_length)
    except BaseException as exc:
        said_if_interrupted(exc, run_interrupted_message(len(lengths), games))
        raise
    printed = False
    try:  # the games played: stopped, it says so, and whether their summary is out
        from mafia_arena.stats import wilson_interval

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
        with interrupts_deferred():  # the summary whole, or none of it
            warn_endpoint_faults(faults, games)
            print_run_summary(summary, games, as_json)
            printed = True
    except KeyboardInterrupt:
        message = run_interrupted_message(games, games, summary_printed=printed)
        typer.echo(message, err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None


def print_run_summary(summary: dict[str, Any], games: int, as_json: bool) -> None:
    """Print `run`'s summary: as JSON, or one line per faction and the mean length."""
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


def run_interrupted_message(finished: int, games: int, *, summary_printed: bool = False) -> str:
    """What `run` says when Ctrl-C stops it: how far it got, and whether its summary
    came (``run`` writes no file; with ``--json`` its output is then empty, and a script
    must not take the missing summary for a run of no games).

    Why no summary of the games finished: they are the first seeds of the run, not a
    sample of it, and rates printed as the run's would pass for its result. Why words
    of their own once every game is played: "run the same command to play them all"
    would not say that the games were played, nor (stopped as the summary is printed,
    which waits until it is whole) that the summary above is the run's, whole."""
    if finished < games:
        return (
            f"\ninterrupted after {finished} of {games} games: no summary printed, nothing "
            "written; run the same command to play them all"
        )
    if summary_printed:
        return (
            f"\ninterrupted after all {games} games were played and their summary "
            "printed whole; nothing written"
        )
    return (
        f"\ninterrupted after all {games} games were played, before their summary: no "
        "summary printed, nothing written; run the same command to play them again"
    )


REPLAY_INTERRUPTED = (
    "\ninterrupted: the replay was not checked against the stored log; nothing written"
)
"""What `replay` says when Ctrl-C stops it (it only reads; the verdict line is missing)."""


@sigterm_as_interrupt()
def replay(
    log: Annotated[Path, path_argument("log", "a game log (JSONL)")],
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
    variant: Annotated[
        Path | None,
        typer.Option(
            parser=nonempty_path,
            metavar="<path>",
            help="the variant file that played the game (default: the file the log "
            "records, else the bundled variant of its name); a file of your own is refused "
            "unless its content digest is the one the log records",
        ),
    ] = None,
) -> None:
    """Replay a stored log, omniscient or from one seat's view.

    Only the rules that played the game replay it: a variant file of your
    own whose content digest is not the one the log records exits 1 saying
    so; ``--variant`` gives the file that played it (moved, or a copy). A
    bundled variant edited since replays, and a note names the edit."""
    try:
        _replay(log, seat, traces, variant)
    except KeyboardInterrupt:  # typer would make it a bare exit 130
        typer.echo(REPLAY_INTERRUPTED, err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None


def _replay(log: Path, seat: int | None, traces: bool, variant: Path | None) -> None:
    """`replay`'s body (its docstring says what it does)."""
    from mafia_arena.runner.log import (
        replay_differs,
        replay_or_why,
        traces_path,
        variant_edited,
    )
    from mafia_arena.runner.log_file import read_log
    from mafia_arena.runner.traces import trace_lines, traces_by_decision
    from mafia_arena.views.display_names import DisplayNames
    from mafia_arena.views.people_text import log_line, seat_line
    from mafia_arena.views.pseudonyms import mask, owners_hidden, pseudonyms_in, tells_owner
    from mafia_arena.views.view import SeatTracker

    stored = read_log(log, variant)
    check_seat("--seat", seat, stored.players, f"{log} has {stored.players} players")
    game = replay_or_why(stored, str(log), variant)
    if isinstance(game, str):  # a logged decision the game refuses: nothing to show
        typer.echo(f"{REPLAY_DIFFERS} {game}")
        raise typer.Exit(1)
    viewer = None if seat is None else seat - 1
    knowledge = None if viewer is None else SeatTracker(viewer).update(game)
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
        seen = event.seen  # the event as the seat received it (host events: None)
        if knowledge is None or seen is None:  # the whole log, tagged as the moderator's
            line = log_line(event, names, game.variant, game)
        else:  # the seat's lines as its terminal game printed them
            line = seat_line(seen, knowledge, names, game.variant, game)
        if line:
            typer.echo(line)
    if orphans:
        typer.echo("traces of turns with no recorded decision:")
        show(orphans)
    if traces and not stored.traces:
        typer.echo(f"no decision traces beside this log ({traces_path(log)})")
    why = replay_differs(stored, game)
    if why is None:
        edited = variant_edited(stored, game.variant)
        if edited is not None:  # a bundled file edited since, to no effect on this game
            typer.echo(f"note: {edited}; it replays this game all the same")
        typer.echo("replay matches the stored log")
        return
    typer.echo(f"{REPLAY_DIFFERS} {why}")
    raise typer.Exit(1)
