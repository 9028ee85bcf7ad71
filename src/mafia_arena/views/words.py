"""How every text view writes a seat and a player's words (shared by `views.text` and
`views.forum_text`)."""

from __future__ import annotations

import json


def name(seat: int | None) -> str:
    return "nobody" if seat is None else f"P{seat + 1}"


FORUM_PHASES = {
    **dict.fromkeys(("night_early", "night_late", "dead_time"), "night"),
    **dict.fromkeys(
        ("morning", "noon", "afternoon", "vote_close", "change_window", "vote_end"), "day"
    ),
    **dict.fromkeys(("resolution", "runoff", "last_words"), "day"),
}
"""Palermo's clock phases as night or day (the observation's `phase` block, line tags)."""


def phase_tag(phase: str, day: int) -> str:
    """A line's date: ``[D2] `` in day 2, ``[N1] `` in night 1; empty before day 1.

    Palermo's clock phases read as the night or day they belong to, numbered as its
    announcements number them: round n is Night n-1 and then Day n (rules 3.1), and the
    event's ``day`` is the round. Dated by the phase's own initial instead, noon read as
    a night ("N"), dead time as a day ("D"), and a night's lines carried the next day's
    number under the header "Night n-1".
    """
    if not day:
        return ""
    part = FORUM_PHASES.get(phase)
    if part is None:
        return f"[{phase[0].upper()}{day}] "
    return f"[N{day - 1}] " if part == "night" else f"[D{day}] "


PALERMO_PHASE_WORDS = {
    "night_early": "early night",
    "night_late": "late night",
    "dead_time": "dead time",
    "morning": "morning",
    "noon": "noon",
    "afternoon": "afternoon",
    **dict.fromkeys(("vote_close", "change_window", "vote_end", "resolution"), "vote"),
    "runoff": "runoff",
    "last_words": "last words",
}
"""Palermo's clock phases in words, as a turn's date (`palermo_when`)."""


def palermo_when(phase: object, day: int) -> str | None:
    """A Palermo turn's moment as people read it, numbered as its lines are dated
    (`phase_tag`: round n is Night n-1 and then Day n): ``"early night 1"`` in round 2's
    first night phase, ``"morning 2"`` after it; None for a phase that is not one of
    Palermo's clock phases (every other variant's).

    One wording for the web page's header and the prompt people read
    (`views.people_text.people_prompt`), where the engine's prompt counts rounds."""
    words = PALERMO_PHASE_WORDS.get(phase) if isinstance(phase, str) else None
    if words is None or not day:
        return None
    number = day - 1 if FORUM_PHASES.get(str(phase)) == "night" else day
    return f"{words} {number}"


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
