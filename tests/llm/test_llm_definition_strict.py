"""Agent files are strict: a value of the wrong TOML type is an error naming the file,
the key and what the file wrote, never a silent conversion; and the errors found after
loading (a missing prompt template, an unset API key variable) name the file and key."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest
from openai.types.shared import ReasoningEffort as OpenAIReasoningEffort

from mafia_arena.llm import AgentDefinitionError, load_agent_definition
from mafia_arena.llm.definition import ReasoningEffort

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str, name: str = "agent.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def load_error(path: Path) -> str:
    with pytest.raises(AgentDefinitionError) as info:
        load_agent_definition(path)
    return str(info.value)


@pytest.mark.parametrize(
    ("line", "key", "written"),
    [
        ("max_tokens = true", "max_tokens", "got true"),
        ("max_tokens = 96.0", "max_tokens", "got 96.0"),
        ("temperature = true", "temperature", "got true"),
        ('shuffle_options = "yes"', "shuffle_options", 'got "yes"'),
        ("shuffle_options = 1", "shuffle_options", "got 1"),
        ("structured_output = 1", "structured_output", "got 1"),
        ('breaker_failures = "5"', "breaker_failures", 'got "5"'),
        ("seed = false", "seed", "got false"),
        ("max_completion_tokens = 512.0", "max_completion_tokens", "got 512.0"),
        ('reasoning_model = "yes"', "reasoning_model", 'got "yes"'),
        ("model = 5", "model", "got 5"),
        ('reasoning_effort = "maximum"', "reasoning_effort", 'got "maximum"'),
    ],
)
def test_a_value_of_the_wrong_type_is_one_line_naming_file_key_and_value(
    tmp_path: Path, line: str, key: str, written: str
) -> None:
    text = f"{line}\n" if line.startswith("model") else f'model = "m"\n{line}\n'
    path = write(tmp_path, text)
    message = load_error(path)
    assert "\n" not in message
    assert message.startswith(f"{path}: {key}: ") and message.endswith(written)


def test_an_integer_is_a_number_where_a_number_is_expected(tmp_path: Path) -> None:
    path = write(tmp_path, 'model = "m"\ntemperature = 1\ntimeout_s = 30\ntop_p = 1\n')
    definition = load_agent_definition(path)
    assert definition.temperature == 1.0 and isinstance(definition.temperature, float)
    assert definition.timeout_s == 30.0 and definition.top_p == 1.0


def test_reasoning_effort_takes_exactly_the_openai_values(tmp_path: Path) -> None:
    (openai_values,) = (arg for arg in get_args(OpenAIReasoningEffort) if get_args(arg))
    assert set(get_args(ReasoningEffort)) == set(get_args(openai_values))
    for value in get_args(ReasoningEffort):
        path = write(tmp_path, f'model = "m"\nreasoning_effort = "{value}"\n')
        assert load_agent_definition(path).request_parameters()["reasoning_effort"] == value


def test_every_shipped_and_test_agent_file_still_loads() -> None:
    files = sorted((REPO / "agents").glob("*.toml")) + sorted((REPO / "tests").rglob("*.toml"))
    llm_files = [path for path in files if 'model = "' in path.read_text(encoding="utf-8")]
    assert any(path.parent.name == "agents" for path in llm_files)
    for path in llm_files:
        if "kind =" not in path.read_text(encoding="utf-8"):
            load_agent_definition(path)


def test_a_missing_prompt_template_names_the_agent_file_and_key(tmp_path: Path) -> None:
    path = write(tmp_path, 'model = "m"\nprompt_template = "nope.txt"\n')
    message = load_error(path)
    prompts = tmp_path / "prompts"
    assert message == (
        f"{path}: prompt_template: no such file {prompts / 'nope.txt'} (looked in {prompts})"
    )


def test_a_prompt_template_beside_the_agent_file_loads(tmp_path: Path) -> None:
    (tmp_path / "prompts" / "mine").mkdir(parents=True)
    (tmp_path / "prompts" / "system.txt").write_text("You are $seat.\n", encoding="utf-8")
    for name in ("system.txt", "mine"):
        path = write(tmp_path, f'model = "m"\nprompt_template = "{name}"\n')
        assert load_agent_definition(path).prompt_template == name


def test_an_unset_api_key_variable_names_the_agent_file_and_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MAFIA_ARENA_UNSET_KEY", raising=False)
    path = write(tmp_path, 'model = "m"\napi_key_env = "MAFIA_ARENA_UNSET_KEY"\n')
    definition = load_agent_definition(path)
    with pytest.raises(AgentDefinitionError) as info:
        definition.api_key()
    assert str(info.value) == (
        f"{path}: api_key_env: environment variable MAFIA_ARENA_UNSET_KEY is not set"
    )
    moved = definition.model_copy(update={"base_url": "http://127.0.0.1:9/v1"})
    with pytest.raises(AgentDefinitionError, match=f"^{re.escape(str(path))}: api_key_env: "):
        moved.api_key()


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("", "is set but empty"),
        (" \n", "holds only whitespace"),
        ("sk-abc def123", "holds a character an HTTP header cannot carry at position 7 "),
        ("sk-abc\x1bdef", "holds a character an HTTP header cannot carry at position 7 "),
        ("sk-abcdéf", "holds a character an HTTP header cannot carry at position 8 "),
    ],
)
def test_a_key_variable_that_holds_no_sendable_key_is_refused_without_showing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, problem: str
) -> None:
    """Set but empty is not "not set"; a key with a space, a control or a non-ASCII
    character inside cannot go in the ``Authorization`` header, and every request would
    fail as a connection error blamed on the endpoint: refused before any game, naming
    the variable and the position, never the key."""
    monkeypatch.setenv("MAFIA_ARENA_ODD_KEY", value)
    path = write(tmp_path, 'model = "m"\napi_key_env = "MAFIA_ARENA_ODD_KEY"\n')
    with pytest.raises(AgentDefinitionError) as info:
        load_agent_definition(path).api_key()
    message = str(info.value)
    assert message.startswith(f"{path}: api_key_env: environment variable MAFIA_ARENA_ODD_KEY ")
    assert problem in message
    assert "def" not in message.removeprefix(str(path))


async def test_a_key_read_with_its_line_break_is_sent_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``KEY=$(cat key.txt)`` drops the file's last line break, an ``.env`` file or a
    mounted secret may not: the key is sent without it, and the game's first request is
    answered (it used to fail, and every retry with it, as ``connection``)."""
    from tests.llm.fake_openai import FakeOpenAI, reply

    from mafia_arena.llm import ChatClient

    monkeypatch.setenv("MAFIA_ARENA_FILE_KEY", "sk-from-a-file-0123\n")
    server = FakeOpenAI()
    try:
        path = write(
            tmp_path,
            f'model = "m"\nbase_url = "{server.base_url}"\nmax_retries = 1\n'
            'api_key_env = "MAFIA_ARENA_FILE_KEY"\nretry_backoff_s = 0.01\n',
        )
        server.script(reply("hello"))
        result = await ChatClient(load_agent_definition(path)).complete(
            [{"role": "user", "content": "hi"}]
        )
    finally:
        server.close()
    assert not result.fallback and result.text == "hello", result.failure
    assert [h["authorization"] for h in server.headers] == ["Bearer sk-from-a-file-0123"]
