"""Whole numbers typed by people, files and models: never an exception."""

from __future__ import annotations

import pytest

from mafia_arena.whole_numbers import MAX_DIGITS, read_whole_number


@pytest.mark.parametrize(
    ("text", "expected"),
    [("0", 0), ("7", 7), ("007", 7), ("٣", 3), ("9" * MAX_DIGITS, int("9" * MAX_DIGITS))],
)
def test_decimal_digits_are_read(text: str, expected: int) -> None:
    assert read_whole_number(text) == expected


@pytest.mark.parametrize(
    "text", ["", " 3", "-3", "+3", "3.0", "1_000", "³", "²", "x", "1" * (MAX_DIGITS + 1)]
)
def test_anything_else_is_none(text: str) -> None:
    assert read_whole_number(text) is None


def test_a_number_longer_than_int_reads_is_none_not_an_error() -> None:
    with pytest.raises(ValueError):
        int("1" * 5000)  # what a check with isdigit and then int() runs into
    assert read_whole_number("1" * 5000) is None
