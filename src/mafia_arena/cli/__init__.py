"""The `mafia-arena` command: play, run, replay, tournament, leaderboard, serve, train.

`main` is the console script's entry point (``python -m mafia_arena.cli`` too); the
subcommands live in one module each and are registered on `app` here, in the order
``--help`` lists them: `games` (variants, play, run, replay), `tournaments` (tournament,
leaderboard), `server` (serve), `training` (train); `tables` holds the option helpers
that the game commands share.

Errors
------
`main` is the entry point. A user error — a bad spec, variant, agent file or option, an
unreachable service, a results folder that cannot be resumed, an output folder that
cannot be made or written (`output_folders`), a file system that is
full or read-only under a file being written — prints one paragraph
naming the file (or option), the key and the reason, and exits with code 2; no
traceback unless ``--debug`` is given (then the traceback is printed instead of the
paragraph, and the exit code stays the same).
Ctrl-C during a tournament prints ``N games stored; run the same command to resume``
and exits 130; during a training run, one line saying what its output folder holds,
and exits 130 too; so do `play`, `run`, `replay` and `leaderboard`, each with one line
saying what was (not) written (`games`, `tournaments`). One that no command answers
with its line (landing while the options are read, before the command line is parsed, or
while an error is reported) says "interrupted" and exits 130 too, never a bare 130 or a
traceback (`app.UnansweredInterrupt`). `serve` stops its server
gracefully, as the server itself does on Ctrl-C. Games that failed exit 1 after the
summary, and so does a tournament that leaves void games in the store (decided by
infrastructure failures).
"""

from __future__ import annotations

import errno
import sys
import traceback
from collections.abc import Sequence

import typer

from mafia_arena.cli import games, server, tournaments, training
from mafia_arena.cli.app import _STATE, EXIT_INTERRUPTED, EXIT_USER_ERROR, CliError, app
from mafia_arena.sigterm import interrupt_behind

__all__ = ["EXIT_INTERRUPTED", "EXIT_USER_ERROR", "CliError", "app", "main"]

for _command in (
    games.variants,
    games.play,
    games.run,
    games.replay,
    tournaments.tournament,
    tournaments.leaderboard,
    server.serve,
    training.train,
):
    app.command()(_command)


def _user_errors() -> tuple[type[BaseException], ...]:
    """The exceptions that are the user's to fix (the message says how), not bugs."""
    from mafia_arena.agents.llm_prompts import TemplateError
    from mafia_arena.experiments.errors import ResultsConflict, ServiceError, SpecError
    from mafia_arena.leaderboard.cli import LeaderboardError
    from mafia_arena.output_folders import OutputFolderError
    from mafia_arena.results_file import StoreFormatError
    from mafia_arena.rules import VariantError
    from mafia_arena.runner.log_file import LogFileError
    from mafia_arena.seat_seeds import HostKeyError

    errors: list[type[BaseException]] = [
        CliError,
        LogFileError,
        SpecError,
        VariantError,
        ResultsConflict,
        ServiceError,
        TemplateError,
        LeaderboardError,
        OutputFolderError,
        StoreFormatError,
        HostKeyError,
    ]
    try:
        from mafia_arena.llm.definition import AgentDefinitionError
    except ImportError:  # the llm extra is not installed
        pass
    else:
        errors.append(AgentDefinitionError)
    return tuple(errors)


def _no_room(error: BaseException) -> bool:
    """Whether `error` is a file system refusing a write that names its file: full, over
    quota or read-only. The user frees room or picks another folder (a tournament's
    stored games stay, and its next run plays the rest), so it is their error, not a
    bug to report with a traceback."""
    return (
        isinstance(error, OSError)
        and error.filename is not None
        and error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS)
    )


def _paragraph(error: BaseException) -> str:
    """The error's message as one paragraph (no blank lines, no trailing space). An
    `OSError` names its file and the system's reason only: it may come from a read or
    a write, which the error does not say."""
    if isinstance(error, OSError) and error.filename:
        return f"{error.filename}: {error.strerror or error}"
    lines = [line.rstrip() for line in str(error).strip().splitlines()]
    return "\n".join(line for line in lines if line)


def _report(error: BaseException, prefix: str = "") -> None:
    """The error as its paragraph, or with ``--debug`` as the traceback being handled
    (the caller's exit code stays the same either way)."""
    if _STATE["debug"]:
        traceback.print_exc()
    else:
        typer.echo(f"{prefix}{_paragraph(error)}", err=True)


def main(args: Sequence[str] | None = None) -> None:
    """Run the command line (see the module docstring for exit codes)."""
    try:
        _run_command_line(args)
    except KeyboardInterrupt:  # before the command line is parsed, or as an error is said
        typer.echo("interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    finally:
        _forget_caught_interrupts()


def _forget_caught_interrupts() -> None:
    """Keep the exit code chosen here when an interrupt was caught on the way.

    CPython 3.11 marks a `KeyboardInterrupt` raised while `exec` or `eval` runs a
    string (as `dataclasses` and `namedtuple` do while a module is imported, which a
    Ctrl-C or SIGTERM at the start of a command often hits) as unhandled even when it
    is caught, and at exit then ends the process by SIGINT (status -2) instead of
    exiting 130. Running any string clears that mark; every interrupt reaching here
    has been handled, and one arriving later sets it again."""
    exec("")


def _run_command_line(args: Sequence[str] | None) -> None:
    """`main`'s body: the command, its errors as messages and exit codes."""
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
        _report(exc)
        sys.exit(1)
    except Exception as exc:
        if interrupt_behind(exc):  # an interrupt that Python wrapped (see interrupt_behind)
            typer.echo("interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        user_errors = (*_user_errors(), FileNotFoundError, IsADirectoryError, PermissionError)
        if not isinstance(exc, user_errors) and not _no_room(exc):
            raise
        _report(exc, "error: ")
        sys.exit(EXIT_USER_ERROR)
    if isinstance(code, int) and code:  # typer hands back an Exit's code (Ctrl-C: 130)
        sys.exit(code)
