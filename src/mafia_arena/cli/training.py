"""The train command: train a policy from a training spec (needs the rl extra).

A bad training spec, a missing rl extra, an output folder that cannot take the run's
files (or holds a previous run's policy, without ``--overwrite``) or an unusable
tracking store prints ``error: ...`` (one paragraph naming the file or option, the key
and the reason) and exits 2, before any game is dealt or anything is written. An empty
spec path, ``--out`` or ``--tracking-uri`` is a usage error (exit 2), as in a
tournament. Relative paths in the spec are looked up as a tournament's are
(`rl.spec`); the output folder, like a tournament's results folder, is relative to the
working folder.

Tracking is switched off with ``--no-tracking``, as in a tournament (``--no-track``,
the older spelling, still works, unlisted). Ctrl-C (or SIGTERM) prints one line saying
what the output folder holds and exits 130 (`EXIT_INTERRUPTED`), as a tournament does:
stopped before the first evaluation nothing is written (the folders the run made,
the output folder and any parents, are removed; one that was there before is kept, as
for a board, `output_folders.made_folder`); later, the policy and curve of the latest
evaluation are kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mafia_arena.cli.app import EXIT_INTERRUPTED, nonempty_path, nonempty_text, path_argument
from mafia_arena.cli.tournaments import NoTrackingOption
from mafia_arena.sigterm import sigterm_as_interrupt

#: What a run stopped before it trained says (while importing the libraries or checking
#: the spec, the folder and the tracking store): nothing was written by then.
STARTING_MESSAGE = "interrupted while starting, before training began; nothing written"

#: The files a training run writes into its output folder (`rl.train`). A folder that
#: holds only these is a previous run's, which a new run replaces only with
#: ``--overwrite``; any other file means the folder is not a training output
#: (``--out .``, ``--out agents``) and it is refused.
TRAINING_OUTPUTS = frozenset({"policy.npz", "model.zip", "curve.csv", "curve.png"})


def train(
    spec: Annotated[
        Path, path_argument("spec", "a training spec, e.g. experiments/rl-town-votes.toml")
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            parser=nonempty_path, metavar="<path>", help="output folder (runs/train/<name>)"
        ),
    ] = None,
    steps: Annotated[
        int | None, typer.Option(help="override the spec's steps (0: evaluate only)", min=0)
    ] = None,
    tracking_uri: Annotated[
        str | None,
        typer.Option(parser=nonempty_text, metavar="<str>", help="MLflow tracking URI"),
    ] = None,
    no_tracking: NoTrackingOption = False,
    track: Annotated[bool, typer.Option("--track/--no-track", hidden=True)] = True,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite",
            help="train again into an output folder that holds a previous run's policy, "
            "replacing its policy, checkpoint and curve",
        ),
    ] = False,
) -> None:
    """Train a policy from a spec (needs the rl extra); writes policy.npz and a curve."""
    track = track and not no_tracking
    with sigterm_as_interrupt():
        try:
            from mafia_arena.experiments.errors import ServiceError
            from mafia_arena.output_folders import OutputFolderError
            from mafia_arena.rl.spec import TrainSpecError, load_train_spec
            from mafia_arena.rl.train import MissingRLExtra, TrainingInterrupted
            from mafia_arena.rl.train import train as run_training

            try:
                loaded = load_train_spec(spec, steps=steps)
                folder = out or Path("runs") / "train" / loaded.name
                given_by = "--out" if out is not None else f"{spec}: name, runs/train/<name>"
                _check_out(folder, given_by, overwrite)
                if track:
                    _check_tracking(tracking_uri)
                result = run_training(loaded, folder, tracking_uri=tracking_uri, track=track)
            except (TrainSpecError, OutputFolderError, MissingRLExtra, ServiceError) as exc:
                typer.echo(f"error: {exc}", err=True)
                raise typer.Exit(2) from None
        except TrainingInterrupted as exc:  # typer makes a KeyboardInterrupt a bare 130
            typer.echo(str(exc), err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except KeyboardInterrupt:
            typer.echo(STARTING_MESSAGE, err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None
    typer.echo(f"policy written to {result.policy_path}")
    for rate in result.final:
        typer.echo(rate.row())


def _check_out(folder: Path, given_by: str, overwrite: bool) -> None:
    """Raise `output_folders.OutputFolderError` unless `folder` can take the run's
    files: a folder (or one that can be made) that is writable, holds nothing but
    `TRAINING_OUTPUTS`, and holds none of them unless `overwrite`. `given_by` names what
    chose the folder (``--out``, or the spec's name), after the folder and the reason,
    as every output folder's refusal reads (`output_folders.unusable_folder`).

    Why a previous run's files are refused: the same command run twice (or a spec
    whose name another spec already trained under) would replace a trained policy, its
    checkpoint and its curve without a word, hours of training gone; as a tournament
    keeps its stored games unless told (``--no-resume``), a run replaces them only when
    told (``--overwrite``)."""
    from mafia_arena.output_folders import OutputFolderError, check_output_folder

    check_output_folder(folder, given_by)
    if not folder.is_dir():
        return
    present = sorted(p.name for p in folder.iterdir())
    others = [name for name in present if name not in TRAINING_OUTPUTS]
    if others:
        raise OutputFolderError(
            f"{folder}: holds other files ({', '.join(others[:3])}"
            f"{', ...' if len(others) > 3 else ''}) and is no training output folder; "
            "give a new folder, or one a previous training wrote (with --overwrite its "
            f"{', '.join(sorted(TRAINING_OUTPUTS))} are replaced) ({given_by})",
        )
    if present and not overwrite:
        raise OutputFolderError(
            f"{folder}: holds a previous training run ({', '.join(present)}); "
            "training again would replace its policy. Pass --overwrite to replace it, or "
            f"give another folder with --out ({given_by})",
        )


def _check_tracking(tracking_uri: str | None) -> None:
    """Raise `ServiceError` unless MLflow can log to the tracking store, so a run is not
    lost to a bad URI after it has trained."""
    from mafia_arena.experiments.errors import ServiceError
    from mafia_arena.experiments.services import check_tracking
    from mafia_arena.tracking.uri import resolve_tracking_uri, tracking_uri_origin

    try:
        check_tracking(resolve_tracking_uri(tracking_uri), origin=tracking_uri_origin(tracking_uri))
    except ServiceError as exc:  # its advice speaks of playing
        raise ServiceError(
            str(exc).replace("play without MLflow", "train without MLflow")
        ) from None
