"""A tournament on real Ray gives no seat the deal, and keeps the host key with its results.

The driver runs in a subprocess that joins the session's local Ray with a runtime
environment whose workers register the deal reader (tests/deal_reader.py) as a scripted
preset and write its verdicts to a folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.deal_reader import reports_in, reproduces
from tests.tournament.conftest import REPO, write_spec

from mafia_arena.experiments import read_records
from mafia_arena.seat_seeds import KEY_FILE, load_or_create_host_key, seat_seed

DRIVER = """
import sys
sys.path[:0] = [{repo!r}, {src!r}]
import ray
from tests.deal_reader import register
from mafia_arena.local_ray import _loopback_node
register()
with _loopback_node():  # the test cluster is loopback-only, as the driver starts one
    ray.init(
        address={address!r},
        logging_level="warning",
        runtime_env={{
            "worker_process_setup_hook": "tests.deal_reader.register",
            "env_vars": {{"PYTHONPATH": {path!r}, "DEAL_READER_OUT": {out!r}}},
        }},
    )
from mafia_arena.experiments import run_tournament
summary = run_tournament({spec!r}, address={address!r}, results_dir={results!r},
                         track=False, progress=False)
assert summary.ok and summary.executor == "ray", summary
"""


def test_a_ray_tournament_gives_no_seat_the_deal(ray_cluster: str, tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path,
        "readers",
        'base_seed = 3\ngames = 4\n[[variants]]\nvariant = "simple"\nplayers = 5\n'
        'pool = ["random", "deal-reader"]\n',
    )
    out, results = tmp_path / "reports", tmp_path / "results"
    out.mkdir()
    src = str(REPO / "src")
    code = DRIVER.format(
        repo=str(REPO),
        src=src,
        path=os.pathsep.join([str(REPO), src]),
        address=ray_cluster,
        out=str(out),
        spec=str(spec),
        results=str(results),
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stderr[-3000:]

    records = read_records(results / "games.jsonl")
    reports = reports_in(out)
    readers = [(r, s) for r in records for s in r["seats"] if s["agent"] == "deal-reader"]
    # a reader attacks on its first decision; one killed before it decides never does
    assert len(records) == 4 and 0 < len(reports) <= len(readers)
    for report in reports:  # no number a seat saw rebuilds any of the games
        assert report["seen"] and not any(reproduces(report, r["seed"]) for r in records)
    # the seeds handed out are the keyed seat seeds of the stored games, never their seeds
    assert (results / KEY_FILE).is_file()
    key = load_or_create_host_key(results)
    expected = {seat_seed(key, r["seed"], s["seat"]) for r, s in readers}
    given = [g for report in reports for g in report["given"]]
    assert len(given) == len(reports) and set(given) <= expected
    assert not {r["seed"] for r in records} & {g for rep in reports for g in rep["given"]}
