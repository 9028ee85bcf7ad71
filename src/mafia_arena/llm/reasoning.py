"""Separating a reasoning model's thinking from its answer.

Contract
--------
* :func:`split_reasoning` takes a reply's text and returns ``(reasoning, answer)``:
  every thinking block is moved to ``reasoning``; the text outside the blocks is the
  answer. A block is ``<think>…</think>`` (also ``<thinking>``, ``<reasoning>``, any
  case, the opening tag with attributes or not: ``<think type="x">``),
  ``<|begin_of_thought|>…<|end_of_thought|>`` (Sky-T1, OpenThoughts) or
  ``◁think▷…◁/think▷`` (Kimi); a block closes only with the closing mark of its own
  format. The marks themselves are in neither part. An opening tag that is
  never closed (the token limit cut the thinking short) makes the rest of the text
  reasoning and leaves no answer, so the caller re-asks instead of publishing the
  model's private deliberation. A stray closing tag with no opening one (some servers
  strip the opening tag from the stream) makes everything before it reasoning.
* Endpoints that return the reasoning in a separate field (``reasoning_content`` of
  DeepSeek R1, vLLM and llama.cpp servers, ``reasoning`` of others) are read by the
  transport; the two sources are joined.

Why: a reasoning model's thoughts name its own role and plans. Published as speech
they hand the game away; dropped, a researcher loses the best evidence of *why* a move
was made. So they go to the decision trace, never to the table.
"""

from __future__ import annotations

import re

__all__ = ["join_reasoning", "split_reasoning"]

_TAGS = "think|thinking|reasoning"
_OPEN = re.compile(
    rf"<(?P<tag>{_TAGS})(?:\s[^<>]*)?>|(?P<thought><\|begin_of_thought\|>)|(?P<kimi>◁think▷)",
    re.IGNORECASE,
)
_CLOSE = re.compile(rf"</(?:{_TAGS})\s*>|<\|end_of_thought\|>|◁/think▷", re.IGNORECASE)
_THOUGHT_END = re.compile(r"<\|end_of_thought\|>", re.IGNORECASE)
_KIMI_END = re.compile("◁/think▷", re.IGNORECASE)


def _closing(opening: re.Match[str]) -> re.Pattern[str]:
    """The closing mark of the format an opening mark belongs to."""
    if opening.group("tag"):
        return re.compile(rf"</{opening.group('tag')}\s*>", re.IGNORECASE)
    return _THOUGHT_END if opening.group("thought") else _KIMI_END


def split_reasoning(text: str) -> tuple[str, str]:
    """``(reasoning, answer)`` of a reply; see the module docstring."""
    if "<" not in text and "◁" not in text:
        return "", text
    thoughts: list[str] = []
    stray = _CLOSE.search(text)
    first_open = _OPEN.search(text)
    if stray and (first_open is None or stray.start() < first_open.start()):
        thoughts.append(text[: stray.start()].strip())
        text = text[stray.end() :]

    answer: list[str] = []
    position = 0
    while (opening := _OPEN.search(text, position)) is not None:
        answer.append(text[position : opening.start()])
        closing = _closing(opening).search(text, opening.end())
        if closing is None:  # cut short: the rest is thinking, never answer
            thoughts.append(text[opening.end() :].strip())
            position = len(text)
            break
        thoughts.append(text[opening.end() : closing.start()].strip())
        answer.append(" ")
        position = closing.end()
    answer.append(text[position:])
    return join_reasoning(*thoughts), "".join(answer).strip()


def join_reasoning(*parts: str | None) -> str:
    """The non-empty parts, one paragraph each."""
    return "\n\n".join(part.strip() for part in parts if part and part.strip())
