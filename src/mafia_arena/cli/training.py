"""The train command: train a policy from a training spec (needs the rl extra).

A bad training spec, or a missing rl extra, prints ``error: ...`` and exits 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


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
