"""The command line's help shows every command's summary and every option's help in
full: the help is rendered as rich markup, where a bracketed word (``[rl]``) is a style
tag and silently vanishes."""

from __future__ import annotations

import re

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from mafia_arena.cli import app

COMMANDS = sorted(get_command(app).commands)  # type: ignore[attr-defined]


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z][\w.-]*", text)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_word_of_a_commands_help_is_shown(command: str) -> None:
    click_command = get_command(app).commands[command]  # type: ignore[attr-defined]
    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    shown = set(_words(result.output))
    texts = [click_command.help or ""] + [p.help or "" for p in click_command.params]
    for text in texts:
        summary = text.split("\n\n")[0]
        missing = [w for w in _words(summary) if w not in shown]
        assert not missing, (command, summary, missing)


@pytest.mark.parametrize("command", COMMANDS)
def test_no_value_is_shown_by_its_python_class_name(command: str) -> None:
    """A path argument reads ``<path>`` as the path options do, not ``<Path>`` (Typer
    spells the annotation's class for an argument that has a parser)."""
    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert not re.findall(r"<[A-Z]\w*>", result.output), result.output


@pytest.mark.parametrize(("command", "name"), [("replay", "log"), ("tournament", "spec")])
def test_a_path_arguments_help_line_reads_path(command: str, name: str) -> None:
    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "400"})
    assert re.search(rf"\b{name}\s+<path>\s", result.output), result.output
