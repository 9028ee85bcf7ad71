"""Pseudonym ownership after a forum game (dictator.md OP-D36): the replay's seat views
and the moderator's view (GET /api/games/{id}/replay, `storage.replay_views`) and the
CLI's replay never put a pseudonym next to its owner's seat name, unless the host opted
in with ``rules.forum.reveal_pseudonyms``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.host_key import FIXED_HOST_KEY
from typer.testing import CliRunner

from mafia_arena.agents.heuristic import HeuristicAgent
from mafia_arena.cli import app
from mafia_arena.engine.catalogue import FormNoted, PseudonymTransfer
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match_sync
from mafia_arena.runner.log import GameLog
from mafia_arena.views.words import name
from mafia_arena.web.storage import replay_views

PLAYERS = 12


def finished_game(seed: int, overrides: dict[str, Any] | None = None) -> GameLog:
    """A real 12-seat heuristic dictator game, as the web app stores it (with the fixed
    host key: which seeds give ads and a transfer is then the same in every run)."""
    variant = load_variant("dictator", overrides)
    agents = [HeuristicAgent(strict=True) for _ in range(PLAYERS)]
    return play_match_sync(variant, agents, seed, overrides, host_key=FIXED_HOST_KEY).log


def owners(stored: GameLog) -> dict[str, set[int]]:
    """Each pseudonym → every seat that owned it during the game (from the log)."""
    found: dict[str, set[int]] = {}
    for event in stored.events:
        fact = event.fact
        if isinstance(fact, FormNoted) and fact.pseudonym:
            found.setdefault(fact.pseudonym, set()).update(event.visibility.seats)
        elif isinstance(fact, PseudonymTransfer):
            found.setdefault(fact.pseudonym, set()).update({fact.giver, fact.receiver})
    return found


@pytest.fixture(scope="module")
def game_with_ads() -> GameLog:
    for seed in range(20):
        stored = finished_game(seed)
        if owners(stored) and any(isinstance(e.fact, PseudonymTransfer) for e in stored.events):
            return stored
    pytest.fail("no seed in 0..19 gave a game with ads and a pseudonym transfer")


def tied_lines(views: dict[str, Any], owned: dict[str, set[int]]) -> list[str]:
    """Lines that show a pseudonym beside one of its owners: in that seat's own view,
    in a moderator line private to that seat, or next to its name in any line (the
    public newspaper names pseudonyms only, no author, so it is not counted)."""
    found = []
    for entry in views["seats"]:
        for line in entry["lines"]:
            if line["kind"] == "newspaper":
                continue
            for pseudonym, seats in owned.items():
                if pseudonym in line["text"] and entry["seat"] in seats:
                    found.append(f"{entry['label']}: {line['text']}")
    for line in views["moderator"]:
        if line["kind"] == "newspaper":
            continue
        for pseudonym, seats in owned.items():
            names = [name(s) for s in seats]
            beside = any(n in (line["channel"] or "") or n in line["text"] for n in names)
            if pseudonym in line["text"] and beside:
                found.append(f"moderator: {line['text']} ({line['channel']})")
    return found


def test_replay_views_never_show_a_pseudonym_beside_its_owner(game_with_ads: GameLog) -> None:
    views = replay_views(game_with_ads)
    assert tied_lines(views, owners(game_with_ads)) == []
    published = [line for line in views["moderator"] if line["kind"] == "newspaper"]
    assert any(p in line["text"] for line in published for p in owners(game_with_ads))
    assert any(line["kind"] == "private_message" for line in views["moderator"])


def test_the_host_may_opt_in_to_revealing_pseudonym_owners() -> None:
    switch = {"rules.forum.reveal_pseudonyms": True}
    for seed in range(20):
        stored = finished_game(seed, switch)
        if owners(stored):
            break
    views = replay_views(stored)
    assert tied_lines(views, owners(stored)) != []


def test_cli_replay_never_shows_a_pseudonym_beside_its_owner(
    game_with_ads: GameLog, tmp_path: Path
) -> None:
    log = tmp_path / "game.jsonl"
    game_with_ads.save(log)
    owned = owners(game_with_ads)
    runner = CliRunner()
    for seat in range(PLAYERS):
        result = runner.invoke(app, ["replay", str(log), "--seat", str(seat + 1)])
        assert result.exit_code == 0, result.output
        mine = [p for p, seats in owned.items() if seat in seats]
        shown = [
            line
            for line in result.output.splitlines()
            if "Newspaper (" not in line and any(p in line for p in mine)
        ]
        assert shown == [], f"P{seat + 1}: {shown}"
    omniscient = runner.invoke(app, ["replay", str(log)]).output
    assert "Your ad under" not in omniscient and "Pseudonym '" not in omniscient
