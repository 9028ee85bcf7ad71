"""The action table: fixed, built from variant data, and covering every engine choice."""

from __future__ import annotations

import random

import pytest
from tests.env.env_cases import CASE_IDS, CASES

from mafia_arena.engine import PASS, Choice, Game
from mafia_arena.env.actions import UnknownChoiceError, build_action_table
from mafia_arena.rules import load_variant


def test_standard_table_layout() -> None:
    table = build_action_table(load_variant("standard"), 7)
    assert table.choice_of(0) == PASS
    assert [table.id_of(Choice("target", s)) for s in range(7)] == list(range(1, 8))
    assert table.id_of(Choice("accuse", 0)) == 8
    assert table.id_of(Choice("claim_role", None, "villager")) == 22
    assert table.size == 1 + 7 + 7 + 7 + 4 + 7 * 2
    with pytest.raises(UnknownChoiceError):
        table.id_of(Choice("target", 7))


def test_mode_verbs_come_from_the_night_primitives() -> None:
    variant = load_variant("standard", {"night.2.action": "check_or_kill"})
    table = build_action_table(variant, 7)
    names = [name for name, _, _ in table.sections]
    assert names[:4] == ["pass", "target", "check", "kill"]
    assert table.id_of(Choice("kill", 3)) == 1 + 7 + 7 + 3


@pytest.mark.parametrize(("variant", "players"), CASES, ids=CASE_IDS)
def test_every_engine_choice_has_an_action_id(variant: str, players: int) -> None:
    spec = load_variant(variant)
    table = build_action_table(spec, players)
    rng = random.Random(3)
    for seed in range(3):
        game = Game(spec, players, seed)
        while not game.over:
            for seat, request in sorted(game.pending().items()):
                ids = table.ids(request)
                assert len(set(ids)) == len(ids)
                assert [table.choice_of(i) for i in ids] == list(request.choices)
                game.submit(seat, rng.choice(request.choices))
