"""How every text view writes a seat and a player's words (shared by `views.text` and
`views.forum_text`)."""

from __future__ import annotations

import json


def name(seat: int | None) -> str:
    return "nobody" if seat is None else f"P{seat + 1}"


def quote_speech(text: str) -> str:
    """A player's words as one quoted, escaped string (see `views.text`)."""
    return json.dumps(text, ensure_ascii=False)
