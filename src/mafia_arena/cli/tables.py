"""What the game commands (play, run, replay) share to set a table from their options.

`load_for_table` loads the variant with the ``--set`` switches (`parse_overrides`) and
checks that it deals the table's seats; `_seat` seats the ``--agents``; `check_seat`
checks a 1-based seat option; `warn_below_recommended` prints the variant's notice for a
game below its recommended size; `host_key_in` reads (or creates) the ``--key-dir`` host
key. A bad value is a `CliError` naming the option, raised
before a progress bar or a game starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from mafia_arena.cli.app import CliError, nonempty_path
from mafia_arena.rules import VariantError
from mafia_arena.rules.errors import NoSuchVariant
from mafia_arena.rules.loader import coerce


def _seat(agents: str, players: int, rules: Any) -> list[Any]:
    """The agents of a command-line table; an unknown agent is a `CliError`."""
    from mafia_arena.seating import seat_agents

    try:
        return seat_agents(agents, players, rules)
    except ValueError as exc:
        raise CliError("--agents", str(exc)) from exc


DEFAULT_PLAYERS = 7
"""The ``--players`` of ``play`` and ``run`` when it is not given."""
_PLAYERS_FROM = f"(from --players, {DEFAULT_PLAYERS} unless given)"

SetOption = Annotated[
    list[str] | None,
    typer.Option("--set", help="Override a variant switch or count, e.g. --set mafia=3"),
]


KeyDirOption = Annotated[
    Path | None,
    typer.Option(
        parser=nonempty_path,
        metavar="<path>",
        help="folder of the host key that derives the players' own seeds (created "
        "if missing); default: a fresh key, so agents' own draws differ between runs",
    ),
]


def host_key_in(key_dir: Path | None) -> bytes | None:
    """The host key kept in ``--key-dir`` (created there if missing); None without one
    (the match draws a fresh key). A folder that cannot hold the key is an
    `output_folders.OutputFolderError` naming it, the reason and ``--key-dir``.

    Why the option: the game seed repeats the deal only; the scripted players draw from
    seat seeds derived with the host key, so the same seed, key and decisions replay
    the same game, and a fresh key per game makes the agents' own draws differ.

    A folder made here for the key is removed again when Ctrl-C or SIGTERM stops the
    command before the key is in it (`output_folders.made_folder`): the command says
    that nothing was written, and an empty key folder would belie it."""
    from mafia_arena.output_folders import OutputFolderError, check_output_folder, made_folder
    from mafia_arena.seat_seeds import load_or_create_host_key

    if key_dir is None:
        return None
    check_output_folder(key_dir, "--key-dir")
    try:
        with made_folder(key_dir):
            return load_or_create_host_key(key_dir)
    except OSError as exc:  # the key cannot be written (a full disk), or read
        reason = exc.strerror or str(exc)
        raise OutputFolderError(
            f"{key_dir}: cannot keep the host key: {reason} (--key-dir)"
        ) from None


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
    game starts. An error that comes from a ``--set`` says so, in the user's spelling;
    a player count outside the variant's range names ``--players`` (its default may be
    what is out of range: ``play --variant dictator`` asks for 7 players).
    """
    from mafia_arena.rules import load_table

    overrides = parse_overrides(set_)
    try:
        return load_table(variant, overrides, [players])
    except VariantError as exc:
        if isinstance(exc, NoSuchVariant):  # the option's value, and what it could be
            raise CliError("--variant", str(exc)) from exc
        if exc.key == "players" and not exc.overrides:  # the table's size, not the file's
            raise VariantError(exc.source, exc.key, f"{exc.reason} {_PLAYERS_FROM}") from exc
        if not exc.overrides:
            raise
        spelled = {item.split("=", 1)[0].strip(): item for item in set_ or []}
        named = ", ".join(f"--set {spelled[key]}" for key in exc.overrides)
        raise VariantError(exc.source, exc.key, f"{exc.reason} (from {named})") from exc
