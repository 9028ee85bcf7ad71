"""Inputs found by fuzzing the bundled variant, agent and spec files, run through the
real command line: each prints one paragraph naming the file, the key and the reason
and exits with code 2. Before, each ended in a traceback, exit 0 with a wrong
result (``rules.max_rounds = 0``: every game a draw of length 0) or a game that never
ended (a trillion discussion rounds).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.cli.support import assert_one_paragraph, run_cli

REPO = Path(__file__).resolve().parents[2]


def assert_user_error(code: int, err: str, *parts: str) -> None:
    """Exit code 2 and one paragraph with each of `parts`, no traceback."""
    assert code == 2, err
    assert_one_paragraph(err, *parts)


def _run(variant: str, *switches: str) -> list[str]:
    args = ["run", "--variant", variant, "--players", "7", "--games", "1", "--json"]
    for switch in switches:
        args += ["--set", switch]
    return args


def _variant_file(tmp_path: Path, name: str, old: str, new: str) -> str:
    """A copy of a bundled variant with `old` replaced by `new`."""
    text = (REPO / "envs" / f"{name}.toml").read_text()
    assert old in text
    path = tmp_path / f"{name}-edited.toml"
    path.write_text(text.replace(old, new, 1))
    return str(path)


@pytest.mark.parametrize(
    ("switches", "key", "reason"),
    [
        (("composition.fill_role=ghost",), "composition.fill_role", "unknown role 'ghost'"),
        (("alternative_row=nan",), "params.alternative_row", "not a finite number"),
        (("alternative_row=no",), "params.alternative_row", "needs true or false"),
        (("rules.max_rounds=0",), "rules.max_rounds", "must be at least 1"),
        (("rules.max_rounds=1e308*1e308",), "rules.max_rounds", "not a finite number"),
        # counts that made a game never end (talk rounds, discussion rounds)
        (("mafia_chat_rounds=1000000000000",), "night.0.chat_rounds", "or equal to 1000"),
        (("discussion_rounds=1000000000000",), "day.1.rounds", "or equal to 1000"),
    ],
    ids=[
        "fill-role",
        "nan-switch",
        "bool-switch",
        "max-rounds-0",
        "max-rounds-inf",
        "endless-talk",
        "endless-discussion",
    ],
)
def test_a_bad_switch_is_a_user_error(
    capsys: pytest.CaptureFixture[str], switches: tuple[str, ...], key: str, reason: str
) -> None:
    code, err = run_cli(_run("classic", *switches), capsys)
    assert_user_error(code, err, "classic.toml", f": {key}: ", reason, "--set")


@pytest.mark.parametrize(
    ("name", "old", "new", "key", "reason"),
    [
        (
            "simple",
            '[params]\nmafia = "max(1, round(n/4))"',
            'params = true\n[unused]\nmafia = "max(1, round(n/4))"',
            "params",
            "must be a table of switches",
        ),
        (
            "standard",
            'mafia = "max(1, round(n/4.5))"',
            'mafia = "max(1, round(n/4.5))' + " + n - n" * 300 + '"',
            "composition.formula.mafioso",
            "at most 1000 characters",
        ),
        ("classic", 'actors = ["mafioso"]', "actors = []", "night.0.actors", "at least 1"),
        (
            "standard",
            'appears = "mafia"',
            'appears = "mafai"',
            "factions.mafia.appears",
            "'mafia' or 'innocent'",
        ),
    ],
    ids=["params-not-a-table", "long-formula", "no-actors", "appears-misspelt"],
)
def test_a_broken_variant_file_is_a_user_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    old: str,
    new: str,
    key: str,
    reason: str,
) -> None:
    path = _variant_file(tmp_path, name, old, new)
    code, err = run_cli(_run(path), capsys)
    assert_user_error(code, err, path, f": {key}: ", reason)


def test_names_too_long_for_the_system_are_user_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: `OSError` (file name too long) from a path lookup, a traceback."""
    long = "a" * 300
    code, err = run_cli(_run(long), capsys)
    assert_user_error(code, err, "--variant", "no variant")
    code, err = run_cli(["run", "--agents", f"{long}.toml", "--games", "1"], capsys)
    assert_user_error(code, err, "--agents", f"{long}.toml: no such agent file")
    spec = tmp_path / "long.toml"
    spec.write_text(f'name = "long"\npool = ["random"]\n[[variants]]\nvariant = "{long}.toml"\n')
    spec.write_text(spec.read_text() + "players = 5\n")
    results = tmp_path / "results"
    code, err = run_cli(
        ["tournament", str(spec), "--no-ray", "--no-tracking", "--results", str(results)], capsys
    )
    assert_user_error(code, err, str(spec), ": variants.0.variant: ", "no such file")
    assert not results.exists()


def test_an_agent_file_with_an_infinite_price_is_a_user_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: loaded, and every game's cost came out as inf dollars."""
    text = (REPO / "agents" / "openai-gpt-4o-mini.toml").read_text()
    old = "price_per_input_token = 0.00000015"
    assert old in text
    agent = tmp_path / "agents" / "priced.toml"
    agent.parent.mkdir()
    agent.write_text(text.replace(old, "price_per_input_token = inf"))
    code, err = run_cli(["run", "--agents", str(agent), "--games", "1"], capsys)
    assert_user_error(code, err, str(agent), ": price_per_input_token: ", "finite number, got inf")


def test_a_spec_with_an_infinite_decision_timeout_is_a_user_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: loaded, with a per-decision timeout of inf seconds, i.e. none."""
    spec = tmp_path / "inf.toml"
    spec.write_text(
        'name = "inf"\npool = ["random"]\n[concurrency]\ndecision_timeout_s = inf\n'
        '[[variants]]\nvariant = "simple"\nplayers = 5\n'
    )
    results = tmp_path / "results"
    code, err = run_cli(
        ["tournament", str(spec), "--no-ray", "--no-tracking", "--results", str(results)], capsys
    )
    assert_user_error(code, err, str(spec), ": concurrency.decision_timeout_s: ", "finite")
    assert not results.exists()


@pytest.mark.parametrize(
    ("entry", "key", "reason"),
    [
        ('variant = "\\u0000"', "variants.0.variant", "unknown variant"),
        ('variant = "x\\u0000.toml"', "variants.0.variant", "no such file"),
    ],
    ids=["variant-name", "variant-file"],
)
def test_a_null_character_in_a_spec_name_is_a_user_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], entry: str, key: str, reason: str
) -> None:
    """Before: `ValueError` (embedded null byte) from a path lookup, a traceback."""
    spec = tmp_path / "nul.toml"
    spec.write_text(f'name = "nul"\npool = ["random"]\n[[variants]]\n{entry}\nplayers = 5\n')
    results = tmp_path / "results"
    code, err = run_cli(
        ["tournament", str(spec), "--no-ray", "--no-tracking", "--results", str(results)], capsys
    )
    assert_user_error(code, err, str(spec), f": {key}: ", reason)
    assert not results.exists()
