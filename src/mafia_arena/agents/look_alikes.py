"""Look-alike characters: what a text looks like on the page, for comparing names and tags.

Contract
--------
* :func:`look_alike_key` is what a name looks like, for telling two names apart: each
  character drawn like an ASCII letter or digit (Cyrillic ``р``, Greek ``Ο``) replaced by
  it, case folded. The join page compares names with it (`web.settings`).
* :func:`tag_form` is a line as a speaker tag is read in it (`agents.speaker_tags`):
  compatibility forms folded (Unicode NFKC: fullwidth ``Ｈｏｓｔ：``, ligatures), characters
  a page draws as nothing left out (format characters, Unicode category Cf: zero-width
  spaces and joiners, bidi marks, the soft hyphen, the tag characters; and the other
  default-ignorable code points: the combining grapheme joiner, variation selectors, the
  Hangul fillers), and each character drawn like an ASCII letter, digit or colon
  replaced by it (Greek ``Η``, Cyrillic ``Н`` → ``H``; ``꞉``, ``∶`` → ``:``). With it
  ``Ηost:`` (a Greek Eta), ``Ｈｏｓｔ:`` and ``Ho<zero width space>st:`` read as the
  ``Host:`` they look like. It also says, for each character of the result, which
  character of the text it came from, so a tag found in it can be quoted as written.

The look-alikes come from Unicode's confusables data (UTS #39) through the
``confusable-homoglyphs`` package, for characters of scripts other than Latin; a Latin
letter stays itself (``ë``, and the rarer Latin look-alikes such as the small capital
``ʜ``, which the data set does not map across scripts). Why a data set
rather than a table written here: the look-alikes of the Latin letters number in the
hundreds across Greek, Cyrillic, Armenian, Cherokee, the mathematical alphabets and more,
and Unicode keeps that list.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from confusable_homoglyphs import confusables

__all__ = ["look_alike_key", "tag_form", "visible"]

_IGNORABLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u3164\uffa0"
    + "".join(chr(code) for code in range(0xFE00, 0xFE10))
)
"""Default-ignorable code points outside category Cf, which a page draws as nothing: the
combining grapheme joiner, the Hangul fillers, the Khmer inherent vowels, the Mongolian
free variation selectors and the variation selectors U+FE00-FE0F (the supplementary ones,
U+E0100-E01EF, too: see `_ignorable`)."""


def _ignorable(char: str) -> bool:
    """Whether a page draws `char` as nothing (see `_IGNORABLE`)."""
    return (
        char in _IGNORABLE or unicodedata.category(char) == "Cf" or 0xE0100 <= ord(char) <= 0xE01EF
    )


def visible(text: str) -> str:
    """`text` without the characters a page draws as nothing (see `_IGNORABLE`): what
    a reader sees run together: ``Ho<zero width space>st:`` is ``Host:``."""
    return "".join(char for char in text if char.isascii() or not _ignorable(char))


@lru_cache(maxsize=4096)
def _latin_look_alike(char: str) -> str:
    """The ASCII letter or digit `char` is drawn like (Cyrillic "р" → "p", Greek "Ο" →
    "O"), from Unicode's confusables data; `char` itself where it has none."""
    if char.isascii():
        return char
    found = confusables.is_confusable(char, preferred_aliases=["latin"], greedy=True)
    for entry in found or ():
        for glyph in entry["homoglyphs"]:
            if len(glyph["c"]) == 1 and glyph["c"].isascii() and glyph["c"].isalnum():
                return str(glyph["c"])
    return char


@lru_cache(maxsize=4096)
def _drawn_as(char: str) -> str:
    """`char` as a tag is read: its ASCII letter or digit look-alike, ``:`` for a
    character drawn like a colon (``꞉``, ``∶``, ``ː``), else `char`."""
    latin = _latin_look_alike(char)
    if latin != char or char.isascii():
        return latin
    found = confusables.is_confusable(char, greedy=True)
    for entry in found or ():
        if any(glyph["c"] == ":" for glyph in entry["homoglyphs"]):
            return ":"
    return char


def look_alike_key(name: str) -> str:
    """What `name` looks like on the page, for comparisons: each character drawn like an
    ASCII letter or digit replaced by it, case folded. "Аda" with a Cyrillic А and
    "Ada" give one key, so does "Ора" (all Cyrillic) and "Opa".

    Why: the table writes "Ada (P3)" and "Waiting for Ada"; a second seat called "Аda"
    would read as the first, and "Р2" as a seat's label. Names of any script stay
    allowed; only their look-alikes of a taken name or a label are refused."""
    return "".join(_latin_look_alike(c) for c in name).casefold()


def tag_form(text: str) -> tuple[str, tuple[int, ...]]:
    """`text` as a speaker tag is read in it (module docstring), and for each character
    of that the index in `text` of the character it came from, then ``len(text)``.

    Each character is folded on its own (NFKC, then its look-alike), so every
    character of the result has one origin: a tag found at ``[i, j)`` of the result was
    written as ``text[origin[i]:origin[j - 1] + 1]``."""
    folded: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        if char.isascii():  # the common case, and no ASCII character folds
            folded.append(char)
            origin.append(index)
            continue
        if _ignorable(char):
            continue
        for part in unicodedata.normalize("NFKC", char):
            if not _ignorable(part):
                folded.append(_drawn_as(part))
                origin.append(index)
    origin.append(len(text))
    return "".join(folded), tuple(origin)
