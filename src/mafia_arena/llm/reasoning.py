"""Separating a reasoning model's thinking from its answer.

Contract
--------
* :func:`split_reasoning` takes a reply's text and returns ``(reasoning, answer)``:
  every ``<think>…</think>`` (also ``<thinking>``, ``<reasoning>``) block is moved to
  ``reasoning``; the text outside the blocks is the answer. An opening tag that is
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
_BLOCK = re.compile(rf"<({_TAGS})>(.*?)</\1>", re.IGNORECASE | re.DOTALL)
_OPEN = re.compile(rf"<({_TAGS})>", re.IGNORECASE)
_CLOSE = re.compile(rf"</({_TAGS})>", re.IGNORECASE)


def split_reasoning(text: str) -> tuple[str, str]:
    """``(reasoning, answer)`` of a reply; see the module docstring."""
    if "<" not in text:
        return "", text
    thoughts: list[str] = []
    stray = _CLOSE.search(text)
    first_open = _OPEN.search(text)
    if stray and (first_open is None or stray.start() < first_open.start()):
        thoughts.append(text[: stray.start()].strip())
        text = text[stray.end() :]

    def keep(match: re.Match[str]) -> str:
        thoughts.append(match.group(2).strip())
        return " "

    answer = _BLOCK.sub(keep, text)
    unclosed = _OPEN.search(answer)
    if unclosed:
        thoughts.append(answer[unclosed.end() :].strip())
        answer = answer[: unclosed.start()]
    return join_reasoning(*thoughts), answer.strip()


def join_reasoning(*parts: str | None) -> str:
    """The non-empty parts, one paragraph each."""
    return "\n\n".join(part.strip() for part in parts if part and part.strip())
