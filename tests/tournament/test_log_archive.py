"""A matchup's log archive (`logs.tar.gz`, an MLflow artifact) holds the game logs and
nothing of when or by whom their files were written: the same records give the same
archive bytes, whether the logs were stored in one run or over an interrupted one, in
another second, or on another machine."""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

from tests.host_key import with_host_key
from tests.tournament.conftest import write_spec

from mafia_arena.experiments import read_records, run_tournament
from mafia_arena.tracking.run_tally import RunTally

SPEC = """
base_seed = 4
pool = ["random", "heuristic"]
games = 3

[[variants]]
variant = "simple"
players = 5
"""


def _archive(folder: Path, results: Path) -> bytes:
    """The matchup archive a tally of the store's records writes into `folder`."""
    records = read_records(results / "games.jsonl")
    tally = RunTally(folder, lambda index: "simple-5p", games=True, logs_from=results)
    for record in records:
        tally.add(record)
    for record in records:
        tally.add_second(record)
    tally.finish("simple-5p")
    return (folder / "logs.tar.gz").read_bytes()


def test_the_log_archive_depends_on_the_logs_alone(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, "archive", SPEC)
    results = with_host_key(tmp_path / "r")
    run_tournament(spec, use_ray=False, results_dir=results, track=False, progress=False)
    first = _archive(tmp_path / "first", results)

    # the same logs, written at other times (as a resumed run writes the later ones)
    for number, log in enumerate(sorted((results / "logs").glob("*.jsonl"))):
        os.utime(log, (1_000_000 + number, 2_000_000 + 7 * number))
    again = _archive(tmp_path / "again", results)

    assert again == first
    with tarfile.open(tmp_path / "again" / "logs.tar.gz") as archive:
        names = archive.getnames()
        assert names == [f"logs/game-{i:06d}.jsonl" for i in range(3)]
        for name in names:
            member = archive.extractfile(name)
            assert member is not None
            assert member.read() == (results / name).read_bytes()
