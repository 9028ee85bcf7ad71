"""Agent definitions: loading, validation errors, and keeping the API key out of sight."""

from __future__ import annotations

from pathlib import Path

import pytest

from mafia_arena.llm import AgentDefinition, AgentDefinitionError, load_agent_definition
from mafia_arena.llm.definition import load_agent_definitions

AGENTS_DIR = Path(__file__).resolve().parents[2] / "agents"


def write(tmp_path: Path, text: str, name: str = "agent.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_example_agents_load() -> None:
    local = load_agent_definition(AGENTS_DIR / "local-smollm2.toml")
    assert local.is_local and local.backend == "openai"
    assert local.model == "smollm2-135m-instruct" and local.api_key_env is None
    assert local.effective_structured_output_format == "json_object"
    assert local.max_tokens <= 128

    remote = load_agent_definition(AGENTS_DIR / "openai-gpt-4o-mini.toml")
    assert remote.base_url == "https://api.openai.com/v1"
    assert remote.api_key_env == "OPENAI_API_KEY" and remote.model == "gpt-4o-mini"
    assert remote.effective_structured_output_format == "json_schema"
    assert remote.price_per_input_token > 0


def test_every_agent_file_in_repo_is_valid() -> None:
    found = load_agent_definitions(AGENTS_DIR)
    assert {"local-smollm2", "openai-gpt-4o-mini"} <= set(found)


def test_minimal_file_gets_defaults_and_name_from_stem(tmp_path: Path) -> None:
    definition = load_agent_definition(write(tmp_path, 'model = "m"\n', "my-bot.toml"))
    assert definition.name == "my-bot" and definition.base_url == "local"
    assert definition.structured_output is True and definition.max_reasks >= 1


def test_unknown_key_names_file_and_key(tmp_path: Path) -> None:
    path = write(tmp_path, 'model = "m"\ntemprature = 0.3\n')
    with pytest.raises(AgentDefinitionError) as info:
        load_agent_definition(path)
    message = str(info.value)
    assert str(path) in message and f"{path}: temprature: " in message and "unknown key" in message


def test_bad_value_names_file_key_and_reason(tmp_path: Path) -> None:
    path = write(tmp_path, 'model = "m"\ntemperature = 7\nmax_tokens = "lots"\n')
    with pytest.raises(AgentDefinitionError) as info:
        load_agent_definition(path)
    message = str(info.value)
    assert f"{path}: temperature: " in message and "less than or equal to 2" in message
    assert f"{path}: max_tokens: " in message


def test_missing_required_key(tmp_path: Path) -> None:
    with pytest.raises(AgentDefinitionError, match=": model: required key is missing"):
        load_agent_definition(write(tmp_path, 'name = "x"\n'))


def test_invalid_toml_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(AgentDefinitionError, match=": -: not valid TOML"):
        load_agent_definition(write(tmp_path, "model = \n"))
    with pytest.raises(AgentDefinitionError, match=": -: cannot read the file"):
        load_agent_definition(tmp_path / "nope.toml")


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ('base_url = "ftp://example.com"', "base_url"),
        ('api_key_env = "sk-abc-123"', "api_key_env"),
        ('prompt_template = "../../etc/passwd"', "prompt_template"),
        ('backend = "anthropic"', "backend"),
        ("max_concurrency = 0", "max_concurrency"),
    ],
)
def test_field_validation(tmp_path: Path, line: str, key: str) -> None:
    with pytest.raises(AgentDefinitionError, match=f": {key}: "):
        load_agent_definition(write(tmp_path, f'model = "m"\n{line}\n'))


def test_duplicate_names_in_directory(tmp_path: Path) -> None:
    write(tmp_path, 'name = "same"\nmodel = "m"\n', "a.toml")
    write(tmp_path, 'name = "same"\nmodel = "m"\n', "b.toml")
    with pytest.raises(AgentDefinitionError, match="already used by"):
        load_agent_definitions(tmp_path)


def test_api_key_read_from_env_at_call_time_and_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    definition = AgentDefinition(name="a", model="m", api_key_env="MAFIA_KEY_X")
    monkeypatch.delenv("MAFIA_KEY_X", raising=False)
    with pytest.raises(AgentDefinitionError, match="MAFIA_KEY_X"):
        definition.api_key()
    monkeypatch.setenv("MAFIA_KEY_X", "sk-live-123")
    key = definition.api_key()
    assert key is not None and key.get_secret_value() == "sk-live-123"
    assert "sk-live-123" not in repr(key) + str(key)
    monkeypatch.setenv("MAFIA_KEY_X", "sk-rotated")
    key = definition.api_key()
    assert key is not None and key.get_secret_value() == "sk-rotated"  # no caching
    assert "sk-" not in definition.model_dump_json()


def test_missing_key_fails_fast_at_client_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    from mafia_arena.llm import ChatClient

    monkeypatch.delenv("MAFIA_KEY_Y", raising=False)
    definition = AgentDefinition(name="a", model="m", api_key_env="MAFIA_KEY_Y")
    with pytest.raises(AgentDefinitionError, match="MAFIA_KEY_Y"):
        ChatClient(definition)


def test_prompt_template_path_and_cost() -> None:
    definition = AgentDefinition(
        name="a",
        model="m",
        prompt_template="mafia/default.md",
        price_per_input_token=0.5,
        price_per_output_token=2.0,
    )
    assert definition.prompt_template_path(Path("/x/agents")) == Path(
        "/x/agents/prompts/mafia/default.md"
    )
    assert definition.cost(10, 3) == 11.0


def test_definition_is_frozen_and_copyable() -> None:
    definition = AgentDefinition(name="a", model="m")
    with pytest.raises(ValueError):
        definition.temperature = 0.1  # type: ignore[misc]
    moved = definition.model_copy(update={"base_url": "http://127.0.0.1:9/v1", "model": "n"})
    assert moved.base_url == "http://127.0.0.1:9/v1" and not moved.is_local
