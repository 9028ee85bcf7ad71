"""An agent file that is wrong, or no agent file at all, is refused in one line
``FILE: KEY: REASON`` (key ``-``: the file as a whole), as a variant file or a spec is,
wherever a command reads it: ``play --agents``, a tournament's ``pool``, the web app's
list of bots. No traceback, and no list of every key such a file lacks.

Before, an LLM agent file's errors read ``FILE: key 'model': ...``; an empty file, a
variant file or settings inside an ``[agent]`` table gave a line for each key missing or
unknown; a folder was "agent file not found"; a file of bytes printed Python's codec
message; and ``kind = "llm"``, the kind the project names for these files, was refused
as an unknown key.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.cli.support import run_cli

from mafia_arena.web.manager import agent_choices
from mafia_arena.web.settings import Settings

REPO = Path(__file__).resolve().parents[2]

Writer = Callable[[Path], object]
"""Writes a test's agent file at the path given."""

AGENT_TABLE = (
    'unknown table [agent]; an agent file writes its settings at the top level (model = "...", '
    'base_url = "..."), in no table'
)


def _text(text: str) -> Writer:
    return lambda path: path.write_text(text, encoding="utf-8")


def _copy(relative: str) -> Writer:
    return lambda path: path.write_bytes((REPO / relative).read_bytes())


# (id, how the file is written, the key named, the reason)
CASES: list[tuple[str, Writer, str, str]] = [
    ("empty", _text(""), "-", 'the file is empty; an agent file sets at least model = "NAME"'),
    (
        "comments-only",
        _text("# a player, some day\n"),
        "-",
        'the file is empty; an agent file sets at least model = "NAME"',
    ),
    ("not-toml", _text("model = \n"), "-", "not valid TOML: Invalid value (at line 1, column 9)"),
    (
        "binary",
        lambda path: path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00"),
        "-",
        "cannot read the file: not UTF-8 text (byte 0x89 at offset 0)",
    ),
    ("agent-table", _text('[agent]\nname = "x"\nmodel = "m"\n'), "agent", AGENT_TABLE),
    (
        "agent-tables",
        _text('[[agent]]\nmodel = "m"\n'),
        "agent",
        AGENT_TABLE.replace("[agent]", "[[agent]]"),
    ),
    (
        "variant-file",
        _copy("envs/standard.toml"),
        "-",
        "this is a variant file, not an agent file (give it with --variant, or as a spec's "
        "variants.<i>.variant)",
    ),
    (
        "experiment-spec",
        _copy("experiments/smoke.toml"),
        "-",
        "this is an experiment spec, not an agent file (run it with mafia-arena tournament)",
    ),
    (
        "training-spec",
        _copy("experiments/rl-town-votes.toml"),
        "-",
        "this is a training spec, not an agent file (run it with mafia-arena train)",
    ),
    ("typo", _text('model = "m"\ntemprature = 0.5\n'), "temprature", "unknown key (typo?)"),
    (
        "count-as-text",
        _text('model = "m"\nmax_tokens = "96"\n'),
        "max_tokens",
        'Input should be a valid integer, got "96"',
    ),
    (
        "kind-number",
        _text('model = "m"\nkind = 3\n'),
        "kind",
        'must be "llm" (or left out) for an LLM player, got 3',
    ),
]
IDS = [case[0] for case in CASES]


def _tournament_refusal(
    tmp_path: Path, agent: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, str]:
    """A tournament whose pool holds `agent`, run: its spec and what it said on stderr,
    once it has refused with exit 2 (the shape every case checks)."""
    spec = tmp_path / "spec.toml"
    spec.write_text(
        f'name = "t"\ngames = 1\npool = ["random", "{agent}"]\n'
        '[[variants]]\nvariant = "simple"\nplayers = 5\n',
        encoding="utf-8",
    )
    args = ["tournament", str(spec), "--results", str(tmp_path / "results"), "--no-tracking"]
    code, err = run_cli(args, capsys)
    assert code == 2, err
    return spec, err


@pytest.mark.parametrize(("case", "write", "key", "reason"), CASES, ids=IDS)
def test_play_names_the_agent_file_key_and_reason_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: str,
    write: Writer,
    key: str,
    reason: str,
) -> None:
    agent = tmp_path / f"{case}.toml"
    write(agent)
    code, err = run_cli(["play", "--players", "5", "--agents", str(agent), "--seed", "1"], capsys)
    assert code == 2, err
    assert err == f"error: --agents: {agent}: {key}: {reason}\n"


def test_a_folder_named_as_an_agent_file_is_said_to_be_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "bot.toml"
    folder.mkdir()
    code, err = run_cli(["play", "--players", "5", "--agents", str(folder)], capsys)
    assert code == 2, err
    assert err == (
        f"error: --agents: {folder}: -: cannot read the file: it is a folder, not a TOML file\n"
    )


@pytest.mark.parametrize(("case", "write", "key", "reason"), CASES, ids=IDS)
def test_a_tournament_names_the_pool_entry_and_the_agent_file_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: str,
    write: Writer,
    key: str,
    reason: str,
) -> None:
    agent = tmp_path / f"{case}.toml"
    write(agent)
    spec, err = _tournament_refusal(tmp_path, agent, capsys)
    assert err == (
        f"error: {spec}: pool: agent {str(agent)!r} (matchup 0, entry 1) cannot be built: "
        f"{agent}: {key}: {reason}\n"
    )
    assert not (tmp_path / "results").exists()


def test_a_tournament_says_a_folder_in_its_pool_is_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bot.toml").mkdir()
    spec = tmp_path / "spec.toml"
    spec.write_text(
        'name = "t"\ngames = 1\npool = ["random", "bot.toml"]\n'
        '[[variants]]\nvariant = "simple"\nplayers = 5\n',
        encoding="utf-8",
    )
    args = ["tournament", str(spec), "--results", str(tmp_path / "results"), "--no-tracking"]
    code, err = run_cli(args, capsys)
    assert code == 2, err
    assert err == f"error: {spec}: pool.1: 'bot.toml': it is a folder, not an agent file\n"


def test_the_web_app_logs_each_agent_file_it_leaves_off_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    for case, write, _, _ in CASES:
        write(agents / f"{case}.toml")
    monkeypatch.chdir(tmp_path)
    settings = Settings(allowed_agents=None, allow_paid_bots=True)  # every file is tried
    with caplog.at_level(logging.WARNING, logger="mafia_arena.web.manager"):
        offered = agent_choices(settings)
    assert not [choice for choice in offered if choice.startswith("agents/")]
    said = {r.getMessage() for r in caplog.records if "left off the bot list" in r.getMessage()}
    expected = {
        f"agent file agents/{case}.toml left off the bot list: "
        f"{(agents / f'{case}.toml').resolve()}: {key}: {reason}"
        for case, _, key, reason in CASES
    }
    assert said == expected


def test_an_llm_agent_file_may_name_its_kind(tmp_path: Path) -> None:
    """``kind = "llm"`` is the kind `agents.files` gives LLM players' files; the other
    kinds' loaders pass such a file on, and its own loader takes it."""
    from mafia_arena.llm.definition import load_agent_definition

    agent = tmp_path / "named.toml"
    agent.write_text('kind = "llm"\nmodel = "m"\n', encoding="utf-8")
    assert load_agent_definition(agent).model == "m"


def test_an_rl_agent_file_says_each_bad_key_on_a_line_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As an LLM agent file's and a spec's problems are told (each ``FILE: KEY: REASON``,
    in the file's order), not only the first. Before, this file was refused for
    ``falback`` alone ("unknown in an rl agent file"), and the next run for ``nme``."""
    agent = tmp_path / "bot.toml"
    agent.write_text(
        'kind = "rl"\npolicy = "p.npz"\nfalback = "heuristic"\nnme = "x"\nname = 5\n',
        encoding="utf-8",
    )
    code, err = run_cli(["play", "--players", "7", "--agents", str(agent), "--seed", "1"], capsys)
    assert code == 2, err
    unknown = (
        "unknown key (typo?); an rl agent file's keys: "
        "description, fallback, kind, name, policy, variant"
    )
    assert err == (
        f"error: --agents: {agent}: falback: {unknown}\n"
        f"{agent}: nme: {unknown}\n"
        f"{agent}: name: must be non-empty text, not 5\n"
    )


def _folder_with_bad_speak(path: Path) -> None:
    """A folder of templates whose ``speak.txt`` has a ``$`` that names nothing."""
    path.mkdir()
    (path / "speak.txt").write_text("a $", encoding="utf-8")


PLACEHOLDERS = (
    "known: $rules, $seat, $role, $faction, $goal, $allies, $persona, $transcript, $prompt, "
    "$options, $max_chars, $day, $example, $target, $situation"
)

# (id, the agent file's prompt_template, what is written at prompts/<that>, the file
# the message names ("template": that file; "speak": speak.txt in it), the reason)
TEMPLATE_CASES: list[tuple[str, str, Writer, str, str]] = [
    (
        "unknown-placeholder",
        "mine.txt",
        _text("Hello $nosuch"),
        "template",
        f"unknown placeholder $nosuch; {PLACEHOLDERS}",
    ),
    (
        "not-utf8",
        "mine.txt",
        lambda path: path.write_bytes(b"x\xff"),
        "template",
        "cannot read the template: not UTF-8 text (byte 0xff at offset 1)",
    ),
    (
        "device",
        "mine.txt",
        lambda path: path.symlink_to("/dev/null"),
        "template",
        "not a regular file (a pipe or a device)",
    ),
    (
        "folder-with-bad-speak",
        "mine",
        _folder_with_bad_speak,
        "speak",
        "bad placeholder syntax: Invalid placeholder in string: line 1, col 3",
    ),
]


@pytest.mark.parametrize(
    ("case", "named", "write", "file", "reason"),
    TEMPLATE_CASES,
    ids=[case[0] for case in TEMPLATE_CASES],
)
def test_a_prompt_template_the_agent_file_names_is_told_as_its_key(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: str,
    named: str,
    write: Writer,
    file: str,
    reason: str,
) -> None:
    """``AGENT_FILE: prompt_template: TEMPLATE: REASON``: the key to fix, and the file.
    Before, the agent file and key went unnamed ("TEMPLATE: unknown placeholder ..."),
    and a template that was a device read "key 'prompt_template': ... not found (no
    such file or folder)", naming no file."""
    (tmp_path / "prompts").mkdir()
    agent = tmp_path / "bot.toml"
    agent.write_text(
        f'model = "m"\nbase_url = "http://127.0.0.1:9/v1"\nprompt_template = "{named}"\n',
        encoding="utf-8",
    )
    template = tmp_path / "prompts" / named
    write(template)
    shown = template if file == "template" else template / "speak.txt"
    code, err = run_cli(["play", "--players", "5", "--agents", str(agent), "--seed", "1"], capsys)
    assert code == 2, err
    assert err == f"error: --agents: {agent}: prompt_template: {shown}: {reason}\n"


def test_a_broken_template_of_the_agent_folder_is_told_as_its_own_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A template the agent folder's ``prompts/`` holds by name (no key names it) is the
    file at fault as a whole: ``TEMPLATE: -: REASON``, in a tournament's pool too.
    Before, the key was left out ("TEMPLATE: bad placeholder syntax: ...")."""
    (tmp_path / "prompts").mkdir()
    speak = tmp_path / "prompts" / "speak.txt"
    speak.write_text("a $", encoding="utf-8")
    agent = tmp_path / "bot.toml"
    agent.write_text('model = "m"\nbase_url = "http://127.0.0.1:9/v1"\n', encoding="utf-8")
    reason = "bad placeholder syntax: Invalid placeholder in string: line 1, col 3"
    code, err = run_cli(["play", "--players", "5", "--agents", str(agent), "--seed", "1"], capsys)
    assert code == 2, err
    assert err == f"error: --agents: {speak}: -: {reason}\n"
    spec, err = _tournament_refusal(tmp_path, agent, capsys)
    assert err == (
        f"error: {spec}: pool: agent {str(agent)!r} (matchup 0, entry 1) cannot be built: "
        f"{speak}: -: {reason}\n"
    )


def test_a_missing_agent_file_is_named_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--agents`` naming a file that is not there: the option, then the path given and
    the reason (``FILE: REASON``), as every other refusal of a file reads; before, "agent
    file not found: PATH" put the path last."""
    missing = tmp_path / "nowhere.toml"
    code, err = run_cli(["run", "--agents", str(missing), "--games", "1"], capsys)
    assert code == 2, err
    assert err.strip().splitlines() == [
        f"error: --agents: {missing}: no such agent file (looked from the working folder "
        "and the repository)"
    ]
