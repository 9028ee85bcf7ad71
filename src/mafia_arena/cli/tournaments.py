"""The tournament commands: tournament (play an experiment spec, resuming what is
stored) and leaderboard (write a leaderboard from stored results, playing a spec's
missing games first).

Ctrl-C during a tournament prints ``N games stored; run the same command to resume``
(or, stopped while starting, that no game was played) and exits 130
(`EXIT_INTERRUPTED`); SIGTERM does the same from the moment the command runs until its
last line. Stopped once the games are stored and before their summary is printed, it
says so, as a moment earlier, and prints no summary (`_summary_said`). `leaderboard`
takes SIGTERM as Ctrl-C from its start too; while a board is written, the previous
board stays as it was, with no staged file beside it (`leaderboard.publish`), and one
line says which board the folder holds (exit 130). A board whose games include void
ones is written without them, and a stderr line says how many were left out
(`leaderboard.cli`). Contradictory options (``--no-resume`` with ``--force-resume``,
``--address`` with ``--no-ray``) are a `CliError`. A tournament that leaves void games in
the store (decided by infrastructure failures: an endpoint down, a wrong URL or model
name, a quota) prints its summary, then one stderr line saying so, and exits 1 as for
failed games (`EXIT_VOID_GAMES`): its results are not yet the spec's, and a script that
goes on to publish them must be able to tell.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from mafia_arena.cli.app import (
    EXIT_INTERRUPTED,
    CliError,
    nonempty_path,
    nonempty_text,
    path_argument,
)
from mafia_arena.sigterm import (
    STARTING_MESSAGE,
    interrupt_behind,
    interrupts_deferred,
    sigterm_arrived,
    sigterm_as_interrupt,
)

ResultsOption = Annotated[
    Path | None,
    typer.Option(
        "--results",
        parser=nonempty_path,
        metavar="<path>",
        help="results folder (default: the spec's, else results/<name>)",
    ),
]
TrackingUriOption = Annotated[
    str | None,
    typer.Option(
        "--tracking-uri",
        parser=nonempty_text,
        metavar="<str>",
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
        help="resume even though the stored games were played by other code or another "
        "build of their agents (records keep which code and build played each game)",
    ),
]
AddressOption = Annotated[
    str | None,
    typer.Option(
        parser=nonempty_text,
        metavar="<str>",
        help="join this Ray cluster (host:port, ray://host:port or auto); default: a "
        "private local cluster on 127.0.0.1",
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
    host_key: bytes | None = None,
    void_said: bool = False,
) -> Any:
    """Run the spec and print its summary (with `void_said`, then the void games' line,
    `void_games_message`); an interrupt is said as one line and exits 130. SIGTERM is an
    interrupt from here on, before the driver's imports (they take a while too), until
    the summary is out (`_summary_said`)."""
    with sigterm_as_interrupt():
        try:
            from mafia_arena.experiments import Interrupted, run_tournament
        except BaseException as exc:
            if not interrupt_behind(exc):
                raise
            typer.echo(STARTING_MESSAGE, err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        if sigterm_arrived():  # its interrupt was dropped on the way (see sigterm_arrived)
            typer.echo(STARTING_MESSAGE, err=True)
            raise typer.Exit(EXIT_INTERRUPTED)
        if no_resume and force_resume:
            raise CliError("--no-resume/--force-resume", "give one of them, not both")
        if no_ray and address:
            raise CliError("--address", "cannot join a Ray cluster with --no-ray")
        summary = None
        try:
            summary = run_tournament(
                spec,
                address=address,
                use_ray=not no_ray,
                resume=not no_resume,
                force_resume=force_resume,
                results_dir=results,
                tracking_uri=tracking_uri,
                track=not no_tracking,
                host_key=host_key,
            )
            _summary_said(summary, void_said)
        except Interrupted as exc:  # typer turns a KeyboardInterrupt into a bare exit 130
            typer.echo(str(exc), err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except KeyboardInterrupt:  # once the driver is done: every game of the run stored
            typer.echo(_ended_message(summary), err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        return summary


def _summary_said(summary: Any, void_said: bool) -> None:
    """Print `summary` (and with `void_said`, its void games' line) whole: Ctrl-C or
    SIGTERM arriving while the lines are printed waits until they are out.

    An interrupt after the driver returned and before the summary is printed stops the
    command with the line an interrupt gives a moment earlier, while the driver reads
    the store back (``N games stored; run the same command to resume``, exit 130,
    `_ended_message`), and no summary. Why not print the summary first: a stop asked
    for is honoured at once, whether it lands in the driver's last lines or in the
    command's first; the same command prints the summary without playing a game (every
    one is stored); and the output of a stopped command holds no summary that a script
    could take for a finished run's (as ``run --json``). One that arrives while the
    summary is printed finds it whole: the line follows it."""
    text = str(summary)
    with interrupts_deferred():
        typer.echo(text)
        if void_said and summary.games_void:
            typer.echo(void_games_message(summary.games_void), err=True)


def _ended_message(summary: Any) -> str:
    """What an interrupt after the driver returned says: how many games are stored, as
    the driver's own interrupt says it (`Interrupted`). Without `summary` (the interrupt
    landed while the driver gave back its SIGTERM handler, before its summary reached the
    command) the count is not known here, but every game of the run is stored all the
    same."""
    from mafia_arena.experiments.errors import Interrupted

    if summary is None:
        return (
            "interrupted as the tournament ended: its games are stored; run the same "
            "command to resume"
        )
    return str(Interrupted(summary.games_stored, summary.games_total))


def tournament(
    spec: Annotated[
        Path,
        path_argument("spec", "an experiment spec (experiments/*.toml)"),
    ],
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
        void_said=True,
    )
    if summary.games_void:
        raise typer.Exit(EXIT_VOID_GAMES)


EXIT_VOID_GAMES = 1
"""Exit code of `tournament` when void games remain: the one failed games give, since
both are games the spec asks for that the results do not yet hold, and the same command
plays both again."""


def void_games_message(void: int) -> str:
    """The stderr line after a summary with `void` void games: what they are and what to
    do (the fallback kinds are in the summary above it)."""
    return (
        f"error: {void} void game(s) decided by infrastructure failures (see the "
        "fallbacks above); they are stored but not counted: fix the endpoint and run "
        "the same command to play them again"
    )


def leaderboard(
    source: Annotated[
        Path,
        path_argument(
            "source",
            "an experiment spec (experiments/X.toml: plays the missing games first) or "
            "a results store (results/X or results/X/games.jsonl)",
        ),
    ],
    out: Annotated[
        Path | None, typer.Option(parser=nonempty_path, metavar="<path>", help="output folder")
    ] = None,
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
    playing_only = {
        "--no-ray": no_ray,
        "--tracking-uri": tracking_uri,
        "--no-tracking": no_tracking,
    }
    given = [option for option, value in playing_only.items() if value]
    if source.suffix != ".toml" and given:  # they say how to play a spec's missing games
        raise CliError(
            given[0],
            f"says how an experiment spec's missing games are played, and {source} is a "
            "results store, not a spec; leave it out",
        )
    # SIGTERM stops it as Ctrl-C does from here to the board's staged files removed,
    # the spec's games and their summary included (`_tournament` says its own interrupts)
    with sigterm_as_interrupt():
        try:
            if source.suffix == ".toml":
                _check_out_first(out)
                summary = _tournament(
                    source,
                    address=None,
                    no_ray=no_ray,
                    results=results,
                    tracking_uri=tracking_uri,
                    no_tracking=no_tracking,
                    no_resume=False,
                    force_resume=False,
                    host_key=_board_key(source, out, results),
                )
                source = summary.results_dir
            leaderboard_command(source, out, view, invocation)
        except KeyboardInterrupt as exc:  # typer would make it a bare exit 130
            typer.echo(_board_interrupted_message(exc), err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None


def _board_interrupted_message(interrupt: KeyboardInterrupt) -> str:
    """The line `leaderboard` prints when Ctrl-C or SIGTERM stops it while it reads the
    store or writes the board: which board the output folder holds (the previous one,
    as it was, or the new one, whole: never a mix, `leaderboard.publish`)."""
    from mafia_arena.leaderboard.publish import BoardInterrupted

    if isinstance(interrupt, BoardInterrupted):
        return str(interrupt)
    return "interrupted before the board was written; no file of it written"


def _check_out_first(out: Path | None) -> None:
    """An ``--out`` that cannot take the board fails before a spec's missing games are
    played (`LeaderboardError`): found after them, it costs the whole run's time, and
    the message would follow a tournament summary."""
    from mafia_arena.leaderboard.cli import LeaderboardError
    from mafia_arena.output_folders import unusable_folder

    problem = None if out is None else unusable_folder(out, "--out")
    if problem is not None:
        raise LeaderboardError(problem)


def _board_key(spec: Path, out: Path | None, results: Path | None) -> bytes | None:
    """The host key published with the spec's board (``host_key`` in the `out` folder,
    else in leaderboards/<name>), for a results folder that has none yet: with it the
    board's games are played again exactly as published, so the published board
    regenerates byte for byte. None when there is no such key or the results folder
    already has its own."""
    from mafia_arena.experiments.spec import load_spec
    from mafia_arena.leaderboard.cli import board_folder
    from mafia_arena.seat_seeds import KEY_FILE, read_host_key

    experiment = load_spec(spec)
    default = board_folder(experiment.name)
    boards = [default] if out is None else [out, default]
    published = next((b / KEY_FILE for b in boards if (b / KEY_FILE).is_file()), None)
    folder = results or experiment.results_dir
    if published is None or (folder / KEY_FILE).exists():
        return None
    key = read_host_key(published)
    typer.echo(_board_key_note(folder, published, key))
    return key


def _board_key_note(folder: Path, published: Path, key: bytes) -> str:
    """The line that says what the published `key` (read from `published`) is taken for
    in the results `folder`, which has no key file: a new folder's games are played with
    it; a folder holding stored games (whose key file was removed) resumes with it only
    where its manifest names that key (`provenance.folder_host_key`, which refuses
    otherwise, after this line). Stored games are counted as the resume counts them, by
    the store's reader (`StoredRecords`): the cut last line of a stopped write is none.

    Why: the line is printed before the resume checks run, and a folder with games is not
    a new one; taking it for one, a reader would not look for the lost key file. Why
    count records, not bytes: a store holding only a cut line is resumed as one without
    games, with the published key, and a line saying otherwise would contradict it."""
    from mafia_arena.experiments.provenance import ManifestError, read_manifest
    from mafia_arena.results_file import (
        MANIFEST_NAME,
        STORE_NAME,
        StoredRecords,
        StoreFormatError,
    )
    from mafia_arena.seat_seeds import KEY_FILE, host_key_fingerprint

    try:
        new = not StoredRecords(folder / STORE_NAME)
    except (OSError, StoreFormatError):  # records the resume refuses, naming file and line
        new = False
    if new:
        return f"{folder}: a new results folder, played with the host key of {published}"
    try:
        recorded = (read_manifest(folder) or {}).get("host_key_fingerprint")
    except ManifestError:  # the resume refuses it, naming the file and the reason
        recorded = None
    missing = f"{folder}: holds stored games but no {KEY_FILE} file"
    if not isinstance(recorded, str) or not recorded:
        return (
            f"{missing}; resuming with the host key of {published}, which {MANIFEST_NAME} "
            "does not say whether its stored games were played with"
        )
    if recorded != host_key_fingerprint(key):
        return (
            f"{missing}; the host key of {published} (fingerprint "
            f"{host_key_fingerprint(key)}) is not the one its stored games were played "
            f"with (fingerprint {recorded}, {MANIFEST_NAME})"
        )
    return (
        f"{missing}; resuming with the host key of {published}, the one its stored games "
        f"were played with ({MANIFEST_NAME})"
    )
