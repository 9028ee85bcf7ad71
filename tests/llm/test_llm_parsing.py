"""Lenient parsing of a model's answer into one of the options."""

from __future__ import annotations

import pytest

from mafia_arena.llm.parsing import (
    ParsedChoice,
    choice_schema,
    match_option,
    parse_choice,
    parse_move,
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


@pytest.mark.parametrize(
    "text",
    [
        '{"choice": "Alice", "reason": "quiet"} Actually, {"choice": "Bob", "reason": "lied"}',
        '```json\n{"choice": "Bob"}\n```\n```json\n{"choice": "Carol Ann"}\n```',
        '{"choice": "Alice", "reason": "or rather", "final": {"choice": "Bob"}}',
    ],
)
def test_json_objects_naming_different_options_are_not_guessed_between(text: str) -> None:
    """A model that answers twice, differently, chose nothing: taking the first object
    would be a guess, which two options named in prose are never given either."""
    parsed = parse_choice(text, OPTIONS)
    assert parsed.index is None and parsed.problem == "it names more than one option"


def test_json_objects_that_agree_or_name_nothing_else_are_read() -> None:
    twice = '{"choice": "Bob", "reason": "lied"} To repeat: {"choice": "bob"}'
    assert parse_choice(twice, OPTIONS) == parse_choice(
        '{"choice": "Bob", "reason": "lied"}', OPTIONS
    )
    assert parse_choice('{"choice": "Bob"} {"note": "Alice is next"}', OPTIONS).index == 1


@pytest.mark.parametrize(
    "text",
    [
        '{"choice": "Alice", "choice": "Bob"}',
        '{"reason": "lied", "choice": "Bob", "choice": "Carol Ann"}',
        '{"choice": "Alice", "Choice": "Bob"}',  # the same key in another case
        '```json\n{"choice": "Bob", "reason": "x", "choice": "no one"}\n```',
        'My vote: {"choice": "Bob", "choice": "bob", "choice": "Alice"}',
    ],
)
def test_a_choice_key_written_twice_naming_different_options_is_not_guessed_between(
    text: str,
) -> None:
    """A JSON reader keeps the last value of a key written twice, in silence; the model
    named two options, as two JSON answers do, and chose nothing."""
    parsed = parse_choice(text, OPTIONS)
    assert parsed.index is None and parsed.problem == "it names more than one option"


def test_a_choice_key_written_twice_is_read_where_it_names_one_option() -> None:
    """The same option written twice is one answer; an illegal first value is said as
    such (the first answer decides, as among JSON objects), not passed over for the
    second."""
    assert parse_choice('{"choice": "Bob", "choice": "Bob"}', OPTIONS) == parse_choice(
        '{"choice": "Bob"}', OPTIONS
    )
    assert parse_choice('{"choice": "Bob", "reason": "lied", "choice": "bob"}', OPTIONS) == (
        ParsedChoice(1, reason="lied")
    )
    first_illegal = parse_choice('{"choice": "Dave", "choice": "Bob"}', OPTIONS)
    assert first_illegal.index is None
    assert first_illegal.problem == '"Dave" is not one of the options'


def test_a_move_key_written_twice_with_two_codes_names_no_move() -> None:
    """A tool call's arguments that name two set moves under one key name none."""
    assert parse_move('{"move": "#1", "move": "#2"}', ["#1", "#2"]) is None
    assert parse_move('{"move": "#2", "move": "#2"}', ["#1", "#2"]) == "#2"


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


SEATS = ["P2", "P3", "P4", "P6", "P7"]  # a vote's labels, P1 and P5 dead


@pytest.mark.parametrize(
    ("text", "options", "expected"),
    [
        ("3", SEATS, "P3"),  # the seat, not the third option (P4)
        ('{"choice": 3}', SEATS, "P3"),
        ('{"choice": "6"}', SEATS, "P6"),
        ("Player 3", SEATS, "P3"),
        ("seat #7", SEATS, "P7"),
        ("3", ["kill P2", "kill P3", "kill P4"], "kill P3"),
        ("3", ["bid 0", "bid 1", "bid 2", "bid 3"], "bid 3"),  # the bid, not the 3rd
        ("13", ["P2", "P3", "P13"], "P13"),
        # the seat's own name for a decorated label or a night action naming it
        (
            '{"choice": "P4", "reason": "x"}',
            ["P2", "P3 (you)", "P4 (your teammate)"],
            "P4 (your teammate)",
        ),
        ("P3", ["P2", "P3 (you)", "P4 (your teammate)"], "P3 (you)"),
        ("p 3", ["kill P2", "kill P3", "kill P4"], "kill P3"),
        ('{"choice": "P13"}', ["kill P3", "kill P13"], "kill P13"),
    ],
)
def test_a_bare_number_is_the_option_that_names_it(
    text: str, options: list[str], expected: str
) -> None:
    parsed = parse_choice(text, options)
    assert parsed.index is not None and options[parsed.index] == expected


@pytest.mark.parametrize(
    ("text", "options"),
    [
        ("5", SEATS),  # P5 is dead: not the fifth option (P7)
        ("³", SEATS),  # a digit `int` cannot read: asked again, never raised
        ("²", ["Alice", "Bob"]),
        ("1" * 5000, ["Alice", "Bob"]),  # more digits than int() reads
        ("Player " + "3" * 5000, SEATS),
        ("1", SEATS),
        ("3", ["P2", "P13", "P23"]),  # 3 is part of larger numbers only
        ("3", ["I suspect P3 is mafia.", "I vouch for P3.", "I have nothing to add."]),
        ("Player 3", ["bid 0", "bid 3"]),  # no option is the seat P3
        ("P3", ["bid 0", "bid 3"]),
        ("P3", ["vote P3", "nominate P3"]),  # several options name the seat
        ("P5", ["P2", "P4 (your teammate)"]),  # a seat no option names (dead)
    ],
)
def test_a_number_no_single_option_names_is_asked_again(text: str, options: list[str]) -> None:
    parsed = parse_choice(text, options)
    assert parsed.index is None and parsed.problem


TARGETS = ["P2", "P3 (you)", "P4 (your teammate)", "P6"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I vote for P4.", "P4 (your teammate)"),
        ("I vote for Player 4, she is quiet.", "P4 (your teammate)"),
        ("Seat #6 it is", "P6"),
        ("Eliminate p2 today", "P2"),
        ("I vote for P4 (your teammate).", "P4 (your teammate)"),
        ("P5 is dead, so I vote P6", "P6"),  # a seat no option names adds nothing
    ],
)
def test_a_seat_named_in_free_text_is_the_option_of_that_seat(text: str, expected: str) -> None:
    """The model writes the seat's name, not the label's decoration: the one option
    that names the seat is its answer."""
    parsed = parse_choice(text, TARGETS)
    assert parsed.index is not None and TARGETS[parsed.index] == expected


@pytest.mark.parametrize(
    ("text", "options"),
    [
        ("I vote for P4, not P2.", TARGETS),  # two seats: never guessed between
        ("P4 or maybe P6", TARGETS),
        ("I vote for P5.", TARGETS),  # no option names that seat
        ("I vote for P3 tonight", ["vote P3", "nominate P3"]),  # two options name it
        ("I vote for P34.", TARGETS),
        ("I vote for UP4.", TARGETS),  # not a seat word
    ],
)
def test_free_text_naming_no_single_seat_option_is_asked_again(
    text: str, options: list[str]
) -> None:
    parsed = parse_choice(text, options)
    assert parsed.index is None and parsed.problem


def test_a_number_answer_to_a_real_vote_names_that_seat() -> None:
    """The labels of a real vote request (seats that died are missing): every number
    answer is the seat of that number or is asked again, never another seat."""
    import random

    from mafia_arena.engine import Game
    from mafia_arena.rules import load_variant

    game, rng = Game(load_variant("standard"), 10, 3), random.Random(3)
    votes = 0
    while not game.over:
        for seat, request in sorted(game.pending().items()):
            if request.kind == "vote" and len(request.labels) < 9:
                votes += 1
                labels = list(request.labels)
                for number in range(1, 11):
                    parsed = parse_choice(str(number), labels)
                    wanted = f"P{number}"
                    if wanted in labels:
                        assert parsed.index is not None and labels[parsed.index] == wanted
                    else:
                        assert parsed.index is None
            game.submit(seat, rng.choice(request.choices))
    assert votes > 0
