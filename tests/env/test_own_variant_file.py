"""The env played from a researcher's own variant file (`env(variant=path)`): it deals
and asks what that file says, and the game's log names the file, so it replays with
those rules rather than with a bundled variant's (`runner.log.played_variant`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mafia_arena.env import env
from mafia_arena.rules import load_variant
from mafia_arena.rules.loader import envs_dir
from mafia_arena.runner.log import GameLog, replay_differs, replay_or_why


def test_the_env_plays_an_own_variant_file_and_its_log_replays_with_it(tmp_path: Path) -> None:
    text = (envs_dir() / "standard.toml").read_text()
    text = text.replace('name = "standard"', 'name = "no-detective"')
    text = text.replace("doctor = 1, detective = 1", "doctor = 1, detective = 0")
    path = tmp_path / "no-detective.toml"
    path.write_text(text)

    played = env(variant=path, players=7)
    played.reset(seed=3)
    session = played.unwrapped.session
    game = session.game
    assert game.variant.digest == load_variant(path).digest
    dealt = sorted(game.state.role(seat) for seat in range(7))
    assert dealt == ["doctor", "mafioso", "mafioso", *["villager"] * 4]
    for _agent in played.agent_iter(max_iter=5000):
        observation, _, terminated, truncated, _ = played.last()
        if terminated or truncated:
            played.step(None)
            continue
        played.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert game.state.winner is not None

    log = GameLog.loads(GameLog.from_game(game).to_jsonl())
    assert log.variant == "no-detective"
    assert log.meta["variant_file"] == str(path.resolve())
    asked = {record["kind"] for record in log.decisions}
    assert "night:mafia_kill" in asked and "night:detective_check" not in asked
    rebuilt = replay_or_why(log)
    assert not isinstance(rebuilt, str), rebuilt
    assert replay_differs(log, rebuilt) is None
