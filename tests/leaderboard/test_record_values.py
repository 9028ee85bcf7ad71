"""`mafia-arena leaderboard` on a results store one of whose records holds a value of
the wrong type refuses it with one line naming the file, the line and the key (exit
code 2, no traceback), writes no board and leaves the store as it was.

Before, the board was written from such a record as it was: ``"metrics": "oops"``
emptied the seat's metric columns, ``"role": 5`` made a role "5", an ``agent`` of
``null`` a row "None", ``"players": 9`` fitted the side advantage for a setup of nine
players that was never played. The real command line runs in a subprocess on a real
store of the `smoke` spec (`test_leaderboard_command.store`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.leaderboard import test_leaderboard_command as command
from tests.tournament.test_preflight_errors import assert_user_error, mafia_arena

store = command.store  # the module's fixture: a real results folder of two smoke games

Edit = Callable[[dict[str, Any]], Any]

CASES: dict[str, tuple[Edit, str]] = {
    "metrics-string": (lambda r: r.update(metrics="oops"), "metrics: 'oops' is not an object"),
    "metrics-array": (lambda r: r.update(metrics=[1]), "metrics: [1] is not an object"),
    "per-seat-string": (
        lambda r: r["metrics"].update(per_seat="x"),
        "metrics: per_seat: 'x' is not an object",
    ),
    "per-seat-value": (
        lambda r: r["metrics"]["per_seat"]["0"].update(irp="0.5"),
        "metrics: per_seat: 0: irp: '0.5' is not a number or null",
    ),
    "players-not-seats": (
        lambda r: r.update(players=9),
        "players: 9 is not the number of seats",
    ),
    "role-number": (lambda r: r["seats"][0].update(role=5), "seat #0: role: 5 is not a string"),
    "role-null": (
        lambda r: r["seats"][0].update(role=None),
        "seat #0: role: None is not a string",
    ),
    "agent-array": (
        lambda r: r["seats"][0].update(agent=["a"]),
        "seat #0: agent: ['a'] is not a string",
    ),
    "side-number": (lambda r: r["seats"][0].update(side=5), "seat #0: side: 5 is not a string"),
    "kind-array": (
        lambda r: r["seats"][0].update(agent_kind=["a"]),
        "seat #0: agent_kind: ['a'] is not a string",
    ),
    "seat-number-fraction": (
        lambda r: r["seats"][0].update(seat=1.5),
        "seat #0: seat: 1.5 is not a whole number",
    ),
    "seat-number-twice": (
        lambda r: r["seats"][1].update(seat=0),
        "seat #1: seat: 0 is seat #0's number too",
    ),
    "variant-array": (lambda r: r.update(variant=["x"]), "variant: ['x'] is not a string"),
    "spec-hash-array": (lambda r: r.update(spec_hash=["x"]), "spec_hash: ['x'] is not a string"),
    "cards-string": (lambda r: r.update(cards="x"), "cards: 'x' is not an object"),
}


@pytest.mark.parametrize(("edit", "part"), list(CASES.values()), ids=list(CASES))
def test_a_value_of_the_wrong_type_is_refused_naming_file_line_and_key(
    store: Path, tmp_path: Path, edit: Edit, part: str
) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    lines = (store / "games.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    edit(record)
    lines[0] = json.dumps(record)
    (bad / "games.jsonl").write_text("\n".join(lines) + "\n")
    before = (bad / "games.jsonl").read_bytes()
    board = tmp_path / "board"
    done = mafia_arena(["leaderboard", str(bad), "--out", str(board)], tmp_path)
    assert_user_error(done, f"{bad / 'games.jsonl'}: line 1: ", part)
    assert not board.exists()
    assert (bad / "games.jsonl").read_bytes() == before
