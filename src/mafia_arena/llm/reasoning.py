"""Separating a reasoning model's thinking from its answer.

Contract
--------
* :func:`split_reasoning` takes a reply's text and returns ``(reasoning, answer)``:
  every thinking block is moved to ``reasoning``; the text outside the blocks is the
  answer. A block is ``<think>…</think>`` (also ``<thinking>``, ``<reasoning>``, any
  case, the opening tag with attributes or not: ``<think type="x">``, and with a
  prefix: Seed-OSS's ``<seed:think>…</seed:think>``),
  ``<|begin_of_thought|>…<|end_of_thought|>`` (Sky-T1, OpenThoughts),
  ``◁think▷…◁/think▷`` (Kimi) or ``[THINK]…[/THINK]`` (Mistral's Magistral, in
  capitals only: a speech may say "I [think]"); a
  block closes only with the closing mark of its own format. The marks themselves
  are in neither part. An opening tag that is never closed (the token limit cut the
  thinking short) makes the rest of the text reasoning and leaves no answer, so the
  caller re-asks instead of publishing the model's private deliberation. A stray
  closing tag with no opening one (some servers strip the opening tag from the
  stream) makes everything before it reasoning.
* A reply in OpenAI's harmony format (gpt-oss, from a server that does not parse it:
  ``<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>final<|message|>…``)
  is split by channel: the ``final`` channel's messages are the answer, every other
  channel's (``analysis``, ``commentary``) are reasoning, and the harmony marks are in
  neither. A reply whose channels have no ``final`` message (cut short in its
  analysis) leaves no answer, as an unclosed thinking tag does.
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
    rf"<(?P<prefix>[a-z]+:)?(?P<tag>{_TAGS})(?:\s[^<>]*)?>"
    r"|(?P<thought><\|begin_of_thought\|>)|(?P<kimi>◁think▷)|(?P<bracket>(?-i:\[THINK\]))",
    re.IGNORECASE,
)
_CLOSE = re.compile(
    rf"</(?:[a-z]+:)?(?:{_TAGS})\s*>|<\|end_of_thought\|>|◁/think▷|(?-i:\[/THINK\])",
    re.IGNORECASE,
)
_THOUGHT_END = re.compile(r"<\|end_of_thought\|>", re.IGNORECASE)
_KIMI_END = re.compile("◁/think▷", re.IGNORECASE)
#: Magistral's marks are matched in capitals only: "[think]" is a word a speech may hold.
_BRACKET_END = re.compile(r"\[/THINK\]")

#: A harmony channel header: ``<|channel|>`` and the channel's name, then its
#: recipient or constraint (``to=functions.x <|constrain|>json``), up to ``<|message|>``.
_HARMONY_CHANNEL = re.compile(r"<\|channel\|>\s*(?P<name>\w*)[^<]*(?:<\|constrain\|>[^<]*)?")
_HARMONY_MESSAGE = "<|message|>"
#: What ends a harmony message: its end, return or call mark, or the next message's start.
_HARMONY_END = re.compile(r"<\|(?:end|return|call|start)\|>")
#: Every harmony mark, left out of both parts (with the role after ``<|start|>``).
_HARMONY_MARK = re.compile(r"<\|start\|>\s*\w*|<\|(?:end|return|call|message|constrain)\|>")


def _closing(opening: re.Match[str]) -> re.Pattern[str]:
    """The closing mark of the format an opening mark belongs to."""
    if opening.group("tag"):
        prefix = re.escape(opening.group("prefix") or "")
        return re.compile(rf"</{prefix}{opening.group('tag')}\s*>", re.IGNORECASE)
    if opening.group("bracket"):
        return _BRACKET_END
    return _THOUGHT_END if opening.group("thought") else _KIMI_END


def _split_harmony(text: str) -> tuple[str, str]:
    """``(reasoning, answer)`` of a reply in the harmony format (module docstring).

    Text before the first channel header that is not a harmony mark is answer, as
    text outside a thinking block is."""
    headers = list(_HARMONY_CHANNEL.finditer(text))
    thoughts: list[str] = []
    answer = [_HARMONY_MARK.sub(" ", text[: headers[0].start()])]
    for header, following in zip(headers, [*headers[1:], None], strict=True):
        body = text[header.end() : following.start() if following else len(text)]
        if body.startswith(_HARMONY_MESSAGE):
            body = body[len(_HARMONY_MESSAGE) :]
        end = _HARMONY_END.search(body)
        message = body[: end.start()] if end else body
        if header.group("name").lower() == "final":
            answer.append(message)
        else:
            thoughts.append(message)
    return join_reasoning(*thoughts), " ".join(part.strip() for part in answer).strip()


def split_reasoning(text: str) -> tuple[str, str]:
    """``(reasoning, answer)`` of a reply; see the module docstring."""
    if "<" not in text and "◁" not in text and "[" not in text:
        return "", text
    if "<|channel|>" in text:
        return _split_harmony(text)
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
