"""The shipped policy's own counters reach its games' logs, records and board.

`agents/rl-town-votes.toml` answers the town's day votes of 7-player `standard` and
leaves every other decision to the heuristic; in `simple` (other rules) it leaves them
all. How many of a seat's decisions were the policy's own is kept as
``policy_decisions`` / ``fallback_decisions`` in the log's header
(``meta.agent_stats[seat].extra``), the seat of the results record (``extra``) and the
leaderboard's ``policy_share``; the scripted seats' headers are what they always were.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.host_key import with_host_key
from tests.tournament.conftest import write_spec

from mafia_arena.experiments import read_records, run_tournament
from mafia_arena.leaderboard.render import markdown_leaderboard, table_to_csv
from mafia_arena.leaderboard.table import leaderboard_table
from mafia_arena.runner.log import GameLog

REPO = Path(__file__).resolve().parents[2]
AGENT = REPO / "agents" / "rl-town-votes.toml"
SCRIPTED_STATS = ["cost", "decisions", "fallbacks", "reasks", "retries", "tokens_in", "tokens_out"]
"""The keys of a header's ``agent_stats`` entry of an agent without counters of its own."""

SPEC = f"""
base_seed = 3
games = 4
seating = "balanced"
pool = ["heuristic", "{AGENT.as_posix()}"]

[[variants]]
variant = "standard"
players = 7

[[variants]]
variant = "simple"
players = 7
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The results folder of a small tournament of the policy and the heuristic, in the
    policy's own game and in another variant."""
    folder = tmp_path_factory.mktemp("policy-counters")
    summary = run_tournament(
        write_spec(folder, "policy-counters", SPEC),
        use_ray=False,
        results_dir=with_host_key(folder / "results"),
        track=False,
        progress=False,
    )
    assert summary.ok and summary.games_stored == 8
    return folder / "results"


def _games(results: Path) -> list[tuple[dict[str, Any], GameLog]]:
    records = read_records(results / "games.jsonl")
    return [(r, GameLog.load(results / r["log_path"])) for r in records]


def test_a_policy_seat_s_log_and_record_carry_who_answered_its_decisions(
    results: Path,
) -> None:
    own = {"standard": 0, "simple": 0}
    delegated = {"standard": 0, "simple": 0}
    for record, log in _games(results):
        stats = log.meta["agent_stats"]
        for seat in record["seats"]:
            header = stats[seat["seat"]]
            if seat["agent_kind"] != "rl":
                assert sorted(header) == SCRIPTED_STATS  # as it always was
                assert "extra" not in seat
                continue
            split = header["extra"]
            assert sorted(split) == ["fallback_decisions", "policy_decisions"]
            assert split["policy_decisions"] + split["fallback_decisions"] == header["decisions"]
            assert seat["extra"] == split  # the record keeps what the log says
            own[record["variant"]] += split["policy_decisions"]
            delegated[record["variant"]] += split["fallback_decisions"]
    assert own["standard"] > 0 and delegated["standard"] > 0  # votes its own, the rest not
    assert own["simple"] == 0 and delegated["simple"] > 0  # other rules: all the heuristic's


def test_the_policy_s_board_shows_its_share_of_its_own_decisions(results: Path) -> None:
    records = read_records(results / "games.jsonl")
    splits = [s["extra"] for r in records for s in r["seats"] if s["agent_kind"] == "rl"]
    own = sum(s["policy_decisions"] for s in splits)
    total = own + sum(s["fallback_decisions"] for s in splits)
    table = leaderboard_table(records, n_boot=5)
    rows = table.set_index("agent")
    assert rows.loc["rl-town-votes", "policy_share"] == pytest.approx(own / total)
    assert "policy_share" in table_to_csv(table).splitlines()[0].split(",")
    assert "Policy share" in markdown_leaderboard(table).splitlines()[0]
    simple = [r for r in records if r["variant"] == "simple"]  # the policy fits none
    rows = leaderboard_table(simple, n_boot=5).set_index("agent")
    assert rows.loc["rl-town-votes", "policy_share"] == 0.0


def test_an_mlflow_seat_table_has_one_column_per_counter(results: Path, tmp_path: Path) -> None:
    """The seats table a tournament logs: each counter its own typed column, the
    scripted seats' cells empty (never one column of objects)."""
    pq = pytest.importorskip("pyarrow.parquet")
    from mafia_arena.tracking.tables import seat_rows, write_table

    records = read_records(results / "games.jsonl")
    rows = seat_rows(records, lambda index: "matchup")
    assert all("extra" not in row for row in rows)
    written = {p.suffix for p in write_table(rows, tmp_path, "seats")}
    assert written == {".csv", ".parquet"}
    table = pq.read_table(tmp_path / "seats.parquet").to_pylist()
    for row, stored in zip(rows, table, strict=True):
        for name in ("policy_decisions", "fallback_decisions"):
            expected = row.get(f"extra.{name}")
            assert stored[f"extra.{name}"] == expected
            assert (expected is None) == (row["agent_kind"] != "rl")
