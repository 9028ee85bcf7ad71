"""Any LangChain chat model named in an agent file (`chat_model = "module:Class"` with
`[chat_model_kwargs]`): loaded, built, used by the client, and every bad value is a
load error that names the file, the key and the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.llm.fake_openai import FakeOpenAI, reply

from mafia_arena.agents.llm_card import model_card
from mafia_arena.llm import AgentDefinitionError, ChatClient, load_agent_definition

FAKE_LIST = "langchain_core.language_models.fake_chat_models:FakeListChatModel"
MESSAGES = [{"role": "user", "content": "Vote to eliminate one player."}]


def write(tmp_path: Path, text: str, name: str = "agent.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def fixed_answers(tmp_path: Path, *answers: str) -> Path:
    """An agent file naming langchain-core's fixed-answer chat model."""
    lines = ", ".join(json.dumps(a) for a in answers)
    return write(
        tmp_path,
        f'backend = "langchain"\nmodel = "fixed"\nchat_model = "{FAKE_LIST}"\n'
        f"[chat_model_kwargs]\nresponses = [{lines}]\n",
    )


async def test_a_named_fixed_answer_model_plays_through_the_client(tmp_path: Path) -> None:
    vote = json.dumps({"reason": "quiet", "choice": "Bob"})
    definition = load_agent_definition(fixed_answers(tmp_path, "Zed", vote, "Carol lies."))
    assert definition.chat_model == FAKE_LIST
    assert definition.chat_model_kwargs == {"responses": ["Zed", vote, "Carol lies."]}
    async with ChatClient(definition) as client:  # base_url "local": no embedded server
        chosen = await client.choose(MESSAGES, ["Alice", "Bob"], "vote")
        said = await client.complete(MESSAGES)
    assert chosen.choice == "Bob" and not chosen.fallback
    assert chosen.stats.reasks == 1  # "Zed" is not an option: re-asked, as for any model
    assert said.text == "Carol lies."


async def test_a_named_chat_openai_gets_the_files_settings_and_kwargs(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    path = write(
        tmp_path,
        'backend = "langchain"\nchat_model = "langchain_openai:ChatOpenAI"\n'
        f'base_url = "{fake_openai.base_url}"\nmodel = "m-1"\ntemperature = 0.25\n'
        "max_tokens = 40\nseed = 7\n[chat_model_kwargs]\nfrequency_penalty = 0.5\n",
    )
    definition = load_agent_definition(path)
    fake_openai.script(reply(json.dumps({"reason": "x", "choice": "Alice"})))
    async with ChatClient(definition) as client:
        chosen = await client.choose(MESSAGES, ["Alice", "Bob"], "vote")
    assert chosen.choice == "Alice"
    body = fake_openai.requests[0]
    assert (body["model"], body["temperature"], body["seed"]) == ("m-1", 0.25, 7)
    assert body["frequency_penalty"] == 0.5
    assert body["response_format"]["json_schema"]["schema"]["properties"]["choice"]["enum"] == [
        "Alice",
        "Bob",
    ]


def test_a_kwarg_replaces_the_setting_it_names(tmp_path: Path) -> None:
    from langchain_openai import ChatOpenAI

    from mafia_arena.llm.chat_models import chat_model_arguments

    path = write(
        tmp_path,
        'backend = "langchain"\nchat_model = "langchain_openai:ChatOpenAI"\n'
        'model = "card-name"\n[chat_model_kwargs]\nmodel_name = "served-name"\n',
    )
    arguments = chat_model_arguments(load_agent_definition(path), ChatOpenAI, api_key=None)
    assert arguments["model_name"] == "served-name" and "model" not in arguments
    assert arguments["max_retries"] == 0  # the client's retry policy alone applies
    assert "base_url" not in arguments  # "local" is the embedded server, not this model's


def test_the_model_card_names_the_class_and_its_kwargs(tmp_path: Path) -> None:
    card = model_card(load_agent_definition(fixed_answers(tmp_path, "a")), {"speak": "v1"})
    assert card["endpoint"] == f"langchain:{FAKE_LIST}"
    assert card["sampling"]["chat_model_kwargs"] == {"responses": ["a"]}


@pytest.mark.parametrize(
    ("body", "key", "reason"),
    [
        (f'chat_model = "{FAKE_LIST}"\n', "chat_model", 'needs backend = "langchain"'),
        ('backend = "langchain"\nchat_model = "json"\n', "chat_model", "package.module:Class"),
        (
            'backend = "langchain"\nchat_model = "no_such_pkg.chat:Model"\n',
            "chat_model",
            "cannot import module 'no_such_pkg.chat'",
        ),
        (
            'backend = "langchain"\nchat_model = "langchain_core.messages:Nope"\n',
            "chat_model",
            "has no 'Nope'",
        ),
        (
            'backend = "langchain"\nchat_model = "langchain_core.messages:AIMessage"\n',
            "chat_model",
            "is not a LangChain chat model",
        ),
        (
            'backend = "langchain"\n[chat_model_kwargs]\nresponses = ["a"]\n',
            "chat_model_kwargs",
            "needs chat_model",
        ),
        (
            f'backend = "langchain"\nchat_model = "{FAKE_LIST}"\n'
            '[chat_model_kwargs]\nresponse = ["a"]\n',
            "chat_model_kwargs",
            "FakeListChatModel has no field 'response'",
        ),
        (
            f'backend = "langchain"\nchat_model = "{FAKE_LIST}"\n'
            '[chat_model_kwargs]\nresponses = "a"\n',
            "chat_model_kwargs",
            "rejects these arguments: responses: Input should be a valid list",
        ),
    ],
    ids=[
        "openai backend",
        "bad form",
        "no module",
        "no class",
        "not a chat model",
        "kwargs alone",
        "unknown kwarg",
        "ill-typed kwarg",
    ],
)
def test_a_bad_chat_model_value_names_file_key_and_reason(
    tmp_path: Path, body: str, key: str, reason: str
) -> None:
    path = write(tmp_path, 'model = "m"\n' + body)
    with pytest.raises(AgentDefinitionError) as info:
        load_agent_definition(path)
    message = str(info.value)
    assert f"{path}: {key}: " in message and reason in message, message


def test_the_chat_model_keys_are_in_the_experiment_hash(tmp_path: Path) -> None:
    from tests.tournament.conftest import write_spec

    from mafia_arena.experiments.spec import load_spec

    agents = tmp_path / "agents"
    agents.mkdir()
    spec = write_spec(
        tmp_path,
        "named",
        'pool = ["random", "agents/fixed.toml"]\n'
        '[[variants]]\nvariant = "standard"\nplayers = 7\ngames = 1\n',
    )
    hashes = []
    for answers in (["a"], ["b"]):
        fixed_answers(agents, *answers).rename(agents / "fixed.toml")
        hashes.append(load_spec(spec).spec_hash)
    assert hashes[0] != hashes[1]
