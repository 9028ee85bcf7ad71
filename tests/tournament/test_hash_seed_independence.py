"""One spec played in processes with other hash seeds stores the same games and board.

docs/tournaments.md, *Record schema*: no field of a record depends on time or machine;
docs/leaderboard.md: the same set of games gives the same bytes on disk. Two processes
with ``PYTHONHASHSEED`` 0 and 1 each play `tests.tournament.seeded_store`'s spec
in-process (scripted players on every variant, the fixed host key, no MLflow) and write
its leaderboard. Everything they write must agree but the store's id, drawn at random
for each new results folder (docs/tournaments.md, *What two runs of a spec share*).
(In-process against Ray with two workers, in one driver, is `test_tournament.py`'s
reference comparison.)
"""

from __future__ import annotations

from pathlib import Path

from tests.hash_seeds import finish, run_module
from tests.tournament.same_results import assert_same_results

MODULE = "tests.tournament.seeded_store"


def test_a_spec_stores_the_same_games_and_board_under_other_hash_seeds(tmp_path: Path) -> None:
    first, second = tmp_path / "hash-seed-0", tmp_path / "hash-seed-1"
    children = [
        run_module(MODULE, first, hash_seed="0"),
        run_module(MODULE, second, hash_seed="1"),
    ]
    for child in children:
        finish(child)

    assert_same_results(first, second, 10, any_line_order=False)
