"""`mafia-arena leaderboard SOURCE`: publish a leaderboard folder from stored results.

The folder is `leaderboards/<experiment>/` unless `--out` says otherwise. Its README
records what produced it: the command as it was run (`Invocation`: the spec or results
store given and the options that decide what is played and where the board goes), the
spec and its base seed when a spec was given, the package version, what the records
say made them (`played_by`): their spec hashes and the code that played the games
(version and source digest), and the fingerprint of the host key that dealt the seat
seeds, from the results folder's manifest (`host_key_fingerprint_of`). The command is
recorded, not guessed from the experiment's name: a guess once told readers of a
board published with ``--out`` to run a command that writes another folder. Paths under
the working folder are written relative to it, and nothing depends on time or machine,
so the same results give byte-identical files.

Before anything is written the store is checked line by line (`records.check_store`,
which a tournament's resume runs too): a file that is not a results store (a game log
from ``logs/``, a record whose seat lacks ``side``) is refused with its file, line and
reason (`LeaderboardError`), so a mistaken path leaves no half-made folder behind.
So is a store that does not exist, one that holds games of more than one spec (two
tournaments' stores run together), ``--results`` given with a results store (it only
says where a spec's games go), and an output folder that cannot take the board: a
file, a folder under a file or not writable, the results store or a folder inside it,
or a folder whose ``README.md`` is not a leaderboard's (``--out .`` would overwrite the
project's own). Each error names the path or option and the reason.
"""

from __future__ import annotations

import re
import shlex
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from mafia_arena import __version__
from mafia_arena.code_identity import code_label
from mafia_arena.leaderboard.publish import OUTPUT_FILES, BoardInterrupted, write_leaderboard
from mafia_arena.leaderboard.records import (  # LeaderboardError: raised here too
    LeaderboardError,
    View,
    check_store,
    filter_records,
    load_records,
)
from mafia_arena.output_folders import unusable_folder
from mafia_arena.results_file import MANIFEST_NAME, STORE_NAME, json_line


@dataclass(frozen=True)
class Invocation:
    """The leaderboard command as it was run, recorded in the README.

    ``--tracking-uri`` is left out: it changes where MLflow logs, not the board, and a
    server address may carry credentials or a database path of one machine.
    """

    source: Path
    out: Path | None = None
    view: str = "all"
    results: Path | None = None
    no_ray: bool = False
    no_tracking: bool = False

    def command(self) -> str:
        """The command line that regenerates the board, options in a fixed order."""
        words = ["mafia-arena", "leaderboard", shown_path(self.source)]
        if self.results is not None:
            words += ["--results", shown_path(self.results)]
        if self.out is not None:
            words += ["--out", shown_path(self.out)]
        if self.view != "all":
            words += ["--view", self.view]
        if self.no_ray:
            words.append("--no-ray")
        if self.no_tracking:
            words.append("--no-tracking")
        return " ".join(shlex.quote(word) for word in words)

    @property
    def spec(self) -> Path | None:
        """The experiment spec given, if a spec (not a results store) was given."""
        return self.source if self.source.suffix == ".toml" else None


def shown_path(path: Path) -> str:
    """`path` as a README shows it: relative to the working folder when it lies under it
    (so a board published from a checkout names no machine's folders), else as given."""
    if path.is_absolute():
        try:
            return path.relative_to(Path.cwd()).as_posix()
        except ValueError:
            return path.as_posix()
    return path.as_posix()


def store_file(results: Path) -> Path:
    """The ``games.jsonl`` of `results` (the store's folder or the file itself)."""
    return results / STORE_NAME if results.is_dir() else results


def leaderboard_command(
    results: Path,
    out: Path | None = None,
    view: str = "all",
    invocation: Invocation | None = None,
) -> list[Path]:
    """Read `results` (a `games.jsonl` or its folder) and write the leaderboard.

    `invocation` is the command that was run, recorded in the README; without it (a call
    from Python) the equivalent command on the results store is recorded. Raises
    `LeaderboardError`, before anything is written, for a store with no records or with
    a line that is not a game record."""
    invocation = invocation or Invocation(results, out, view)
    if invocation.results is not None and invocation.spec is None:
        raise LeaderboardError(
            f"{invocation.results}: --results says where an experiment spec's games are "
            f"stored, and {invocation.source} is a results store, not a spec; give the store "
            "to publish as SOURCE and leave --results out"
        )
    if not results.exists():
        raise LeaderboardError(
            f"{results}: no such results store; give a results folder (results/<name>) or "
            f"its {STORE_NAME}, or an experiment spec"
        )
    path = store_file(results)
    try:
        check_store(path)
    except UnicodeDecodeError as exc:  # a binary file: no line of it is a JSON record
        raise LeaderboardError(
            f"{path}: not a results store: byte {exc.start} is not UTF-8 text"
        ) from None
    records = load_records(path)
    if not records:
        raise LeaderboardError(f"{results}: no game records (play the tournament first)")
    _check_one_spec(path, records)
    experiment = str(records[0].get("experiment", results.stem))
    if out is None and not _FOLDER_NAME.fullmatch(experiment):
        raise LeaderboardError(
            f"{path}: experiment: {experiment!r} cannot name a folder under "
            "leaderboards/; give --out"
        )
    target = out or board_folder(experiment)
    where = "--out" if out is not None else "the default of --out, leaderboards/<experiment>"
    _check_out(target, path.parent, where)
    paths = write_leaderboard(
        records,
        target,
        title=f"Leaderboard: {experiment}",
        provenance=_provenance(experiment, records, invocation, path.parent),
        view=cast(View, view),  # checked by the command line and by `filter_records`
    )
    try:
        for written in paths:
            print(written)
        shown = filter_records(records, cast(View, view))
        void = sum(1 for r in shown if r.get("void") is True)
        if void:
            print(void_games_note(void, len(shown) - void), file=sys.stderr)
    except KeyboardInterrupt:  # the board is out: do not say it was not written
        raise BoardInterrupted(target, published=True) from None
    return paths


def void_games_note(void: int, rated: int) -> str:
    """The stderr line after a board whose view held `void` void games beside `rated`
    rated ones: the void ones are left out of it (as of the tournament's summary and
    its MLflow aggregates), what the board rates, and how to play them again.

    Why a line of the command's, and exit code 0: the board is written, whole, of every
    game that could be rated, and its README says the rest too; but a script or a
    person publishing it must see, as a tournament's run says (exit 1 there), that the
    board is not yet of every game the spec asks for, and what to do about it. The
    command that stops a script on void games is the tournament's, which plays them."""
    return (
        f"note: {void} void game(s) decided by infrastructure failures left out of the "
        f"board, which rates the other {rated} (see its README); fix the endpoint and "
        "run the tournament's spec again (mafia-arena tournament SPEC, or leaderboard "
        "SPEC) to play them again"
    )


def board_folder(experiment: str) -> Path:
    """Where an experiment's board is published unless ``--out`` says otherwise."""
    return Path("leaderboards") / experiment


#: What a default output folder's name may be (an experiment spec's `name` rule): one
#: folder under leaderboards/, never a path out of it.
_FOLDER_NAME = re.compile(r"(?!\.{1,2}$)[A-Za-z0-9_.-]+")

#: How a board's README starts (`leaderboard_command`'s title).
_BOARD_README_START = "# Leaderboard"


def _check_one_spec(path: Path, records: list[dict[str, Any]]) -> None:
    """Raise `LeaderboardError` when the records come from more than one spec (by their
    `spec_hash`): a tournament never stores two specs' games in one store, so these are
    stores run together, and one board of both would rate games of different line-ups,
    seeds and settings as one tournament under the first one's name."""
    hashes: dict[str, str] = {}
    for record in records:
        spec_hash = record.get("spec_hash")
        if spec_hash:
            hashes.setdefault(str(spec_hash), str(record.get("experiment", "?")))
    if len(hashes) > 1:
        found = ", ".join(f"{h} ({name})" for h, name in sorted(hashes.items()))
        raise LeaderboardError(
            f"{path}: spec_hash: the store holds games of {len(hashes)} specs ({found}); "
            "publish each tournament's store on its own"
        )


def _check_out(target: Path, store: Path, where: str) -> None:
    """Raise `LeaderboardError` unless `target` can take the board (see the module
    docstring). `store` is the results store's folder; `where` names the option."""
    problem = unusable_folder(target, where)
    if problem is not None:
        raise LeaderboardError(problem)
    resolved, store_folder = target.resolve(), store.resolve()
    if resolved == store_folder or store_folder in resolved.parents:
        raise LeaderboardError(
            f"{target}: is inside the results store {store}; the board's files would "
            f"mix with the stored games and logs; give a folder outside it ({where})"
        )
    readme = target / OUTPUT_FILES[0]
    if readme.is_file() and not _is_board_readme(readme):
        raise LeaderboardError(
            f"{target}: its {readme.name} is not a leaderboard's, and publishing "
            f"would overwrite it (with {', '.join(OUTPUT_FILES[1:])}); give another folder "
            f"({where})"
        )


def _is_board_readme(readme: Path) -> bool:
    """Whether `readme` starts as a board's README does (one this command wrote)."""
    try:
        with readme.open(encoding="utf-8", errors="replace") as handle:
            return handle.readline().startswith(_BOARD_README_START)
    except OSError:
        return False


def _provenance(
    experiment: str, records: list[dict[str, Any]], invocation: Invocation, folder: Path
) -> dict[str, str]:
    """The README's "How this was produced" entries (see the module docstring), with
    what the records say made them: the spec hashes and the code (`played_by`), and the
    fingerprint of the host key the results `folder`'s manifest names (`host_key`)."""
    void = sum(1 for r in records if r.get("void") is True)
    provenance = {
        "experiment": experiment,
        "games": str(len(records) - void),  # the README's count: void games are apart
        **({"void_games": str(void)} if void else {}),
        "package_version": __version__,
        **played_by(records),
    }
    fingerprint = host_key_fingerprint_of(folder)
    if fingerprint is not None:
        provenance["host_key"] = fingerprint
    spec = invocation.spec
    if spec is not None:
        provenance["spec"] = shown_path(spec)
        if spec.is_file():
            data = tomllib.loads(spec.read_text(encoding="utf-8"))
            provenance["seed"] = str(data.get("base_seed", 0))  # the spec's default
    provenance["command"] = invocation.command()
    return provenance


def host_key_fingerprint_of(folder: Path) -> str | None:
    """The ``host_key_fingerprint`` of `folder`'s manifest (`experiments.provenance`,
    read here as JSON: the leaderboard does not import the tournament package); None
    without one (a web store, a folder written before fingerprints were recorded, a
    manifest that cannot be read: the board is still published, without the line).

    Why on the board: the host key derives every seat's seed, so two boards of the same
    spec played with different keys rate different games; the fingerprint tells them
    apart and, with the key published beside the board, checks that it is the one that
    played. The fingerprint reveals nothing of the key (`seat_seeds.host_key_fingerprint`)."""
    try:
        data = json_line((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):  # missing, unreadable, not JSON
        return None
    fingerprint = data.get("host_key_fingerprint") if isinstance(data, dict) else None
    return fingerprint if isinstance(fingerprint, str) and fingerprint else None


def played_by(records: list[dict[str, Any]]) -> dict[str, str]:
    """The spec hashes and the code identities (version and source digest,
    `code_identity`) the records carry, each set sorted and joined; absent keys are left
    out. Why: a published board names the code that played its games, so a reader can
    tell a board made by other code than theirs. The commit is left out: a board is made
    before it is committed, so the commit it ran on is not the one that holds it."""
    specs = sorted({str(r["spec_hash"]) for r in records if r.get("spec_hash")})
    codes = sorted(
        {
            code_label(code)
            for r in records
            if isinstance(code := r.get("code"), dict) and code.get("digest")
        }
    )
    found = {"spec_hash": ", ".join(specs), "code": "; ".join(codes)}
    return {key: value for key, value in found.items() if value}
