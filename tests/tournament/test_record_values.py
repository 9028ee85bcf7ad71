"""Resuming into a results store one of whose records holds a value of the wrong type
(hand edited: ``"metrics": "oops"``, ``"players": "seven"``, a role that is not a
string) stops before anything is played, with one paragraph naming the file, the line
and the key (exit code 2, no traceback), and leaves the store as it was.

Before, the resume took such values as they were: it played the missing game and
reported the damaged record in its summary, and with MLflow tracking on it stopped with
a traceback (``TypeError: string indices must be integers``) after the games were
stored. Each case edits the first record of a copy of a real two-game store of
`smoke.toml` whose last game is cut off (`test_damaged_store.played`), and runs the
command line's entry point.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.cli.test_cli_errors import assert_one_paragraph, run_cli
from tests.tournament import test_damaged_store as damaged

from mafia_arena.experiments.provenance import MANIFEST_NAME

pytestmark = pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy")  # MLflow's

played = damaged.played  # the module's fixture: a real store, its last game cut off

Edit = Callable[[dict[str, Any]], Any]

CASES: dict[str, tuple[Edit, str]] = {
    "metrics-string": (lambda r: r.update(metrics="oops"), "metrics: 'oops' is not an object"),
    "metrics-null": (lambda r: r.update(metrics=None), "metrics: None is not an object"),
    "per-seat-entry": (
        lambda r: r["metrics"]["per_seat"].update({"0": "x"}),
        "metrics: per_seat: 0: 'x' is not an object",
    ),
    "per-seat-value": (
        lambda r: r["metrics"]["per_seat"]["0"].update(irp="0.5"),
        "metrics: per_seat: 0: irp: '0.5' is not a number or null",
    ),
    "game-metrics": (
        lambda r: r["metrics"].update(game="x"),
        "metrics: game: 'x' is not an object",
    ),
    "players-word": (lambda r: r.update(players="seven"), "players: 'seven' is not a whole"),
    "players-not-seats": (
        lambda r: r.update(players=9),
        "players: 9 is not the number of seats (5)",
    ),
    "role-number": (lambda r: r["seats"][0].update(role=5), "seat #0: role: 5 is not a string"),
    "agent-null": (
        lambda r: r["seats"][0].update(agent=None),
        "seat #0: agent: None is not a string",
    ),
    "seat-number-word": (
        lambda r: r["seats"][0].update(seat="x"),
        "seat #0: seat: 'x' is not a whole number",
    ),
    "seat-number-twice": (
        lambda r: r["seats"][1].update(seat=0),
        "seat #1: seat: 0 is seat #0's number too",
    ),
    "count-word": (
        lambda r: r["seats"][0].update(decisions="many"),
        "seat #0: decisions: 'many' is not a whole number",
    ),
    "cost-word": (
        lambda r: r["seats"][0].update(cost="cheap"),
        "seat #0: cost: 'cheap' is not a number or null",
    ),
    "winner-array": (lambda r: r.update(winner=["mafia"]), "winner: ['mafia'] is not a string"),
    "length-word": (
        lambda r: r.update(length_days="two"),
        "length_days: 'two' is not a whole number",
    ),
    "fallback-record": (
        lambda r: r.update(fallback_record="x"),
        "fallback_record: 'x' is not an object",
    ),
    "log-path-number": (lambda r: r.update(log_path=5), "log_path: 5 is not a string"),
}


@pytest.mark.parametrize(("edit", "part"), list(CASES.values()), ids=list(CASES))
def test_a_value_of_the_wrong_type_stops_the_resume_naming_file_line_and_key(
    played: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Edit,
    part: str,
) -> None:
    spec, results = damaged.copy(played, tmp_path)
    before = damaged.edit_first(results, edit)
    manifest = (results / MANIFEST_NAME).read_bytes()
    code, err = damaged.resume(spec, results, capsys)
    assert code == 2, err
    store = str(results / "games.jsonl")
    assert_one_paragraph(err, part)
    assert f"{store}: line 1: " in err, err
    assert (results / "games.jsonl").read_bytes() == before  # the missing game not played
    assert (results / MANIFEST_NAME).read_bytes() == manifest
    assert not list((results / "logs").glob("game-000001*"))


def test_a_tracked_resume_refuses_the_value_instead_of_a_traceback(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With MLflow tracking on, ``"metrics": "oops"`` was a `TypeError` traceback after
    the missing game was played and stored."""
    spec, results = damaged.copy(played, tmp_path)
    before = damaged.edit_first(results, CASES["metrics-string"][0])
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    args = ["tournament", str(spec), "--results", str(results), "--no-ray"]
    code, err = run_cli([*args, "--tracking-uri", uri], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"{results / 'games.jsonl'}: line 1: ", CASES["metrics-string"][1])
    assert (results / "games.jsonl").read_bytes() == before


def test_a_tracked_resume_reads_a_record_without_metrics_as_one_with_none(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An absent key is the reader's default (`results_file`: a web game's record has no
    ``metrics``), so the store's check lets it through; with MLflow tracking on, the
    tallies then stopped with ``KeyError: 'metrics'`` after the missing game was stored.
    Now the record counts as one without metrics, and the resume ends as any other."""
    spec, results = damaged.copy(played, tmp_path)
    damaged.edit_first(results, lambda r: r.pop("metrics") and None)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    args = ["tournament", str(spec), "--results", str(results), "--no-ray"]
    code, err = run_cli([*args, "--tracking-uri", uri], capsys)
    assert code == 0, err
    assert "Traceback" not in err
    first, second = (results / "games.jsonl").read_text().splitlines()
    assert "metrics" not in json.loads(first)
    assert json.loads(second)["game_index"] == 1 and json.loads(second)["metrics"]["game"]


def _without(key: str, seat: int | None = None) -> Edit:
    """An edit deleting `key` from the record, or from its seat entry #`seat`."""

    def edit(record: dict[str, Any]) -> None:
        del (record if seat is None else record["seats"][seat])[key]

    return edit


MISSING: dict[str, tuple[Edit, str]] = {
    "seed": (_without("seed"), "seed: missing"),
    "variant": (_without("variant"), "variant: missing"),
    "log-path": (_without("log_path"), "log_path: missing"),
    "role": (_without("role", seat=1), "seat #1: role: missing"),
    "faction": (_without("faction", seat=0), "seat #0: faction: missing"),
}


@pytest.mark.parametrize(("edit", "part"), list(MISSING.values()), ids=list(MISSING))
def test_a_tracked_resume_refuses_a_record_cut_short_naming_file_line_and_key(
    played: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Edit,
    part: str,
) -> None:
    """A key every tournament record holds, deleted by hand, stopped a tracked resume
    with a `KeyError` traceback from the MLflow tallies after the missing game was
    played; the driver now checks its own records' keys as it reads them, before
    playing (an absent key is still the default for other readers: see the test above
    for ``metrics``)."""
    spec, results = damaged.copy(played, tmp_path)
    before = damaged.edit_first(results, edit)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    args = ["tournament", str(spec), "--results", str(results), "--no-ray"]
    code, err = run_cli([*args, "--tracking-uri", uri], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"{results / 'games.jsonl'}: line 1: ", part)
    assert (results / "games.jsonl").read_bytes() == before
    assert not list((results / "logs").glob("game-000001*"))
