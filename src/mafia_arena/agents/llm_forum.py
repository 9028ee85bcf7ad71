"""The forum forms an LLM player writes beyond the listed ones (dictator.md 7.3-7.4).

A forum turn lists one private message per player and an ad under a new pseudonym; the
rules also give every player one message to several players and an ad under a
pseudonym it owns. The model picks a listed form as usual (`LLMAgent._forum`); then
the content question says how to widen it, and the written content is read back:

* a private message to one player: a first line ``Also to: P4, P7.`` adds those
  recipients (one message to all of them);
* an ad under a new pseudonym, where the seat owns pseudonyms that may still carry an
  ad in this edition: ``Pseudonym: Raven.`` publishes under that one instead.

Only what the engine would accept is made of it: named players who are not living
others are dropped where at least one named player is one, a pseudonym the seat
cannot use now is never offered (one ad per pseudonym and edition, the edition's
pseudonym limit), and a name it does not own leaves the ad under a new pseudonym.
Dropped names are not dropped unsaid: :func:`unsent` gives the note the decision's
trace keeps (among its ``dropped`` parts, shown as "not used" in a replay), and the
seat's own transcript shows the message with the recipients it reached.
Pseudonym transfers and private testaments stay the scripted players' (a tiny model
cannot be trusted to give a name away on purpose).
An ``Also to:`` opening that names no living other player at all (``Also to: P99.``,
the writer itself, ``Also to: everyone.``) is refused (:func:`unaddressed`): sent to
the first recipient alone, the message would reach fewer players than the model wrote
it for, and nothing would say so. Everything here reads the seat's own view only.
"""

from __future__ import annotations

import re

from mafia_arena.engine.catalogue import FormNoted, Newspaper, PseudonymTransfer
from mafia_arena.engine.choices import Choice, Speech
from mafia_arena.views.view import View

ALSO_TO = re.compile(
    r"^also\s+to\s*:?\s*(?P<names>P\d{1,4}(?:\s*(?:,|\band\b)\s*P\d{1,4})*)\s*[.:;,-]?\s*",
    re.IGNORECASE,
)
PSEUDONYM = re.compile(r"^pseudonym\s*:?\s*", re.IGNORECASE)
#: Any opening that addresses more recipients, well-formed or not (the colon tells it
#: from prose such as "Also to be fair, ...").
ADDRESSED = re.compile(r"^also\s+to\s*:", re.IGNORECASE)


def content_hint(view: View, form: Choice) -> str:
    """The sentence added to the content question of `form` ("" where none applies)."""
    if form.verb == "pm" and form.target is not None and len(_others(view)) > 1:
        return " To send it to more players too, begin with 'Also to:' and their names."
    usable = usable_pseudonyms(view) if form.verb == "ad" else []
    if usable:
        return (
            f" You own the pseudonyms {', '.join(usable)}: to publish under one of them, "
            f"begin with 'Pseudonym: {usable[0]}.'"
        )
    return ""


def filled(view: View, form: Choice, text: str) -> Speech:
    """The decision for `form` with the written `text`: widened as the text asks (the
    module doc), the instruction itself taken out of the content."""
    if form.verb == "pm" and form.target is not None:
        match = ALSO_TO.match(text)
        if match:
            living = set(_others(view))
            group = sorted({form.target} | (set(_named(match)) & living))
            rest = text[match.end() :]
            if len(group) > 1:
                return Speech(rest, Choice("pm", None, ".".join(map(str, group))))
            return Speech(rest, form)
    if form.verb == "ad":
        picked = _pseudonym(usable_pseudonyms(view), text)
        if picked is not None:
            name, rest = picked
            return Speech(rest, Choice("ad", None, name))
    return Speech(text, form)


def unaddressed(view: View, form: Choice, text: str) -> str | None:
    """Why `text` cannot be sent as the private message `form`, or None if it can.

    It cannot when it opens with an ``Also to`` line (:data:`ALSO_TO`, or any
    ``Also to:`` opening) naming no living player other than the writer: `filled` would
    send it to the first recipient alone, a smaller audience than the one written for.
    The reason quotes the opening line, so the trace says what was refused."""
    if form.verb != "pm" or form.target is None:
        return None
    match = ALSO_TO.match(text)
    if match is None and ADDRESSED.match(text) is None:
        return None
    if match is not None and set(_named(match)) & set(_others(view)):
        return None
    line = " ".join(text.splitlines()[0].split())[:120]
    return f"'Also to:' names no living player other than the writer: {line!r}"


def unsent(view: View, form: Choice, text: str) -> str | None:
    """The names of `text`'s ``Also to:`` opening that the private message `form` is
    not sent to, as a note for the decision's trace; None where there are none.

    `filled` drops the names that are no living player other than the writer (a dead
    player, the writer itself, no seat at all) and sends the message to the others; the
    note says which were dropped, each once, in the order written, so a reader of the
    trace sees that the model wrote for a wider audience than the message reached. An
    opening that names nobody who can receive it is no concern here: it is refused
    (:func:`unaddressed`)."""
    if form.verb != "pm" or form.target is None:
        return None
    match = ALSO_TO.match(text)
    if match is None:
        return None
    named = _named(match)
    living = set(_others(view))
    if not set(named) & living:
        return None  # refused as a whole (`unaddressed`)
    left_out = [f"P{seat + 1}" for seat in dict.fromkeys(named) if seat not in living]
    if not left_out:
        return None
    names = ", ".join(left_out)
    return f"'Also to:' names not sent to (no living player other than the writer): {names}"


def usable_pseudonyms(view: View) -> list[str]:
    """The seat's own pseudonyms (its request's info) that may carry an ad now: none
    has one in this edition (the seat's own notices since the last newspaper; a name
    received since then may carry its giver's ad), and the edition's limit of
    pseudonyms per player is not reached."""
    request = view.request
    names = request.info.get("pseudonyms") if request is not None else None
    if not isinstance(names, (list, tuple)):
        return []
    ads: set[str] = set()  # its pseudonyms with an ad in this edition
    received: set[str] = set()  # given to it in this edition
    for event in view.knowledge.events:
        fact = event.fact
        if isinstance(fact, Newspaper):
            ads, received = set(), set()
        elif isinstance(fact, FormNoted) and fact.form == "ad" and fact.pseudonym:
            ads.add(fact.pseudonym.casefold())
        elif isinstance(fact, PseudonymTransfer) and fact.receiver == view.seat:
            received.add(fact.pseudonym.casefold())
    if len(ads) >= view.rules.rules.forum.pseudonyms_per_edition:
        return []
    return [str(n) for n in names if str(n).casefold() not in ads | received]


def _pseudonym(usable: list[str], text: str) -> tuple[str, str] | None:
    """The usable pseudonym a ``Pseudonym: …`` opening names, and the text after it."""
    match = PSEUDONYM.match(text)
    if match is None:
        return None
    after = text[match.end() :]
    for name in sorted(usable, key=len, reverse=True):
        if after.casefold().startswith(name.casefold()):
            rest = after[len(name) :]
            if not rest or not rest[0].isalnum():
                return name, rest.lstrip(" .:;,-")
    return None


def _named(match: re.Match[str]) -> list[int]:
    """The seats (0-based) an :data:`ALSO_TO` opening names, in the order written
    (``P0`` is seat -1: no seat)."""
    return [int(n) - 1 for n in re.findall(r"\d+", match["names"])]


def _others(view: View) -> list[int]:
    """The living seats other than the viewer's own."""
    alive = view.knowledge.alive
    return [s for s, living in enumerate(alive) if living and s != view.seat]
