"""Terminal mode: one seat read from stdin, the seat's text view printed incrementally."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

from mafia_arena.leaderboard.records import load_records
from mafia_arena.views.text import render_event
from mafia_arena.web.terminal import play_in_terminal


def reader(answers: Iterator[str]):  # type: ignore[no-untyped-def]
    def read(prompt: str) -> str:
        return next(answers)

    return read


def scripted_answers() -> Iterator[str]:
    """Nonsense first (refused and re-asked), then text where allowed, then choices."""
    yield "99999"
    yield "hello table"
    while True:
        yield "0"


def test_play_in_terminal_prints_only_the_seat_view(tmp_path: Path) -> None:
    out = io.StringIO()
    result = play_in_terminal(
        "standard",
        7,
        3,
        "random",
        21,
        {},
        read=reader(scripted_answers()),
        out=out,
        results_dir=tmp_path / "results",
        logs_dir=tmp_path / "logs",
    )
    text = out.getvalue()
    assert "NOW (P4)" in text and "[0]" in text
    assert "! that choice is not one of the options" in text
    assert "Game over" in text
    for event in result.log.events:
        line = render_event(event, 3)
        if line and not event.visibility.admits(3) and event.kind != "role":
            assert line not in text.splitlines(), f"hidden line printed: {line}"
    assert "your role is" in text and text.count("your role is") == 1
    record = load_records(tmp_path / "results")[0]
    assert record["seats"][3]["agent_kind"] == "human"
    assert record["seats"][3]["decisions"] > 0


def test_end_of_input_falls_back_to_defaults() -> None:
    def closed(prompt: str) -> str:
        raise EOFError

    result = play_in_terminal(
        "simple", 5, 0, "random", 3, {"first_phase": "day"}, read=closed, out=io.StringIO()
    )
    mine = [d for d in result.log.decisions if d["seat"] == 0]
    assert mine and all(d.get("fallback") == "error" for d in mine)


def test_the_terminal_shows_the_rules_with_the_game_switches() -> None:
    out = io.StringIO()
    play_in_terminal(
        "standard",
        7,
        0,
        "random",
        4,
        {"vote_tie": "none", "doctor_self": False},
        read=lambda prompt: (_ for _ in ()).throw(EOFError()),
        out=out,
    )
    text = out.getvalue()
    assert "a tie for the most votes means nobody is executed" in text
    assert (
        "doctor_protect (doctor): protect a player from being killed tonight. "
        "Target: one player, not themselves." in text
    )
