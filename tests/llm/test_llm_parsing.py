"""Lenient parsing of a model's answer into one of the options."""

from __future__ import annotations

import pytest

from mafia_arena.llm.parsing import (
    choice_schema,
    match_option,
    parse_choice,
    response_format,
    validate_options,
)

OPTIONS = ["Alice", "Bob", "Carol Ann", "no one"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"choice": "Bob", "reason": "lied"}', "Bob"),
        ('{"choice":"bob"}', "Bob"),  # case-insensitive
        ('Sure! {"choice": "Alice", "reason": "quiet"} Hope that helps.', "Alice"),
        ('```json\n{"choice": "Carol Ann", "reason": "x"}\n```', "Carol Ann"),
        ('{"Choice": "no one"}', "no one"),  # key case
        ('{"answer": "Alice"}', "Alice"),
        ('{"choice": 2, "reason": "index"}', "Bob"),  # 1-based number in JSON
        ('{"choice": "Bob", "reason": "cut off mid-sent', "Bob"),  # truncated JSON
        ('{"choice": "Carol Ann",', "Carol Ann"),
        ('"Alice"', "Alice"),  # a JSON string
        ("Bob", "Bob"),
        ("  bob.  ", "Bob"),
        ("**Alice**", "Alice"),
        ("carol   ann", "Carol Ann"),  # spacing/punctuation-insensitive
        ("3", "Carol Ann"),  # bare 1-based index
        ("Alice\nBecause she was quiet all day.", "Alice"),
        ("I vote for bob because he contradicted himself.", "Bob"),
        ("No one should die tonight.", "no one"),
    ],
)
def test_parse_accepts(text: str, expected: str) -> None:
    parsed = parse_choice(text, OPTIONS)
    assert parsed.problem is None
    assert parsed.index is not None and OPTIONS[parsed.index] == expected


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "empty"),
        ("   \n ", "empty"),
        (None, "empty"),
        ('{"choice": "Zed", "reason": "Bob is nice"}', '"Zed" is not one of the options'),
        ('{"choice": "Zed"', '"Zed" is not one of the options'),  # truncated, illegal
        ('{"choice": null}', "null"),
        ("9", "does not name"),  # out-of-range index
        ("Alice or Bob, hard to say", "more than one option"),
        ("{{{ not json", "does not name"),
        ("I abstain.", "does not name"),
        ("Alicent", "does not name"),  # whole words only
    ],
)
def test_parse_rejects_with_reason(text: str | None, problem: str) -> None:
    parsed = parse_choice(text, OPTIONS)
    assert parsed.index is None
    assert parsed.problem is not None and problem in parsed.problem


def test_explicit_illegal_json_choice_is_not_rescued_from_reason() -> None:
    assert parse_choice('{"choice": "Dave", "reason": "Alice said so"}', OPTIONS).index is None


def test_reason_is_kept() -> None:
    parsed = parse_choice('{"choice": "Bob", "reason": "he lied"}', OPTIONS)
    assert parsed.reason == "he lied"


def test_exact_option_text_wins_over_index() -> None:
    options = ["2", "1", "3"]  # seat numbers as options
    assert match_option("1", options) == 1
    assert match_option(3, options) == 2


def test_ambiguous_case_insensitive_match_needs_exact_text() -> None:
    options = ["alice", "Alice"]
    assert match_option("Alice", options) == 1
    assert match_option("ALICE", options) is None


def test_schema_enum_is_exactly_the_options() -> None:
    schema = choice_schema(OPTIONS)
    assert schema["properties"]["choice"]["enum"] == OPTIONS
    assert list(schema["properties"]) == ["reason", "choice"]
    assert schema["additionalProperties"] is False


def test_response_format_dialects() -> None:
    schema = choice_schema(OPTIONS)
    local = response_format(schema, "vote", "json_object")
    assert local["type"] == "json_object" and list(local) == ["type", "schema"]
    # the grammar caps the reason, so a small model reaches the choice
    assert local["schema"]["properties"]["reason"]["maxLength"] == 240
    assert local["schema"]["properties"]["choice"] == schema["properties"]["choice"]
    assert "maxLength" not in schema["properties"]["reason"]  # the caller's schema untouched
    openai_format = response_format(schema, "day vote!", "json_schema")
    assert openai_format["type"] == "json_schema"
    assert openai_format["json_schema"] == {"name": "day_vote_", "schema": schema, "strict": True}


@pytest.mark.parametrize(
    ("options", "message"), [([], "empty"), (["a", " "], "blank"), (["a", "a"], "distinct")]
)
def test_invalid_options_are_caller_bugs(options: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        validate_options(options)
