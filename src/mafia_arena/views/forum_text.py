"""Text lines for the forum game's facts (private messages, the newspaper, testaments).

Registered into `views.text`'s renderers, so every transcript, prompt and page that
renders a seat's stream shows a seat its own conversations, the newspaper editions,
the testaments it received and the game master's messages, and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mafia_arena.engine.catalogue import (
    DeliveredTestament,
    FormNoted,
    FormRefused,
    GameMasterNotice,
    Newspaper,
    Office,
    PrivateMessage,
    PseudonymTransfer,
    StatusMessage,
    StatusShown,
    SuicideAttack,
)
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.words import name
from mafia_arena.views.words import quote_speech as quote


def _status_message(f: StatusMessage, prefix: str, names: DisplayNames) -> str:
    return f"{prefix}Game master to you: {' '.join(f.lines)}"


def _private_message(f: PrivateMessage, prefix: str, names: DisplayNames) -> str:
    to = ", ".join(name(r) for r in f.recipients)
    return f"{prefix}Private message {name(f.sender)} → {to}: {quote(f.text)}"


def _noted(f: FormNoted, prefix: str, names: DisplayNames) -> str:
    return f"{prefix}Game master: noted ({f.form}): {f.text}"


def _refused(f: FormRefused, prefix: str, names: DisplayNames) -> str:
    return f"{prefix}Game master: refused ({f.form}): {f.reason}"


def _newspaper(f: Newspaper, prefix: str, names: DisplayNames) -> str:
    if not f.texts:
        return f"{prefix}Newspaper ({f.edition}): no ads."
    ads = " | ".join(f"{p}: {quote(t)}" for p, t in zip(f.pseudonyms, f.texts, strict=True))
    return f"{prefix}Newspaper ({f.edition}): {ads}"


def _transfer(f: PseudonymTransfer, prefix: str, names: DisplayNames) -> str:
    return f"{prefix}Pseudonym {f.pseudonym!r} passed from {name(f.giver)} to {name(f.receiver)}."


def _testament(f: DeliveredTestament, prefix: str, names: DisplayNames) -> str:
    kind = "Testament" if f.public else "Private testament (to you)"
    return f"{prefix}{kind} of {name(f.author)}: {quote(f.text)}"


def _status(f: StatusShown, prefix: str, names: DisplayNames) -> str:
    return f"{prefix}{name(f.seat)}: {f.status}."


def _text(f: Office | SuicideAttack, prefix: str, names: DisplayNames) -> str:
    return f"{prefix}{f.text}"


def _notice(f: GameMasterNotice, prefix: str, names: DisplayNames) -> str:
    return f"{prefix}Game master to you ({f.topic}): {f.text}"


FORUM_RENDER: dict[type, Callable[[Any, str, DisplayNames], str]] = {
    StatusMessage: _status_message,
    PrivateMessage: _private_message,
    FormNoted: _noted,
    FormRefused: _refused,
    Newspaper: _newspaper,
    PseudonymTransfer: _transfer,
    DeliveredTestament: _testament,
    StatusShown: _status,
    Office: _text,
    SuicideAttack: _text,
    GameMasterNotice: _notice,
}
