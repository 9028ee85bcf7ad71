"""`mafia-arena leaderboard RESULTS`: publish a leaderboard folder from stored results.

The folder is `leaderboards/<experiment>/` unless `--out` says otherwise. Its README
names what reproduces it: the experiment spec (when `experiments/<experiment>.toml`
exists), the base seed, the package version and the one command that regenerates it
(`mafia-arena leaderboard experiments/<experiment>.toml` plays any missing games, then
writes the folder). No timestamps or absolute paths are written, so the same results
give byte-identical files.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import cast

from mafia_arena import __version__
from mafia_arena.leaderboard.publish import write_leaderboard
from mafia_arena.leaderboard.records import View, load_records


class LeaderboardError(ValueError):
    """The results to publish are missing or empty; the message names the path."""


def leaderboard_command(results: Path, out: Path | None = None, view: str = "all") -> list[Path]:
    """Read `results` (a `games.jsonl` or its folder) and write the leaderboard."""
    records = load_records(results)
    if not records:
        raise LeaderboardError(f"{results}: no game records (play the tournament first)")
    experiment = str(records[0].get("experiment", results.stem))
    spec = Path("experiments") / f"{experiment}.toml"
    provenance: dict[str, str] = {
        "experiment": experiment,
        "games": str(len(records)),
        "package_version": __version__,
    }
    if spec.exists():
        data = tomllib.loads(spec.read_text(encoding="utf-8"))
        provenance["spec"] = spec.as_posix()
        provenance["seed"] = str(data.get("base_seed", ""))
        provenance["command"] = f"mafia-arena leaderboard {spec.as_posix()}"
    else:
        provenance["command"] = f"mafia-arena leaderboard results/{experiment}"
    target = out or Path("leaderboards") / experiment
    paths = write_leaderboard(
        records,
        target,
        title=f"Leaderboard: {experiment}",
        provenance=provenance,
        view=cast(View, view),  # checked by the command line and by `filter_records`
    )
    for path in paths:
        print(path)
    return paths
