"""Structured speech acts and the canonical sentence each one renders to.

The sentences are what every other player reads, whoever spoke (a scripted player, an
LLM or a human), and the claim extractor reads them back exactly, so structured and
free speech meet in one transcript. They live in the engine because the engine offers
them as choices of a speaking turn; `mafia_arena.speech` re-exports them next to the
claim reader, so the dependency runs one way (speech -> engine).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from mafia_arena.engine.choices import PASS, Choice, shared_choice


def name(seat: int) -> str:
    return f"P{seat + 1}"


@lru_cache(maxsize=65536)
def render_act(act: Choice) -> str:
    """The canonical sentence for a speech act."""
    if act.verb == "pass":
        return "I have nothing to add."
    if act.verb == "accuse" and act.target is not None:
        return f"I suspect {name(act.target)} is mafia."
    if act.verb == "vouch" and act.target is not None:
        return f"I believe {name(act.target)} is innocent."
    if act.verb == "claim_role":
        return f"I claim to be the {act.value}."
    if act.verb == "claim_result" and act.target is not None:
        return f"My check: {name(act.target)} is {act.value}."
    raise ValueError(f"not a speech act: {act.key}")


def speech_acts(
    speaker: int,
    others: Sequence[int],
    roles: Sequence[str],
    results: Sequence[str] = ("mafia", "innocent"),
) -> list[Choice]:
    """Every structured act a speaker may make about the living `others`.

    The list does not depend on who speaks (`speaker` is kept for readability of calls).
    """
    acts = [PASS]
    acts += [shared_choice("accuse", s) for s in others]
    acts += [shared_choice("vouch", s) for s in others]
    acts += [shared_choice("claim_role", None, r) for r in roles]
    acts += [shared_choice("claim_result", s, r) for s in others for r in results]
    return acts
