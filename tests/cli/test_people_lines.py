"""``mafia-arena play`` and ``replay`` print the lines people read
(`views.people_text`): why the game ended, a team's round of how many, a speech's and a
vote's kind in words, and the forum game's Night 0 dated; the stored log keeps the
engine's events as they were."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.cli.support import run_cli_output
from tests.host_key import with_host_key


def shown(
    command: str, variant: str, players: int, folder: Path, capsys: pytest.CaptureFixture[str]
) -> str:
    """What ``play`` prints of one game at seat 3 (its bots' draws fixed,
    `with_host_key`: the same game in every run), or with `command` ``replay`` what the
    replay of its log prints; the log is ``game.jsonl`` in `folder`."""
    log = folder / "game.jsonl"
    keys = with_host_key(folder / "keys")
    args = ["--variant", variant, "--players", str(players), "--seed", "3"]
    code, out, _ = run_cli_output(
        ["play", *args, "--key-dir", str(keys), "--log", str(log)], capsys
    )
    assert code == 0
    if command == "replay":
        code, out, _ = run_cli_output(["replay", str(log)], capsys)
        assert code == 0 and "replay matches the stored log" in out
    return out


def end_line(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("Game over: "))


@pytest.mark.parametrize("command", ["play", "replay"])
def test_the_end_says_why_the_game_ended(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = shown(command, "classic", 7, tmp_path, capsys)
    end = end_line(out)
    assert " Why it ended: no player of the mafia is left alive. Roles: " in end, end
    assert "Why it ended" not in (tmp_path / "game.jsonl").read_text(encoding="utf-8")


@pytest.mark.parametrize("command", ["play", "replay"])
def test_a_team_s_picks_say_their_round_of_how_many(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = shown(command, "classic", 7, tmp_path, capsys)
    assert "Team picks for the mafia's kill (round 1 of 3): " in out
    assert "Team picks for the mafia's kill (round 1): " not in out


@pytest.mark.parametrize("command", ["play", "replay"])
def test_a_speech_s_and_a_vote_s_kind_are_said_in_words(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = shown(command, "classic", 7, tmp_path, capsys)
    assert "(team chat): " in out and "(final plea): " in out and "Votes (final vote): " in out
    assert "(night_chat)" not in out and "(plea)" not in out and "(final_vote)" not in out
    assert '"kind": "night_chat"' in (tmp_path / "game.jsonl").read_text(encoding="utf-8")


def test_a_replay_from_a_seat_says_why_it_ended_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shown("play", "simple", 5, tmp_path, capsys)
    code, out, _ = run_cli_output(["replay", str(tmp_path / "game.jsonl"), "--seat", "2"], capsys)
    assert code == 0
    assert " Why it ended: " in end_line(out)


@pytest.mark.parametrize("command", ["play", "replay"])
def test_the_forum_game_s_night_0_lines_are_dated(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = shown(command, "dictator", 12, tmp_path, capsys).splitlines()
    night_0 = lines[lines.index("--- Night 0 ---") + 1 : lines.index("--- Day 1 ---")]
    assert night_0
    # play's omniscient view marks a private line "  (private to P3) " before its date
    dates = [line.split(") ", 1)[1] if line.startswith("  (private") else line for line in night_0]
    assert all(date.startswith("[N0] ") for date in dates), night_0
