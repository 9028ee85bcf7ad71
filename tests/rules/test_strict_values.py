"""Every key of a variant takes exactly its TOML type, in the file and in a switch alike:
text is not a number (``min_players = "5"``), 5.0 is not the integer 5, and 1, 0,
``"yes"`` or ``"true"`` are not true/false (``abstain = 1``, ``--set abstain=yes``).
Counts and limits cannot be negative. Each is refused by the command that reads it in
one line ``FILE: KEY: REASON``, before any game.

Before, pydantic's lax mode converted each of these quietly (``abstain = 1`` played
with abstentions, ``--set abstain=yes`` too), and a negative ``per_target``, ``others``
or ``recommended_min_players`` loaded.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.cli.support import run_cli

from mafia_arena.rules.loader import envs_dir

REPO = Path(__file__).resolve().parents[2]
STANDARD = (REPO / "envs" / "standard.toml").read_text(encoding="utf-8")

# (id, the line of standard.toml replaced, its replacement, the key named, the reason)
FILE_CASES: list[tuple[str, str, str, str, str]] = [
    (
        "min-players-text",
        "min_players = 5",
        'min_players = "5"',
        "min_players",
        'not an integer: got "5"',
    ),
    (
        "min-players-float",
        "min_players = 5",
        "min_players = 5.0",
        "min_players",
        "not an integer: got 5.0",
    ),
    (
        "max-players-text",
        "max_players = 30",
        'max_players = "30"',
        "max_players",
        'not an integer: got "30"',
    ),
    (
        "rounds-text",
        "rounds = 2\n",
        'rounds = "2"\n',
        "night.0.rounds",
        'not an integer: got "2"',
    ),
    (
        "switch-text",
        "discussion_rounds = 2 ",
        'discussion_rounds = "2" ',
        "day.1.rounds",
        'not an integer: got "2" (the value of params.discussion_rounds)',
    ),
    (
        "switch-one-for-true",
        "abstain = false",
        "abstain = 1",
        "day.2.params.abstain",
        "not true or false: got 1 (the value of params.abstain)",
    ),
    (
        "switch-text-for-true",
        "reveal_on_death = true ",
        'reveal_on_death = "true" ',
        "rules.reveal_on_death",
        'not true or false: got "true" (the value of params.reveal_on_death)',
    ),
    (
        "flag-zero",
        "group = true",
        "group = 0",
        "night.0.group",
        "not true or false: got 0",
    ),
    (
        "flag-yes",
        'faction = "town"\nunique = true',
        'faction = "town"\nunique = "yes"',
        "roles.doctor.unique",
        'not true or false: got "yes"',
    ),
]


@pytest.mark.parametrize(
    ("case", "old", "new", "key", "reason"), FILE_CASES, ids=[c[0] for c in FILE_CASES]
)
def test_a_value_of_another_toml_type_in_a_variant_file_is_refused(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: str,
    old: str,
    new: str,
    key: str,
    reason: str,
) -> None:
    assert old in STANDARD
    variant = tmp_path / f"{case}.toml"
    variant.write_text(STANDARD.replace(old, new, 1), encoding="utf-8")
    args = ["play", "--variant", str(variant), "--players", "7", "--seed", "1"]
    code, err = run_cli(args, capsys)
    assert code == 2, err
    assert err == f"error: {variant}: {key}: {reason}\n"


# (the switch as given, the key named, the reason)
SWITCH_CASES: list[tuple[str, str, str]] = [
    ("abstain=yes", "day.2.params.abstain", 'not true or false: got "yes"'),
    ("abstain=1", "day.2.params.abstain", "not true or false: got 1"),
    ("rules.reveal_on_death=0", "rules.reveal_on_death", "not true or false: got 0"),
    ("discussion_rounds=2.0", "day.1.rounds", "not an integer: got 2.0"),
    (
        "night.1.limits.per_target=-1",
        "night.1.limits.per_target",
        "Input should be greater than or equal to 0",
    ),
    (
        "rules.recommended_min_players=-3",
        "rules.recommended_min_players",
        "Input should be greater than or equal to 0",
    ),
    (
        "factions.mafia.win.0.others=-1",
        "factions.mafia.win.0.others",
        "Input should be greater than or equal to 0",
    ),
]


@pytest.mark.parametrize(
    ("switch", "key", "reason"), SWITCH_CASES, ids=[c[0] for c in SWITCH_CASES]
)
def test_a_switch_of_another_type_or_out_of_range_is_refused(
    capsys: pytest.CaptureFixture[str], switch: str, key: str, reason: str
) -> None:
    args = ["play", "--players", "7", "--seed", "1", "--set", switch]
    code, err = run_cli(args, capsys)
    assert code == 2, err
    source = envs_dir() / "standard.toml"
    assert err == f"error: {source}: {key}: {reason} (from --set {switch})\n"
