"""Read structured claims out of any text, canonical or free.

Scripted players and the metrics use this to understand what others said, including
LLM and human speech. It recognises the canonical sentences exactly and common free
phrasings approximately ("P3 is mafia", "I'm the doctor", "I checked P2, town").

What it reads as the speaker's own words, and why:

* Case is ignored, and typographic apostrophes count as plain ones ("I’m the doctor",
  "I don’t think P3 is mafia"): models write either.
* A passage in double quotes ("P2 said \"I am the doctor\"") is someone else's words,
  not a claim of the speaker's, and is skipped; a whole speech wrapped in one pair of
  quotes is read as the speech itself.
* A role is read by its id, by its id with spaces for underscores ("corrupt cop"), and
  by any readable name the caller passes (`names`: Palermo's "Known Mafioso A" for
  ``known_a``), always answered with the id.
* An accusation or a vouch under a negation earlier in its clause is dropped ("I don't
  think P3 is mafia", "I don't trust P3"); hedges ("not sure") and "no doubt" do not
  negate.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

_SEAT = r"[Pp](?:layer\s*)?(\d{1,2})"
_MAFIA_WORDS = r"(?:mafia|mafioso|wolf|werewolf|evil|scum|guilty|bad)"
_TOWN_WORDS = r"(?:innocent|town|villager|citizen|good|clear|not mafia|civilian)"


@dataclass(frozen=True, slots=True)
class Claim:
    """A structured reading of speech: who (`target`) is said to be what (`value`)."""

    kind: str  # accuse | vouch | claim_role | claim_result
    target: int | None = None
    value: str | None = None


def extract_claims(
    text: str,
    roles: Iterable[str] = (),
    names: Mapping[str, str] | Iterable[tuple[str, str]] = (),
) -> list[Claim]:
    """All claims found in `text`, in order of appearance, without duplicates.

    `roles` are the role ids a role claim may name; `names` maps readable names to role
    ids (``{"Known Mafioso A": "known_a"}``, or such pairs), so a claim made with the
    name a player reads counts as a claim of the id. A claimed role's `value` is always
    the id. See the module docstring for what is read as the speaker's own words.
    """
    found: list[tuple[int, Claim]] = []
    lowered = _own_words(text)
    roles = tuple(roles)
    spoken = {r.lower(): r for r in roles}  # a role by its id or its words
    spoken.update({r.lower().replace("_", " "): r for r in roles})
    pairs = names.items() if isinstance(names, Mapping) else names
    for name, role in pairs:
        if name.strip():
            spoken.setdefault(" ".join(_straight(name).lower().split()), role)
    role_names = sorted(spoken, key=len, reverse=True)
    for match in re.finditer(
        rf"(?:my check|i checked|checked|investigated|i investigated)[:,]?\s*{_SEAT}"
        rf"(?:\s+is|\s*[,:-]|\s+was|\s+came back)?\s*(?:as\s+)?(?:a\s+|an\s+)?"
        rf"({_MAFIA_WORDS}|{_TOWN_WORDS})",
        lowered,
    ):
        value = "mafia" if re.fullmatch(_MAFIA_WORDS, match.group(2)) else "innocent"
        found.append((match.start(), Claim("claim_result", int(match.group(1)) - 1, value)))
    for match in re.finditer(
        rf"(?:suspect|vote(?: for)?|accuse|lynch|eliminate)\s+{_SEAT}", lowered
    ):
        found.append((match.start(), Claim("accuse", int(match.group(1)) - 1)))
    for match in re.finditer(rf"{_SEAT}\s+(?:is|must be|looks)\s+(?:a\s+)?{_MAFIA_WORDS}", lowered):
        found.append((match.start(), Claim("accuse", int(match.group(1)) - 1)))
    for match in re.finditer(
        # "I believe P3" vouches; "I believe P3 is mafia" says what P3 is (read below)
        rf"(?:trust|believe|vouch for)\s+{_SEAT}(?!\d|\s+(?:is|was|must|looks|might|could|may)\b)"
        rf"|{_SEAT}\s+is\s+(?:an?\s+)?"
        rf"(?:innocent|town|good|clear|not mafia)",
        lowered,
    ):
        seat = match.group(1) or match.group(2)
        found.append((match.start(), Claim("vouch", int(seat) - 1)))
    if role_names:
        pattern = "|".join(re.escape(r) for r in role_names)
        for match in re.finditer(
            rf"\bi\s*(?:am|'m|claim to be)\s+(?:the\s+|a\s+|an\s+)?({pattern})\b", lowered
        ):
            found.append((match.start(), Claim("claim_role", None, spoken[match.group(1)])))
    seen: set[Claim] = set()
    claims = []
    for start, claim in sorted(found, key=lambda item: item[0]):
        if claim in seen or (claim.target is not None and claim.target < 0):  # "P0"
            continue
        if claim.kind == "accuse" and (_negated(lowered, claim) or _negated_clause(lowered, start)):
            continue
        if claim.kind == "vouch" and _negated_clause(lowered, start):
            continue
        seen.add(claim)
        claims.append(claim)
    return _drop_contradictions(claims)


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
_DOUBLE_QUOTES = '"\u201c\u201d\u201e'
_QUOTED = re.compile(r"[\"\u201c\u201e][^\"\u201c\u201d\u201e]*[\"\u201d]")


def _straight(text: str) -> str:
    """`text` with typographic apostrophes as plain ones ("I’m" reads as "I'm")."""
    return text.translate(_APOSTROPHES)


def _own_words(text: str) -> str:
    """The speaker's own words, lower case: double-quoted passages (someone else's
    words) blanked to spaces, offsets kept; a speech that is one quoted passage as a
    whole is unwrapped first, being the speaker's own."""
    text = _straight(text).lower()
    stripped = text.strip()
    if (
        len(stripped) >= 2
        and stripped[0] in _DOUBLE_QUOTES
        and stripped[-1] in _DOUBLE_QUOTES
        and not any(c in _DOUBLE_QUOTES for c in stripped[1:-1])
    ):
        return text.replace(stripped, " " + stripped[1:-1] + " ", 1)
    return _QUOTED.sub(lambda m: " " * len(m.group(0)), text)


def _negated(text: str, claim: Claim) -> bool:
    return bool(
        re.search(
            rf"{_SEAT}\s+is\s+not\s+{_MAFIA_WORDS}".replace(
                r"(\d{1,2})", str((claim.target or 0) + 1)
            ),
            text,
        )
    )


_CLAUSE_END = re.compile(r"[.!?;]|\bbut\b|\bhowever\b")
_NEGATION = re.compile(r"\b(?:not|never|no way|doubt|hardly)\b|n't\b|\bdon't\b|\bdo not\b")
_HEDGE = re.compile(
    r"\bnot\s+(?:sure|certain)\b|n't\s+(?:know|tell)\b"
    r"|\b(?:no|without\s+(?:a|any)|beyond\s+(?:a|any))\s+doubts?\b|\bno\s+question\b"
)


def _negated_clause(text: str, start: int) -> bool:
    """Whether the clause that holds the claim starting at `start` negates it.

    "I don't think P3 is mafia." and "I would never vote for P3" deny an accusation,
    "I don't trust P3" a vouch: a negation word earlier in the same clause (after the
    last full stop, semicolon or "but") turns the claim around. Hedges ("not sure",
    "can't tell") and certainty ("no doubt", "without a doubt") do not.
    """
    clause_start = 0
    for match in _CLAUSE_END.finditer(text, 0, start):
        clause_start = match.end()
    prefix = _HEDGE.sub(" ", text[clause_start:start])
    return _NEGATION.search(prefix) is not None


def _drop_contradictions(claims: list[Claim]) -> list[Claim]:
    """A vouch beats an accusation of the same seat only when it is a result claim."""
    vouched = {c.target for c in claims if c.kind == "vouch"}
    result_claims = {c.target for c in claims if c.kind == "claim_result"}
    return [
        c
        for c in claims
        if not (c.kind == "accuse" and c.target in vouched and c.target in result_claims)
    ]
