"""The `mafia-arena` app object and what every subcommand shares with the entry point.

`app` is the Typer application; `mafia_arena.cli` registers each subcommand on it, in
the order ``--help`` lists them. `CliError` is a bad command-line value: `main` prints it
as one paragraph naming the option and the reason, and exits with `EXIT_USER_ERROR`
(2). `EXIT_INTERRUPTED` (130) is Ctrl-C's code. The ``--debug`` switch is kept in
`_STATE`, read by `main`: with it, an error propagates with its traceback.
`nonempty_text` and `nonempty_path` parse an option whose empty value is a usage error;
`path_argument` declares a path argument refused alike. Ctrl-C or SIGTERM that no
command answered with its own line leaves the app as an `UnansweredInterrupt`, which
`main` says as "interrupted" (exit 130), where typer would exit 130 with nothing said.

Why a module of its own: the subcommand modules raise `CliError` and `mafia_arena.cli`
imports them, so these names live below both, with no import cycle.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup


class UnansweredInterrupt(Exception):
    """Ctrl-C or SIGTERM that no command said its line for: it landed while the command
    line was parsed (before the command ran), or in a gap of a command. Raised from the
    `KeyboardInterrupt`, so `main` says "interrupted" and exits 130
    (`sigterm.interrupt_behind`)."""


class _CommandLine(TyperGroup):
    """The app's group: a `KeyboardInterrupt` that leaves it is an `UnansweredInterrupt`.

    Why: typer turns a `KeyboardInterrupt` into a bare exit 130, with nothing said; each
    command says its own line (and exits 130 itself), and one that reaches the group was
    answered by none, so `main` says at least that the command was interrupted."""

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt as exc:
            raise UnansweredInterrupt() from exc

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            raise UnansweredInterrupt() from exc


app = typer.Typer(
    cls=_CommandLine,
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


def nonempty_text(text: str) -> str:
    """An option's text, refused when empty or blank (a usage error, exit 2).

    Why: ``--tracking-uri ""`` or ``--address ""`` (an unset shell variable) would
    otherwise read as "not given" and fall back to the default without a word."""
    if not text.strip():
        raise typer.BadParameter("is empty; give a value or leave the option out")
    return text


def nonempty_path(text: str) -> Path:
    """An option's path, refused when empty or blank (a usage error, exit 2).

    Why: ``Path("")`` is the current folder, so ``--results ""`` (an unset shell
    variable) would write a results store, a host key or a log into whatever folder
    the command runs in."""
    return Path(nonempty_text(text))


def path_argument(name: str, help: str) -> Any:
    """A required path argument shown as ``name <path>`` in its command's help, its
    empty value refused as `nonempty_path` refuses an option's.

    Why not ``parser=nonempty_path``: Typer shows an argument's type from its
    annotation, never from its metavar, and with a parser it spells the class
    (``<Path>``); taken as a path (kept as typed: ``path_type=str``, then made a `Path`
    here) it reads ``<path>``, as the options do. Nothing about the file is checked
    here (``readable=False``): a missing, unreadable or not-regular file is the
    command's own error, which names it and the reason."""
    return typer.Argument(
        metavar=name,
        path_type=str,
        readable=False,
        callback=lambda value: nonempty_path(str(value)),
        help=help,
    )
