"""A tournament spec's switches (``[[variants]] set``) are typed as a variant file's
values are: quoted text that means a number or true/false (``discussion_rounds =
"2"``, ``abstain = "true"``) and a number where true/false is meant (``abstain = 1``)
are refused in one line naming the spec, the switch and the reason, before any game.

Before, ``"2"`` and ``"true"`` were converted as a command line's ``--set`` text is, and
``abstain = 1`` played with abstentions.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.cli.support import run_cli

from mafia_arena.rules.loader import envs_dir

STANDARD = envs_dir() / "standard.toml"


@pytest.mark.parametrize(
    ("switches", "key", "reason"),
    [
        (
            'discussion_rounds = "2"',
            "discussion_rounds",
            '"2" is text; write 2, without quotes',
        ),
        ('abstain = "true"', "abstain", '"true" is text; write true, without quotes'),
        (
            "abstain = 1",
            "abstain",
            f"{STANDARD}: day.2.params.abstain: not true or false: got 1",
        ),
        (
            "doctor_self = 0",
            "doctor_self",
            f"{STANDARD}: night.1.target.self: not true or false: got 0",
        ),
    ],
    ids=["quoted-count", "quoted-true", "one-for-true", "zero-for-false"],
)
def test_a_switch_of_another_type_is_refused_naming_spec_and_switch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], switches: str, key: str, reason: str
) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(
        'name = "t"\ngames = 1\npool = ["random"]\n'
        f'[[variants]]\nvariant = "standard"\nplayers = 7\nset = {{ {switches} }}\n',
        encoding="utf-8",
    )
    results = tmp_path / "results"
    code, err = run_cli(
        ["tournament", str(spec), "--results", str(results), "--no-tracking"], capsys
    )
    assert code == 2, err
    assert err == f"error: {spec}: variants.0.set.{key}: {reason}\n"
    assert not results.exists()
