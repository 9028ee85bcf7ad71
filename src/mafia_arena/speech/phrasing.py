"""Varied sentences for the speech acts, with references to what happened earlier.

`render_act` gives each act one canonical sentence (the request's labels); scripted
players speak through a `Phrasebook` instead, which picks one of several phrasings per
act — never the same one twice running for a speaker — and may put a `Reason` in
front ("P3 voted for P5 yesterday, and P5 was a villager."), so a transcript reads like
a table rather than a form, and an opponent cannot key on one sentence.

Every phrasing is written so that `extract_claims` reads it back as its act (tests
check each one): a reason names seats only in forms the extractor does not take for a
claim ("voted for", "spoke up for", "named", "was a …"), never "vote for P3", "P3 is
…", "trust P3" or "checked P3".
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from mafia_arena.engine.choices import Choice
from mafia_arena.engine.speech_acts import name

PHRASINGS: dict[str, tuple[str, ...]] = {
    "pass": (
        "I have nothing to add.",
        "Nothing from me yet.",
        "Too early to tell; I'll listen for now.",
        "I'm still making up my mind.",
        "I want to hear the others first.",
    ),
    "accuse": (
        "I suspect {t} is mafia.",
        "{t} must be mafia.",
        "I will vote for {t} today.",
        "Let's eliminate {t}.",
        "I accuse {t}.",
        "If I had to pick now, I'd lynch {t}.",
    ),
    "vouch": (
        "I believe {t} is innocent.",
        "I trust {t}.",
        "{t} is town in my book.",
        "I'll vouch for {t}.",
        "{t} is not mafia, as far as I can tell.",
    ),
    "claim_role": (
        "I claim to be the {v}.",
        "I am the {v}.",
        "Time to come out: I am the {v}.",
        "I'm the {v}, and it's time you knew.",
    ),
    "claim_result": (
        "My check: {t} is {v}.",
        "I checked {t}: {v}.",
        "Last night I checked {t}: {v}.",
        "I investigated {t}: {v}.",
    ),
}
"""Templates per act verb: ``{t}`` the target's name, ``{v}`` the act's value."""

REASONS: dict[str, tuple[str, ...]] = {
    "voted_town": (
        "{s} voted for {o} {when}, and {o} was {a_role}.",
        "Remember that {s} voted for {o} {when}; {o} turned out to be {a_role}.",
    ),
    "vouched_mafia": (
        "{s} spoke up for {o} {when}, and {o} was one of the mafia.",
        "{s} defended {o} {when}, and we all saw {o}'s card.",
    ),
    "named_by_victim": (
        "{o} named {s} and was killed that very night.",
        "The night took {o} right after {o} pointed at {s}.",
    ),
    "counter_claim": (
        "{s}'s claim clashes with another one.",
        "Two people cannot both hold that card, and {s}'s story is the weaker one.",
    ),
    "vote": (
        "After {s}'s vote {when}, I have my doubts.",
        "{s}'s vote {when} still bothers me.",
    ),
    "pressure": (
        "Several of you have doubts about {s} today, and so do I.",
        "I agree with the others about {s}.",
    ),
    "killed_quiet": (
        "Another night, another town player dead.",
        "We lost {o} last night; let's not waste this vote.",
    ),
}
"""Templates per reason kind: ``{s}`` the seat discussed, ``{o}`` another seat, ``{when}``
the day ("yesterday", "today", "on day 2"), ``{role}`` a revealed role's name and
``{a_role}`` the same after its article ("an immortal")."""

CONNECTORS = ("Also,", "And", "Besides,", "On top of that,")


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a speaker says what it says: one earlier fact about `seat` (see `REASONS`)."""

    kind: str
    seat: int
    other: int | None = None
    day: int | None = None
    role: str | None = None


def role_name(role: str) -> str:
    """A role as speech says it: its words, not its identifier (``active_psychopath``
    is "active psychopath"); `extract_claims` reads either back as the role."""
    return role.replace("_", " ")


_AN_EXCEPTIONS = ("one", "once", "uni", "use", "usu", "eu")
"""Vowel-letter openings said with a consonant sound ("a unique", "a one-off")."""


def with_article(word: str) -> str:
    """`word` after "a" or "an", chosen by how the word begins ("an immortal",
    "a mafioso", "a unique card")."""
    lowered = word.lower()
    vowel = lowered[:1] in ("a", "e", "i", "o", "u") and not lowered.startswith(_AN_EXCEPTIONS)
    return f"{'an' if vowel else 'a'} {word}"


def when(day: int | None, today: int) -> str:
    """``today``, ``yesterday`` or ``on day N`` for an event of `day` seen on `today`."""
    if day is None or day == today:
        return "today"
    if day == today - 1:
        return "yesterday"
    return f"on day {day}"


def _fill(template: str, act: Choice) -> str:
    target = name(act.target) if act.target is not None else ""
    value = act.value or ""
    return template.format(t=target, v=role_name(value) if act.verb == "claim_role" else value)


def phrasings(act: Choice) -> list[str]:
    """Every sentence `act` may be said as (the first is the canonical one)."""
    return [_fill(t, act) for t in PHRASINGS[act.verb]]


def reason_sentences(reason: Reason, today: int) -> list[str]:
    """Every sentence `reason` may be given as."""
    values = {
        "s": name(reason.seat),
        "o": name(reason.other) if reason.other is not None else "someone",
        "when": when(reason.day, today),
        "role": role_name(reason.role or "townsperson"),
    }
    values["a_role"] = with_article(values["role"])
    return [t.format(**values) for t in REASONS[reason.kind]]


def _lower_first(sentence: str) -> str:
    """`sentence` continued after a connector: lower-case its first word unless it is
    "I" (or I'm, I'll) or a seat name."""
    head = sentence.split(" ", 1)[0]
    if head in ("I", "I'm", "I'll", "I'd") or head.rstrip(":,.;'s").startswith("P"):
        return sentence
    return sentence[0].lower() + sentence[1:]


@dataclass
class Phrasebook:
    """One speaker's choice of words over a game: varied, never the same twice running."""

    rng: random.Random
    last: dict[str, int] = field(default_factory=dict)

    def pick(self, key: str, options: Sequence[str]) -> str:
        choices = [i for i in range(len(options)) if i != self.last.get(key)] or [0]
        index = self.rng.choice(choices)
        self.last[key] = index
        return options[index]

    def say(self, act: Choice) -> str:
        return self.pick(act.verb, phrasings(act))

    def because(self, reason: Reason, today: int) -> str:
        return self.pick(f"reason:{reason.kind}", reason_sentences(reason, today))

    def speech(self, acts: Sequence[Choice], reasons: dict[Choice, Reason], today: int) -> str:
        """The acts as one speech, each after its reason if it has one, joined with
        the occasional connector."""
        sentences: list[str] = []
        for index, act in enumerate(acts):
            reason = reasons.get(act)
            if reason is not None:
                sentences.append(self.because(reason, today))
            sentence = self.say(act)
            if index and reason is None and self.rng.random() < 0.3:
                sentence = f"{self.rng.choice(CONNECTORS)} {_lower_first(sentence)}"
            sentences.append(sentence)
        return " ".join(sentences)
