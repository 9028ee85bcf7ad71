"""``play --key-dir``: the game seed repeats the deal, the host key the players' own
draws; with both (and, at a ``--human`` seat, the same answers) a game plays again log
for log. The closing line of a terminal game says exactly that, and never shows the key.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.cli.support import run_cli_output

from mafia_arena.seat_seeds import KEY_FILE
from mafia_arena.web.terminal import play_in_terminal

REPO = Path(__file__).resolve().parents[2]
TABLE = ["--variant", "standard", "--players", "7", "--agents", "heuristic", "--seed", "5"]
"""A table whose scripted players draw from their seat seeds (their lines differ from
one host key to another at this seed)."""


def _human_game(tmp: Path, log: str, key_dir: str) -> tuple[str, bytes]:
    """``play --human 1`` in a child process answering the first option at every turn:
    what the person was shown, and the log written."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "mafia_arena.cli", "play", *TABLE, "--human", "1"]
    command += ["--key-dir", key_dir, "--log", log]
    done = subprocess.run(
        command, cwd=tmp, env=env, input=b"0\n" * 300, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode(), (tmp / log).read_bytes()


def test_a_human_game_with_the_same_seed_key_folder_and_answers_plays_again(
    tmp_path: Path,
) -> None:
    shown, first = _human_game(tmp_path, "first.jsonl", "keys")
    _, second = _human_game(tmp_path, "second.jsonl", "keys")
    assert first == second
    _, other_key = _human_game(tmp_path, "other.jsonl", "other-keys")
    assert other_key != first, "the players' own draws do not depend on the host key"
    assert "(game seed 5: --seed 5 --key-dir keys with the same answers plays" in shown
    key = (tmp_path / "keys" / KEY_FILE).read_text().strip()
    assert key not in shown  # the person is told the folder, never the key


def test_a_game_with_the_same_seed_and_key_folder_plays_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = []
    for name in ("first", "second"):
        log = tmp_path / f"{name}.jsonl"
        args = ["play", *TABLE, "--key-dir", str(tmp_path / "keys"), "--log", str(log)]
        code, _, err = run_cli_output(args, capsys)
        assert code == 0, err
        logs.append(log.read_bytes())
    assert logs[0] == logs[1]


def test_the_closing_line_without_a_key_folder_promises_the_deal_only() -> None:
    out = io.StringIO()
    play_in_terminal("simple", 5, 0, "heuristic", 3, read=lambda _: "0", out=out)
    last = out.getvalue().strip().splitlines()[-1]
    assert last == (
        "(game seed 3: --seed 3 deals these cards again; the bots decide afresh unless "
        "both games are played with the same --key-dir folder)"
    )
