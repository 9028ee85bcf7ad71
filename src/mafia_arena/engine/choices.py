"""Requests the engine makes of a seat, and the choices it offers.

Every request is a single choice among an enumerated list (multi-pick decisions such as
"nominate up to two" are asked as successive single picks), so the same request serves
a PettingZoo `Discrete` action, an LLM's JSON enum and a human's buttons. Speaking turns
also accept free text.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True, order=True)
class Choice:
    """One legal option. `verb` says what it does; `target` is a seat; `value` a word.

    Verbs: ``pass`` (abstain / decline / done), ``target`` (pick a seat), ``kill`` and
    ``check`` (a mode choice), speech acts ``accuse``, ``vouch``, ``claim_role``
    (value = role), ``claim_result`` (value = result of the claimed check of target).
    """

    verb: str
    target: int | None = None
    value: str | None = None

    @property
    def key(self) -> str:
        if self.value is not None:
            target = "" if self.target is None else str(self.target)
            return f"{self.verb}:{target}:{self.value}"
        if self.target is not None:
            return f"{self.verb}:{self.target}"
        return self.verb

    @classmethod
    def parse(cls, key: str) -> Choice:
        parts = key.split(":")
        target = int(parts[1]) if len(parts) > 1 and parts[1] != "" else None
        value = parts[2] if len(parts) > 2 else None
        return cls(parts[0], target, value)


PASS = Choice("pass")


@dataclass(frozen=True, slots=True)
class Speech:
    """A free-text speaking turn (optionally with the structured act it was made from)."""

    text: str
    act: Choice | None = None


Decision = Choice | Speech


@dataclass(frozen=True, slots=True)
class Request:
    """What the engine asks of one seat now.

    `kind` names the decision (``night:<step>``, ``speak``, ``nominate``, ``vote``,
    ``last_dead``, ``describe``, ``defence``, ``last_word``); `prompt` says it in words;
    `labels` give each choice a human-readable label; `default` is what a timeout or a
    fallback records (``pass`` where allowed, else ``random``); `free_text` marks a
    speaking turn where any text is also accepted.
    """

    seat: int
    kind: str
    prompt: str
    choices: tuple[Choice, ...]
    labels: tuple[str, ...]
    default: str = "pass"
    free_text: bool = False
    max_chars: int = 1000
    info: dict[str, object] = field(default_factory=dict)

    def label_of(self, choice: Choice) -> str:
        return self.labels[self.choices.index(choice)]
