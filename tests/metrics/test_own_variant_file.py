"""Metrics of a stored log played from a researcher's own variant file read that file's
sides and roles (the file the log records, `runner.log.variant_source`), not the
fallback for a variant that cannot be loaded (every faction but ``mafia`` as town, no
role names known)."""

from __future__ import annotations

from pathlib import Path

from tests.host_key import FIXED_HOST_KEY

from mafia_arena.agents import make_agent
from mafia_arena.metrics.facts import variant_info
from mafia_arena.rules import load_variant
from mafia_arena.rules.loader import envs_dir
from mafia_arena.runner import play_match_sync
from mafia_arena.runner.log import GameLog


def test_a_stored_log_of_an_own_variant_file_is_read_with_its_roles(tmp_path: Path) -> None:
    text = (envs_dir() / "standard.toml").read_text()
    text = text.replace('name = "standard"', 'name = "cult"')
    text = text.replace("[roles.doctor]", '[roles.doctor]\ndisplay = "Healer"')
    path = tmp_path / "cult.toml"
    path.write_text(text)
    result = play_match_sync(
        load_variant(path), [make_agent("random") for _ in range(7)], 1, host_key=FIXED_HOST_KEY
    )
    stored = GameLog.load(result.log.save(tmp_path / "game.jsonl"))

    sides, roles, names, factions = variant_info(stored)
    assert sides == {"town": "town", "mafia": "mafia"}
    assert set(roles) == {"villager", "doctor", "detective", "mafioso"}
    assert ("Healer", "doctor") in names and factions["doctor"] == "town"
