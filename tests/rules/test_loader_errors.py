"""Every error path of the variant loader: one line naming the file, the key and the reason.

Each row breaks one bundled variant, either by editing its parsed document or through
switches (``--set KEY=VALUE``), and states the key and the reason the user must see.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from mafia_arena.engine.voting import PROCEDURES
from mafia_arena.rules import VariantError, load_variant
from mafia_arena.rules.composition import deck_counts
from mafia_arena.rules.loader import build_variant, variant_path
from mafia_arena.rules.vocabulary import VOTING_PROCEDURES

Edit = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Case:
    name: str
    variant: str
    key: str
    reason: str
    edit: Edit | None = None
    overrides: dict[str, Any] = field(default_factory=dict)


def _set(*path: Any, value: Any) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        node = doc
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value

    return edit


def _step(doc: dict[str, Any], table: str, name: str) -> dict[str, Any]:
    return next(s for s in doc[table] if s.get("name") == name)


def _night(name: str, key: str, value: Any) -> Edit:
    return lambda doc: _step(doc, "night", name).__setitem__(key, value)


CASES = [
    Case(
        "tie value misspelt",
        "standard",
        "day.2.params.tie",
        "Input should be 'random' or 'none'",
        overrides={"vote_tie": "nnone"},
    ),
    Case(
        "procedure parameter misspelt",
        "standard",
        "day.2.params.abstian",
        "unknown key 'abstian'; known: abstain, ballot, min_votes, tie",
        edit=_set("day", 2, "params", "abstian", value=True),
    ),
    Case(
        "parameter of another procedure",
        "classic",
        "day.2.params.tie",
        "unknown key 'tie'; known: ballot, nominees, rotate_first",
        edit=_set("day", 2, "params", "tie", value="none"),
    ),
    Case(
        "fewer than two nominees",
        "classic",
        "day.2.params.nominees",
        "Input should be greater than or equal to 2",
        overrides={"day.2.params.nominees": 1},
    ),
    Case(
        "club reveal is not a switch value",
        "club",
        "day.3.params.reveal",
        "Input should be a valid boolean",
        overrides={"day.3.params.reveal": "sometimes"},
    ),
    Case(
        "parameters on a step that takes none",
        "standard",
        "day.1.params.speed",
        "unknown key 'speed'",
        edit=_set("day", 1, "params", value={"speed": 2}),
    ),
    Case(
        "procedure on a discussion",
        "standard",
        "day.1.procedure",
        "only a vote step has a procedure",
        edit=_set("day", 1, "procedure", value="plurality"),
    ),
    Case(
        "unknown procedure",
        "standard",
        "day.2.procedure",
        "unknown voting procedure 'coin_flip'; known: accuse_defend, nominate_final, plurality",
        edit=_set("day", 2, "procedure", value="coin_flip"),
    ),
    Case(
        "night parameter misspelt",
        "classic",
        "night.0.params.descrbe",
        "unknown key 'descrbe'; known: describe, kind, narrate_cards",
        edit=_night("mafia_kill", "params", {"descrbe": "How?"}),
    ),
    Case(
        "attempt kind on a check",
        "classic",
        "night.1.params.kind",
        "unknown key 'kind'; known: describe, narrate_cards",
        edit=_night("detective_check", "params", {"kind": "clan"}),
    ),
    Case(
        "describe on a lone actor's step",
        "standard",
        "night.1.params.describe",
        "only a group step (group = true) describes",
        edit=_night("doctor_protect", "params", {"describe": "How?"}),
    ),
    Case(
        "narrated card that does not exist",
        "club",
        "night.10.params.narrate_cards",
        "unknown role 'psycopath'",
        edit=_night("psychopath_kill", "params", {"narrate_cards": ["psycopath"]}),
    ),
    Case(
        "succeeds an unknown role",
        "club",
        "roles.sergeant.traits.succeeds",
        "unknown role 'comissar'",
        edit=_set("roles", "sergeant", "traits", "succeeds", value="comissar"),
    ),
    Case(
        "converts to an unknown role",
        "club",
        "roles.werewolf.traits.converts_to.yakuza",
        "unknown role 'yakusa'",
        edit=_set("roles", "werewolf", "traits", "converts_to", "yakuza", value="yakusa"),
    ),
    Case(
        "converts for an unknown faction",
        "club",
        "roles.werewolf.traits.converts_to.triad",
        "unknown faction",
        edit=_set("roles", "werewolf", "traits", "converts_to", "triad", value="mafia"),
    ),
    Case(
        "activates as an unknown role",
        "club",
        "roles.psychopath.traits.activates_when_accused",
        "unknown role 'active_psycho'",
        edit=_set("roles", "psychopath", "traits", "activates_when_accused", value="active_psycho"),
    ),
    Case(
        "inherits except an unknown role",
        "club",
        "roles.deputy.traits.inherits.except",
        "unknown role 'civillian'",
        edit=_set("roles", "deputy", "traits", "inherits", "except", value=["civillian"]),
    ),
    Case(
        "inherits on an unknown cause",
        "club",
        "roles.deputy.traits.inherits.causes.0",
        "Input should be 'night', 'execution' or 'disqualification'",
        edit=_set("roles", "deputy", "traits", "inherits", "causes", value=["nigth"]),
    ),
    Case(
        "retaliation mode misspelt",
        "club",
        "roles.kamikaze.traits.retaliates.clan",
        "Input should be 'random' or 'leader'",
        overrides={"retaliation": "leeder"},
    ),
    Case(
        "unknown trait",
        "club",
        "roles.immortal.traits.bulletproof",
        "unknown key 'bulletproof'; known: activates_when_accused, converts_to",
        edit=_set("roles", "immortal", "traits", value={"bulletproof": True}),
    ),
    Case(
        "removed switch last_dead_decides",
        "classic",
        "rules.last_dead_decides",
        "unknown key 'last_dead_decides'",
        overrides={"rules.last_dead_decides": True},
    ),
    Case(
        "player range upside down",
        "simple",
        "max_players",
        "max_players (2) is below min_players (3)",
        edit=_set("max_players", value=2),
    ),
    Case(
        "division by zero in a count",
        "simple",
        "composition.formula.mafioso",
        "division by zero in 'n/0' at n = 3",
        overrides={"mafia": "n/0"},
    ),
    Case(
        "unknown name in a count",
        "standard",
        "composition.formula.mafioso",
        "unknown name 'players'",
        overrides={"mafia": "players // 4"},
    ),
    Case(
        "unknown name in max_rounds",
        "simple",
        "rules.max_rounds",
        "unknown name 'm'",
        overrides={"rules.max_rounds": "n + m"},
    ),
    Case(
        "bounds of an unknown role",
        "simple",
        "composition.bounds.mafia",
        "unknown role",
        edit=_set("composition", "bounds", "mafia", value=["1", "2"]),
    ),
    Case(
        "override past the end of the day",
        "simple",
        "day.9",
        "no such entry: the list has 2 entries, numbered 0..1",
        overrides={"day.9": 1},
    ),
    Case(
        "override inside a step past the end",
        "simple",
        "day.9",
        "no such entry: the list has 2 entries, numbered 0..1",
        overrides={"day.9.rounds": 1},
    ),
    Case(
        "override of a missing table",
        "simple",
        "speech",
        "unknown key 'speech'; known: ",
        overrides={"speech.rounds": 1},
    ),
    Case(
        "unknown switch",
        "simple",
        "mafias",
        "unknown switch; known: first_phase, mafia, mafia_win, reveal_on_death",
        overrides={"mafias": 2},
    ),
    Case(
        "stalemate after zero cycles",
        "club",
        "rules.stalemate_cycles",
        "Input should be greater than or equal to 1",
        overrides={"stalemate_cycles": 0},
    ),
    Case(
        "night rounds of zero",
        "classic",
        "night.0.rounds",
        "Input should be greater than or equal to 1",
        overrides={"mafia_rounds": 0},
    ),
    Case(
        "role table that does not add up",
        "classic",
        "composition.table.8",
        "role counts add up to 9, not 8 players",
        edit=_set("composition", "table", "8", "citizen", value=6),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_loader_error_names_file_key_and_reason(case: Case) -> None:
    path = variant_path(case.variant)
    with pytest.raises(VariantError) as caught:
        if case.edit is None:
            load_variant(case.variant, case.overrides)
        else:
            document = tomllib.loads(path.read_text())
            case.edit(document)
            build_variant(document, str(path), case.overrides)
    error = caught.value
    message = str(error)
    assert error.source == str(path)
    assert error.key == case.key
    assert case.reason in error.reason, error.reason
    assert message == f"{path}: {case.key}: {error.reason}"
    assert "\n" not in message and "Traceback" not in message and "pydantic" not in message
    assert error.__cause__ is None  # nothing internal chained to what the user reads


DECK_CASES = [
    (
        "standard",
        {"mafia": 6},
        7,
        "composition.formula.villager",
        "-1 villager for 7 players: the other roles already take 8 seats",
    ),
    ("standard", {}, 31, "players", "31 players is outside 5..30"),
    ("simple", {"mafia": "n / 2"}, 5, "composition.formula.mafioso", "is not a whole number"),
    ("simple", {"mafia": 4}, 7, "composition.formula.mafioso", "outside the bounds 1..(n - 1) / 2"),
    ("simple", {"mafia": "1 / (n - 7)"}, 7, "composition.formula.mafioso", "division by zero"),
]


@pytest.mark.parametrize(("name", "overrides", "players", "key", "reason"), DECK_CASES)
def test_deck_errors_name_the_file(name, overrides, players, key, reason) -> None:
    variant = load_variant(name, overrides)
    with pytest.raises(VariantError) as caught:
        deck_counts(variant, players)
    assert caught.value.source == str(variant_path(name))
    assert caught.value.key == key
    assert reason in caught.value.reason
    assert "\n" not in str(caught.value)


def test_every_procedure_has_a_parameter_model_and_an_implementation() -> None:
    assert set(PROCEDURES) == VOTING_PROCEDURES


def test_typed_parameters_reach_the_procedure() -> None:
    variant = load_variant("standard", {"vote_tie": "none", "abstain": True})
    vote = next(step for step in variant.day if step.type == "vote")
    assert vote.params.tie == "none" and vote.params.abstain is True
    classic = load_variant("classic", {"day.2.params.nominees": 3})
    assert next(s for s in classic.day if s.type == "vote").params.nominees == 3
