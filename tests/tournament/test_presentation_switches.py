"""The experiment switches `shuffle_names` and `shuffle_options`: read from the spec (a
variant entry overrides the top level), hashed only when on, and handed to every game,
whose log records the presentation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.tournament.conftest import write_spec

from mafia_arena.experiments.errors import SpecError
from mafia_arena.experiments.spec import load_spec
from mafia_arena.experiments.worker import BatchJob, play_batch
from mafia_arena.views.shown_names import Presentation

BASE = """
base_seed = 1
pool = ["random"]
[[variants]]
variant = "simple"
players = 5
games = 2
"""


def test_the_switches_are_read_and_an_entry_overrides_the_top_level(tmp_path: Path) -> None:
    spec = load_spec(write_spec(tmp_path, "s", "shuffle_names = true\n" + BASE))
    assert [(m.shuffle_names, m.shuffle_options) for m in spec.matchups] == [(True, False)]
    body = "shuffle_options = true\n" + BASE + "shuffle_options = false\nshuffle_names = true\n"
    spec = load_spec(write_spec(tmp_path, "s", body))
    assert [(m.shuffle_names, m.shuffle_options) for m in spec.matchups] == [(True, False)]


def test_the_switches_change_the_hash_only_when_on(tmp_path: Path) -> None:
    base = load_spec(write_spec(tmp_path, "h", BASE)).spec_hash
    off = "shuffle_names = false\nshuffle_options = false\n" + BASE
    assert load_spec(write_spec(tmp_path, "h", off)).spec_hash == base
    names = load_spec(write_spec(tmp_path, "h", "shuffle_names = true\n" + BASE)).spec_hash
    options = load_spec(write_spec(tmp_path, "h", "shuffle_options = true\n" + BASE)).spec_hash
    assert len({base, names, options}) == 3


def test_a_bad_switch_value_names_the_key(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as info:
        load_spec(write_spec(tmp_path, "b", 'shuffle_names = "yes"\n' + BASE))
    assert "shuffle_names" in str(info.value)


def test_every_game_of_the_matchup_records_its_presentation(tmp_path: Path) -> None:
    """Each game's names are drawn from its own seed with the host's key: the record is
    exactly that draw, and the two games' draws differ (for this fixed key; with a fresh
    key two 5-seat shuffles agree one time in 120, so the key is pinned)."""
    spec = load_spec(write_spec(tmp_path, "p", "shuffle_names = true\n" + BASE))
    matchup = spec.matchups[0]
    key = FIXED_HOST_KEY
    job = BatchJob(
        spec.name, spec.spec_hash, spec.base_seed, matchup, list(matchup.indices), host_key=key
    )
    out = play_batch(job)
    heads = [json.loads(item["log"].splitlines()[0]) for item in out]
    records = [head["meta"]["presentation"] for head in heads]
    assert all(r["shuffle_names"] and not r["shuffle_options"] for r in records)
    drawn = [
        Presentation.for_game(
            head["seed"], 5, key=key, shuffle_names=True, shuffle_options=False
        ).to_json()["names"]
        for head in heads
    ]
    assert [r["names"] for r in records] == drawn
    assert len(records) == 2 and records[0]["names"] != records[1]["names"]  # per game
