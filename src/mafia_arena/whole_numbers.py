"""Reading a whole number that a person, a file or a model typed.

Checking with `str.isdigit` and then calling `int` raises on hostile input in two ways:
``"³"`` is a digit to `isdigit` that `int` refuses, and `int` refuses a string of more
than 4,300 digits (CPython's guard against quadratic conversion). `read_whole_number`
returns None for both, so each caller's own refusal (an option that does not exist, an
entry past the end, a port that is not one) handles them like any other wrong number.
"""

from __future__ import annotations

#: More digits than any seat, option, list entry, post or port number can have.
MAX_DIGITS = 18

MAX_SEED = 2**53
"""The largest game seed a person may choose (`mafia-arena play --seed`, a web table's
``seed``, `mafia-arena run --seed` for every game it plays, an experiment spec's
``base_seed``): the largest whole number a JSON reader that parses numbers as doubles (a
browser showing a replay) holds exactly, so the seed a log shows is the one played.
Without a bound ``--seed`` took a number of any size (a 400-digit seed was played and
logged)."""


def read_whole_number(text: str) -> int | None:
    """The number `text` spells in decimal digits (of any script `int` reads), or None
    for anything else: a sign, a space, a non-decimal digit, or more than `MAX_DIGITS`
    digits."""
    if not text.isdecimal() or len(text) > MAX_DIGITS:
        return None
    return int(text)
