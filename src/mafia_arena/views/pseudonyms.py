"""Pseudonym ownership in the views shown after a forum game (dictator.md OP-D36).

At game end all statuses and the action log are revealed, but who owns which pseudonym
stays hidden unless the host opts in (``rules.forum.reveal_pseudonyms``). During the
game a seat legitimately sees its own ads and the pseudonyms handed to or by it; once
every seat's view and the moderator's are public (the web replay, the CLI replay and
transcripts), those same lines would put each pseudonym next to its owner's seat name.

This module says which facts tie a pseudonym to a seat, so the post-game views can
leave them out, and masks the pseudonyms in free text that carries a seat's own
context (the LLM decision traces: prompts, answers and reasoning).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mafia_arena.engine.catalogue import FormNoted, FormRefused, Newspaper, PseudonymTransfer
from mafia_arena.rules.spec import Variant

OWNER_FORMS = frozenset({"ad", "give"})
"""Forms whose notice or refusal is told to the pseudonym's owner alone."""

MASK = "[pseudonym]"


def owners_hidden(variant: Variant) -> bool:
    """True when post-game views must not tie a pseudonym to a seat: the variant has
    a newspaper and the host did not opt in to revealing ownership."""
    forum = variant.rules.forum
    return forum.newspaper and not forum.reveal_pseudonyms


def tells_owner(fact: Any) -> bool:
    """Does this fact, shown under the seat that saw it, reveal a pseudonym's owner?

    The author's own ad notice ("Your ad under 'Sparrow' ..."), a pseudonym transfer
    (told to giver and receiver) and a refused ad or transfer (told to the seat that
    tried, naming or implying its own pseudonym). The newspaper itself names no author.
    """
    if isinstance(fact, PseudonymTransfer):
        return True
    return isinstance(fact, FormNoted | FormRefused) and fact.form in OWNER_FORMS


def pseudonyms_in(facts: Iterable[Any]) -> set[str]:
    """Every pseudonym a game used: published, noted to its author or handed on."""
    found: set[str] = set()
    for fact in facts:
        if isinstance(fact, Newspaper):
            found.update(fact.pseudonyms)
        elif isinstance(fact, FormNoted | PseudonymTransfer) and fact.pseudonym:
            found.add(fact.pseudonym)
    return found


def held_pseudonyms(seat: int, facts: Iterable[Any]) -> list[str]:
    """The pseudonyms `seat` held last, as its own events show them (`facts`, the
    seat's stream in order): each of its ads' (the author's own notice), each handed
    to it, less each it handed on; sorted, spelled as the game spells them.

    Why from the events: the forum request lists the pseudonyms a seat owns now
    (`agents.human.owned_pseudonyms`), but a seat out of the game has no request, and
    its pseudonyms, retired at its elimination (7.4.6), are still its own words' names
    in the dead chat. Every fact read here was shown to the seat, so the list tells it
    nothing new."""
    held: dict[str, str] = {}
    for fact in facts:
        if isinstance(fact, FormNoted) and fact.pseudonym:
            held[fact.pseudonym.casefold()] = fact.pseudonym
        elif isinstance(fact, PseudonymTransfer):
            if fact.receiver == seat:
                held[fact.pseudonym.casefold()] = fact.pseudonym
            elif fact.giver == seat:
                held.pop(fact.pseudonym.casefold(), None)
    return sorted(held.values())


def mask(value: Any, pseudonyms: set[str]) -> Any:
    """`value` with every pseudonym in its strings replaced by ``[pseudonym]``
    (case-insensitively, longest first so one name inside another is masked whole);
    lists, tuples and dicts are masked item by item."""
    if not pseudonyms:
        return value
    if isinstance(value, str):
        for name in sorted(pseudonyms, key=len, reverse=True):
            value = _replace_folded(value, name)
        return value
    if isinstance(value, dict):
        return {key: mask(item, pseudonyms) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(mask(item, pseudonyms) for item in value)
    return value


def _replace_folded(text: str, name: str) -> str:
    lowered, key = text.casefold(), name.casefold()
    if not key or len(lowered) != len(text):  # casefold changed the length: exact only
        return text.replace(name, MASK)
    out, at = [], 0
    while (found := lowered.find(key, at)) >= 0:
        out.append(text[at:found] + MASK)
        at = found + len(key)
    return "".join(out) + text[at:]
