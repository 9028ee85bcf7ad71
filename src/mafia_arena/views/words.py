"""How every text view writes a seat and a player's words (shared by `views.text` and
`views.forum_text`)."""

from __future__ import annotations

import json


def name(seat: int | None) -> str:
    return "nobody" if seat is None else f"P{seat + 1}"


#: Line breaks for `str.splitlines` (and many renderers) that JSON leaves unescaped
#: when it keeps non-ASCII text: each would start a new line inside a quotation.
_UNESCAPED_BREAKS = {"\u0085": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def quote_speech(text: str) -> str:
    """A player's words as one quoted, escaped JSON string on one line (see `views.text`).

    Non-ASCII text stays readable (``ensure_ascii=False``), but NEL, LINE SEPARATOR and
    PARAGRAPH SEPARATOR are escaped as ``\\uXXXX`` like the ASCII control characters:
    unescaped, `str.splitlines` would end the line there and the rest of the speech
    could read as a host line. ``json.loads`` gives the words back unchanged.
    """
    quoted = json.dumps(text, ensure_ascii=False)
    for char, escape in _UNESCAPED_BREAKS.items():
        quoted = quoted.replace(char, escape)
    return quoted
