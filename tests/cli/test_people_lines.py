"""``mafia-arena play`` and ``replay`` print the lines people read
(`views.people_text`): why the game ended, a team's round of how many, a speech's and a
vote's kind in words, the forum game's Night 0 dated, and a private line after whose it
is (a seat's view as the terminal game prints it, the whole log as the moderator's view
tags it); the stored log keeps the engine's events as they were."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from tests.cli.support import run_cli_output
from tests.host_key import FIXED_HOST_KEY, with_host_key

from mafia_arena.web.terminal import play_in_terminal


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
    # the omniscient view tags a private line with who saw it ("[P3] ") before its date
    dates = [line.split("] ", 1)[1] if line.startswith("[P") else line for line in night_0]
    assert all(date.startswith("[N0] ") for date in dates), night_0


def transcript(out: str) -> list[str]:
    """The game's lines of a ``play`` or ``replay`` output, without its closing line."""
    closing = ("game seed: ", "log written to ", "replay matches the stored log")
    return [line for line in out.splitlines() if not line.startswith(closing)]


@pytest.mark.parametrize("command", ["play", "replay"])
def test_a_seat_s_view_tags_its_private_lines_as_the_terminal_does(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--seat 1`` (a mafioso at this seed) printed its private lines bare: the page
    and the terminal tag each with whose it is, and now so do ``play`` and ``replay``;
    a line that says whose it is ("Team picks for the mafia's kill") has no tag."""
    log = tmp_path / "game.jsonl"
    keys = with_host_key(tmp_path / "keys")
    args = ["--variant", "classic", "--players", "7", "--seed", "3", "--seat", "1"]
    code, out, _ = run_cli_output(
        ["play", *args, "--key-dir", str(keys), "--log", str(log)], capsys
    )
    assert code == 0
    played = transcript(out)
    if command == "replay":
        code, out, _ = run_cli_output(["replay", str(log), "--seat", "1"], capsys)
        assert code == 0 and "replay matches the stored log" in out
        assert transcript(out) == played  # the same lines, live and replayed
    lines = transcript(out)
    assert "[private] You are P1; your role is mafioso (mafia)." in lines
    assert any(line.startswith("[the mafia's kill] [N1] P2 (team chat): ") for line in lines)
    assert any(
        line.startswith("[N1] Team picks for the mafia's kill (round 1 of 3): P1→")
        for line in lines
    )
    assert not [line for line in lines if line.startswith("[the mafia's kill] [N1] Team picks")]


def test_replay_from_a_seat_prints_the_lines_its_terminal_game_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The person's terminal game and ``replay --seat`` of its log print one seat's
    lines alike, private tags included, in the same order."""
    screen = io.StringIO()
    result = play_in_terminal(
        "classic", 7, 0, "heuristic", 3, read=lambda _: "0", out=screen, host_key=FIXED_HOST_KEY
    )
    log = result.log.save(tmp_path / "game.jsonl")
    code, out, _ = run_cli_output(["replay", str(log), "--seat", "1"], capsys)
    assert code == 0
    lines = transcript(out)
    assert "[private] You are P1; your role is mafioso (mafia)." in lines
    shown = iter(screen.getvalue().splitlines())
    missing = [line for line in lines if not any(line == printed for printed in shown)]
    assert not missing, missing[:3]


def test_the_whole_log_tags_a_private_line_with_whose_it_is_and_who_saw_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``replay`` without ``--seat`` printed private lines as public ones; ``play``
    wrote "(private to P1, P2)". Both now tag them as the moderator's view does: whose
    line and who saw it, or only who saw it where the line says whose it is."""
    played = transcript(shown("play", "classic", 7, tmp_path, capsys))
    code, out, _ = run_cli_output(["replay", str(tmp_path / "game.jsonl")], capsys)
    assert code == 0
    lines = transcript(out)
    assert lines == played
    assert "[P1] You are P1; your role is mafioso (mafia)." in lines
    assert any(
        line.startswith("[the mafia's kill: P1, P2] [N1] P2 (team chat): ") for line in lines
    )
    assert any(
        line.startswith("[P1, P2] [N1] Team picks for the mafia's kill (round 1 of 3): ")
        for line in lines
    )
    assert not [line for line in lines if "(private to" in line]
