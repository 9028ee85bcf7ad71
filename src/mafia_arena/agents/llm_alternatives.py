"""The set moves a speaking turn offers an LLM player besides its own words.

Contract
--------
* A speaking turn (a request with ``free_text``) may offer choices next to free text:
  a pass (a silence where the variant has one, Palermo's "say nothing"; the set
  sentence "I have nothing to add." in a discussion; "use the default text" for the
  manner of a death) and the structured speech acts with their canonical sentences
  (accuse, vouch, claim a role, claim a check result). Every other player can pick them
  (a person by number or word, the scripted and random players as choices), so an LLM
  player is offered them too.
* :func:`speech_alternatives` lists them as :class:`Alternative` (``code``, ``text``,
  ``choice``): the codes are ``#1``, ``#2``, ... in the order shown (``order``: the
  positions of the request's choices, the agent's shuffled order under
  ``shuffle_options``), the texts the option texts of a choice (labels with ``(you)`` /
  ``(your teammate)``). A request without choices has no alternatives, and its prompt
  shows none.
* :func:`picked_alternative` reads a reply: the alternative whose code the reply is,
  exactly, once surrounding whitespace is removed; anything else (a code with other
  words, a code this turn does not offer, a sentence that only looks like one) is None,
  and the reply is a speech as before. Strict on purpose: a model that writes its own
  words is never read as having made a move it did not name, and the same reply always
  gives the same decision. A tool call (no tool is offered, but a server may turn the
  model's answer into one) names a code by the same strict rule
  (:func:`mafia_arena.llm.parsing.parse_move`): the client then answers with the code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mafia_arena.engine.choices import Choice, Request

__all__ = ["Alternative", "listing", "picked_alternative", "speech_alternatives"]


@dataclass(frozen=True, slots=True)
class Alternative:
    """One set move of a speaking turn as the model is shown it."""

    code: str
    text: str
    choice: Choice


def speech_alternatives(
    request: Request, texts: Sequence[str], order: Sequence[int]
) -> list[Alternative]:
    """The request's choices as coded alternatives, in the shown `order` (positions into
    ``request.choices`` and `texts`, the option texts of its choices)."""
    return [
        Alternative(f"#{shown}", texts[index], request.choices[index])
        for shown, index in enumerate(order, start=1)
    ]


def listing(alternatives: Sequence[Alternative]) -> str:
    """The alternatives as the prompt lists them, one ``#n: text`` a line."""
    return "\n".join(f"{a.code}: {a.text}" for a in alternatives)


def picked_alternative(reply: str, alternatives: Sequence[Alternative]) -> Alternative | None:
    """The alternative `reply` names by its code alone, or None (the reply is speech)."""
    answer = reply.strip()
    return next((a for a in alternatives if a.code == answer), None)
