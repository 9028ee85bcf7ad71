"""A game log records the content digest of the variant file that played it
(``meta["variant_digest"]``), so `mafia-arena replay` of a log that no longer replays
after ``envs/*.toml`` was edited names that file instead of calling the log damaged.

The edit is made in a copy of the package and its variants (the repository's own files
stay as they are); the replay runs from that copy."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.host_key import FIXED_HOST_KEY

import mafia_arena
from mafia_arena.agents.random_agent import RandomAgent
from mafia_arena.experiments.provenance import file_digest
from mafia_arena.rules import load_variant
from mafia_arena.rules.loader import envs_dir
from mafia_arena.runner import play_match_sync


def copied_package(folder: Path) -> Path:
    """The running package and its bundled variants copied to `folder` (the layout of a
    checkout: ``src/mafia_arena`` beside ``envs``); returns its ``src``."""
    package = Path(mafia_arena.__file__).resolve().parent
    shutil.copytree(
        package, folder / "src" / "mafia_arena", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copytree(envs_dir(), folder / "envs")
    return folder / "src"


def replay_from(src: Path, log: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(
        [sys.executable, "-m", "mafia_arena.cli", "replay", str(log)],
        env=env,
        cwd=src.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_log_replayed_with_an_edited_variant_file_names_the_file(tmp_path: Path) -> None:
    result = play_match_sync(
        load_variant("simple"), [RandomAgent() for _ in range(5)], 1, host_key=FIXED_HOST_KEY
    )
    log = result.log.save(tmp_path / "game.jsonl")
    header = json.loads(log.read_text().splitlines()[0])
    assert header["meta"]["variant_digest"] == file_digest(envs_dir() / "simple.toml")

    src = copied_package(tmp_path / "copy")
    unchanged = replay_from(src, log)
    assert unchanged.returncode == 0, unchanged.stdout + unchanged.stderr

    variant = tmp_path / "copy" / "envs" / "simple.toml"
    text = variant.read_text()
    assert 'max_rounds = "n + 2"' in text
    variant.write_text(text.replace('max_rounds = "n + 2"', 'max_rounds = "1"'))
    edited = replay_from(src, log)
    assert edited.returncode == 1, edited.stdout + edited.stderr
    last = edited.stdout.strip().splitlines()[-1]
    assert f"the variant file {variant.resolve()} differs from the one that played" in last, last
    assert file_digest(variant) in last and header["meta"]["variant_digest"] in last, last
    assert "damaged" not in last and "other code" not in last, last
