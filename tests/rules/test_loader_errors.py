"""Every error path of the variant loader: one line naming the file, the key and the reason.

Each row breaks one bundled variant, either by editing its parsed document or through
switches (``--set KEY=VALUE``), and states the key and the reason the user must see.
"""

from __future__ import annotations

import re
import tomllib
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.cli.support import run_cli

import mafia_arena.rules
from mafia_arena.engine.voting import PROCEDURES
from mafia_arena.rules import VariantError, load_variant
from mafia_arena.rules.composition import deck_counts
from mafia_arena.rules.loader import build_variant, variant_path
from mafia_arena.rules.params import NominateFinalParams, PluralityParams
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
    players: int | None = None  # the error comes from dealing this many players
    text: str | None = None  # the variant file's own text (written to a file named `variant`)


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


def _drop(*path: Any) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        node = doc
        for part in path[:-1]:
            node = node[part]
        del node[path[-1]]

    return edit


CASES = [
    Case(
        "switch of the wrong type written in the file",
        "standard",
        "day.1.rounds",
        'not an integer: got "two" (the value of params.discussion_rounds)',
        edit=_set("params", "discussion_rounds", value="two"),
    ),
    Case(
        "switch out of range written in the file",
        "standard",
        "day.2.params.tie",
        "Input should be 'random' or 'none' (the value of params.vote_tie)",
        edit=_set("params", "vote_tie", value="coin"),
    ),
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
        'not true or false: got "sometimes"',
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
        "unknown key 'descrbe'; known: describe, describe_default, kind, narrate_cards",
        edit=_night("mafia_kill", "params", {"descrbe": "How?"}),
    ),
    Case(
        "attempt kind on a check",
        "classic",
        "night.1.params.kind",
        "unknown key 'kind'; known: describe, describe_default, narrate_cards",
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
        "default manner of death without a describe prompt",
        "classic",
        "night.1.params.describe_default",
        "a default text needs a describe prompt",
        edit=_night("detective_check", "params", {"describe_default": "was found dead"}),
    ),
    Case(
        "narrated card that does not exist",
        "club",
        "night.10.params.narrate_cards",
        "unknown role 'psycopath'",
        edit=_night("psychopath_kill", "params", {"narrate_cards": ["psycopath"]}),
    ),
    Case(
        "night step name that is not text",
        "standard",
        "night.1.display",
        "Input should be a valid string",
        edit=_night("doctor_protect", "display", 3),
    ),
    Case(
        "night step name set to a number",
        "club",
        "night.7.display",
        "Input should be a valid string",
        overrides={"night.7.display": 7},
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
        "override whose entry number int() cannot read",
        "simple",
        "day.³",
        "no such entry: the list has 2 entries, numbered 0..1",
        overrides={"day.³": 1},
    ),
    Case(
        "override inside an entry whose number int() cannot read",
        "simple",
        "day.²",
        "no such entry: the list has 2 entries, numbered 0..1",
        overrides={"day.².rounds": 1},
    ),
    Case(
        "override whose entry number has more digits than int() reads",
        "simple",
        "day." + "1" * 5000,
        "no such entry: the list has 2 entries, numbered 0..1",
        overrides={"day." + "1" * 5000: 1},
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
        "an empty morning line for a night without a death",
        "classic",
        "rules.no_death_announcement",
        "String should have at least 1 character",
        overrides={"rules.no_death_announcement": ""},
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
    Case(
        "variant file that is not TOML",
        "broken.toml",
        "-",
        "not valid TOML",
        text="name = \n",
    ),
    Case(
        "variant file nested too deeply to parse",
        "deep.toml",
        "-",
        "not valid TOML: nested too deeply to read",
        text="deep = " + "[" * 5000 + "]" * 5000 + "\n",
    ),
    Case(
        "folder in place of a variant file",
        ".",
        "-",
        "cannot read the file: it is a folder, not a TOML file",
    ),
    Case(
        "role of an unknown faction",
        "simple",
        "roles.mafioso.faction",
        "unknown faction 'mafai'",
        edit=_set("roles", "mafioso", "faction", value="mafai"),
    ),
    Case(
        "knows an unknown role",
        "club",
        "roles.don.knows_roles",
        "unknown role 'lawyr'",
        edit=_set("roles", "don", "knows_roles", value=["don", "lawyr"]),
    ),
    Case(
        "win rule naming an unknown faction",
        "simple",
        "factions.town.win.0.factions",
        "unknown faction 'mafai'",
        edit=_set("factions", "town", "win", 0, "factions", value=["mafai"]),
    ),
    Case(
        "unknown night action",
        "standard",
        "night.0.action",
        "unknown action 'poison'",
        edit=lambda doc: doc["night"][0].__setitem__("action", "poison"),
    ),
    Case(
        "forum day step outside the dictator flow",
        "standard",
        "day.1.type",
        'a forum needs rules.flow = "dictator"',
        edit=lambda doc: doc["day"].insert(1, {"type": "forum"}),
    ),
    Case(
        "forum channel switched on outside the dictator flow",
        "standard",
        "rules.forum.newspaper",
        'a forum needs rules.flow = "dictator"',
        edit=_set("rules", "forum", value={"newspaper": True}),
    ),
    Case(
        "Palermo card dealt first that does not exist",
        "palermo",
        "palermo.deal_first",
        "unknown card 'resurection'",
        edit=_set("palermo", "deal_first", value="resurection"),
    ),
    Case(  # a window up to 0 players never applies: a typo, not a rule
        "Palermo vendetta window for no players",
        "palermo",
        "palermo.vendetta.0.max_players",
        "Input should be greater than or equal to 1",
        edit=_set("palermo", "vendetta", 0, "max_players", value=0),
    ),
    Case(
        "Palermo vendetta window for a negative count",
        "palermo",
        "palermo.vendetta.0.max_players",
        "Input should be greater than or equal to 1",
        edit=_set("palermo", "vendetta", 0, "max_players", value=-3),
    ),
    Case(
        "Palermo deal order naming an unknown card",
        "palermo",
        "palermo.deal_order.1",
        "unknown card 'ekho'",
        edit=_set("palermo", "deal_order", 1, value="ekho"),
    ),
    Case(
        "composition row dealing an unknown role",
        "simple",
        "composition.formula.mafia",
        "unknown role",
        edit=_set("composition", "formula", "mafia", value=1),
    ),
    Case(
        "unknown parameter",
        "simple",
        "rules.first_phase",
        "unknown parameter ${first}",
        edit=_set("rules", "first_phase", value="${first}"),
    ),
    Case(
        "negation of a switch that is not true/false",
        "simple",
        "rules.reveal_on_death",
        "!${mafia} needs a true/false switch",
        edit=_set("rules", "reveal_on_death", value="!${mafia}"),
    ),
    Case(
        "override below a number",
        "simple",
        "min_players.x",
        "no such key to override",
        overrides={"min_players.x.y": 1},
    ),
    Case(
        "override inside a text",
        "simple",
        "title.x",
        "no such key to override",
        overrides={"title.x": 1},
    ),
    Case(
        "count that is true",
        "simple",
        "composition.formula.mafioso",
        "a count is a number or a formula, not true",
        overrides={"mafia": True},
    ),
    Case(
        "count with a fraction",
        "simple",
        "composition.formula.mafioso",
        "a count must be a whole number or a formula, got 2.5",
        overrides={"mafia": 2.5},
    ),
    Case(
        "count that is a quoted number",
        "simple",
        "composition.formula.mafioso",
        'a count must be a number or a formula, got the string "2"',
        overrides={"mafia": '"2"'},
    ),
    Case(
        "negative count",
        "simple",
        "composition.formula.mafioso",
        "a count cannot be negative, got -1",
        overrides={"mafia": -1},
    ),
    Case(
        "nominees that is true",
        "classic",
        "day.2.params.nominees",
        "not an integer: got true",
        overrides={"day.2.params.nominees": True},
    ),
    Case(
        "max_rounds that is true",
        "simple",
        "rules.max_rounds",
        "not an integer: got true",
        overrides={"rules.max_rounds": True},
    ),
    Case(
        "max_rounds that is not whole",
        "simple",
        "rules.max_rounds",
        "a count must be a whole number or a formula, got 2.5",
        overrides={"rules.max_rounds": 2.5},
    ),
    # the deal: the variant loads, but `players` cannot be dealt
    Case("too few players", "standard", "players", "4 players is too few: at least 5", players=4),
    Case("too many players", "standard", "players", "31 players is outside 5..30", players=31),
    Case(
        "no row for the table",
        "club",
        "composition",
        "no row for 9 players",
        edit=_drop("composition", "formula"),
        players=9,
    ),
    Case(
        "formula that turns negative",
        "simple",
        "composition.formula.mafioso",
        "a count cannot be negative: '1 - n' is -4 at n = 5",
        overrides={"mafia": "1 - n"},
        players=5,
    ),
    Case(
        "rest that turns negative",
        "standard",
        "composition.formula.villager",
        "-1 villager for 7 players: the other roles already take 8 seats",
        overrides={"mafia": 6},
        players=7,
    ),
    Case(
        "formula without rest that does not add up",
        "simple",
        "composition.formula",
        "add up to 2, not 5 players",
        edit=_set("composition", "formula", "villager", value=1),
        players=5,
    ),
    Case(
        "count that is not whole",
        "simple",
        "composition.formula.mafioso",
        "is not a whole number",
        overrides={"mafia": "n / 2"},
        players=5,
    ),
    Case(
        "count outside its bounds",
        "simple",
        "composition.formula.mafioso",
        "outside the bounds 1..(n - 1) / 2",
        overrides={"mafia": 4},
        players=7,
    ),
    Case(
        "count that divides by zero at one size",
        "simple",
        "composition.formula.mafioso",
        "division by zero",
        overrides={"mafia": "1 / (n - 7)"},
        players=7,
    ),
    Case(
        "unique role dealt twice",
        "club",
        "composition.formula.don",
        "unique role dealt twice",
        edit=_set("composition", "formula", "don", value=2),
        players=9,
    ),
    # found by fuzzing the bundled variants: each crashed or played a wrong game before
    Case(
        "params is not a table",
        "simple",
        "params",
        "must be a table of switches (name = value), got True",
        edit=_set("params", value=True),
    ),
    Case(
        "fill role names no role",
        "classic",
        "composition.fill_role",
        "unknown role 'ghost'",
        overrides={"composition.fill_role": "ghost"},
    ),
    Case(
        "alternative row switch is not true or false",
        "classic",
        "params.alternative_row",
        "needs true or false, got 'x'",
        overrides={"alternative_row": "x"},
    ),
    Case(
        "last round below 1",
        "standard",
        "rules.max_rounds",
        "must be at least 1 ('n - n' is 0 at n = 5)",
        overrides={"rules.max_rounds": "n - n"},
    ),
    Case(
        "last round written as rest",
        "club",
        "rules.max_rounds",
        "unknown name 'rest' in 'rest'",
        overrides={"rules.max_rounds": "rest"},
    ),
    Case(
        "told as an unknown role",
        "dictator",
        "roles.dark_past.told_as",
        "unknown role 'ghost'",
        overrides={"roles.dark_past.told_as": "ghost"},
    ),
    Case(
        "switch that is not a finite number",
        "classic",
        "params.alternative_row",
        "not a finite number: nan",
        overrides={"alternative_row": float("nan")},
    ),
]


def trigger(case: Case, folder: Path) -> tuple[str, VariantError]:
    """Load (and deal) the case's variant; the file it names and the error it raised."""
    path = variant_path(case.variant)
    if case.text is not None:
        path = folder / case.variant
        path.write_text(case.text)
    with pytest.raises(VariantError) as caught:
        if case.edit is None:
            variant = load_variant(path if case.text else case.variant, case.overrides)
        else:
            document = tomllib.loads(path.read_text())
            case.edit(document)
            variant = build_variant(document, str(path), case.overrides)
        if case.players is not None:
            deck_counts(variant, case.players)
    return str(path), caught.value


ITEM4 = {
    "succeeds an unknown role",
    "converts to an unknown role",
    "converts for an unknown faction",
    "activates as an unknown role",
    "inherits except an unknown role",
    "inherits on an unknown cause",
    "retaliation mode misspelt",
    "unknown trait",
    "player range upside down",
    "division by zero in a count",
    "override past the end of the day",
    "override inside a step past the end",
    "role table that does not add up",
}
"""Issue 18 item 4's rows: roles named inside traits, an upside-down player range, a
count that divides by zero, an override past a list's end and a table that does not add
up (checked by `test_item4_...`; the rest of the table by the general test)."""
ITEM4_CASES = [c for c in CASES if c.name in ITEM4]
OTHER_CASES = [c for c in CASES if c.name not in ITEM4]
assert len(ITEM4_CASES) == len(ITEM4)


@pytest.mark.parametrize("case", OTHER_CASES, ids=[c.name for c in OTHER_CASES])
def test_loader_error_names_file_key_and_reason(case: Case, tmp_path: Path) -> None:
    check_message(case, tmp_path)


@pytest.mark.parametrize("case", ITEM4_CASES, ids=[c.name for c in ITEM4_CASES])
def test_item4_traits_counts_and_overrides_fail_on_load_with_file_key_and_reason(
    case: Case, tmp_path: Path
) -> None:
    check_message(case, tmp_path)


def check_message(case: Case, tmp_path: Path) -> None:
    """One paragraph naming the file, the key and the reason, and nothing internal."""
    path, error = trigger(case, tmp_path)
    message = str(error)
    assert error.source == path
    assert error.key == case.key
    assert case.reason in error.reason, error.reason
    assert message == f"{path}: {case.key}: {error.reason}"
    assert "\n" not in message and "Traceback" not in message and "pydantic" not in message
    if case.key != "-":  # a file that cannot be read keeps its cause for --debug
        assert error.__cause__ is None  # nothing internal chained to what the user reads


RULES = Path(mafia_arena.rules.__file__).parent


def raise_sites() -> set[tuple[str, int]]:
    """(file, line) of every ``raise VariantError(`` in the rules package."""
    sites = set()
    for source in sorted(RULES.glob("*.py")):
        for number, line in enumerate(source.read_text().splitlines(), 1):
            if re.search(r"\braise VariantError\(", line):
                sites.add((source.name, number))
    return sites


def test_every_raise_site_of_the_loader_has_a_case(tmp_path: Path) -> None:
    """A new ``raise VariantError`` without a row in CASES fails here."""
    reached = set()
    for case in CASES:
        _, error = trigger(case, tmp_path)
        frame = traceback.extract_tb(error.__traceback__)[-1]
        reached.add((Path(frame.filename).name, frame.lineno))
    sites = raise_sites()
    assert len(sites) > 30  # the search itself still finds the raise statements
    assert sites - reached == set(), "raise sites without a case in CASES"


def test_every_procedure_has_a_parameter_model_and_an_implementation() -> None:
    assert set(PROCEDURES) == VOTING_PROCEDURES


def test_typed_parameters_reach_the_procedure() -> None:
    variant = load_variant("standard", {"vote_tie": "none", "abstain": True})
    vote = next(step for step in variant.day if step.type == "vote")
    assert isinstance(vote.params, PluralityParams)
    assert vote.params.tie == "none" and vote.params.abstain is True
    classic = load_variant("classic", {"day.2.params.nominees": 3})
    final = next(s for s in classic.day if s.type == "vote").params
    assert isinstance(final, NominateFinalParams)
    assert final.nominees == 3


def test_a_variant_name_that_is_no_file_says_what_could_be_given() -> None:
    # the Python API (and every spec that names a variant) gets the message the
    # command line gives, not the bundled folder's made-up file with a "-" key
    with pytest.raises(VariantError) as raised:
        load_variant("standrd")
    message = str(raised.value)
    assert message.startswith("no variant 'standrd' (looked for ")
    assert "envs/standrd.toml" in message and ": -:" not in message
    assert "give a bundled name (classic, club, dictator, palermo, simple, standard)" in message
    with pytest.raises(VariantError, match=r"^no such file \(looked for .*nope\.toml\)"):
        load_variant("nope.toml")


ONE_ENTRY = "no such entry: the list has 1 entry, numbered 0"
EMPTY = "no such entry: the list is empty"
NO_ALLIES = ('knows_roles = ["mafioso"]', "knows_roles = []")


@pytest.mark.parametrize(
    ("edit", "switch", "key", "reason"),
    [
        (None, "night.1", "night.1", ONE_ENTRY),  # simple has one night step
        (None, "night.1.rounds", "night.1", ONE_ENTRY),
        (NO_ALLIES, "roles.mafioso.knows_roles.0", "roles.mafioso.knows_roles.0", EMPTY),
    ],
)
def test_an_entry_past_a_short_list_is_said_in_plain_words(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: tuple[str, str] | None,
    switch: str,
    key: str,
    reason: str,
) -> None:
    """A switch naming an entry that a list of a variant file does not have: a list of
    one entry is said in the singular ("1 entry, numbered 0", not "1 entries, numbered
    0..0"), an empty list plainly. The file is the user's own (simple's, edited), loaded
    by its path, and the command line prints the same words, naming the switch."""
    text = (variant_path("simple")).read_text()
    if edit is not None:
        assert edit[0] in text
        text = text.replace(edit[0], edit[1])
    path = tmp_path / "house.toml"
    path.write_text(text)
    with pytest.raises(VariantError) as error:
        load_variant(path, {switch: 1})
    assert str(error.value) == f"{path}: {key}: {reason}"
    code, err = run_cli(["run", "--variant", str(path), "--set", f"{switch}=1"], capsys)
    assert (code, err) == (2, f"error: {path}: {key}: {reason} (from --set {switch}=1)\n")
