"""A seat's transcript: its stream's entries rendered to lines, once per entry.

`Transcript` is the text reader of a seat's `KnowledgeFold` (`views.knowledge`): the
fold appends entries, the transcript renders each once (`views.text.render_event`) and
keeps the lines, so the envs' text views, the LLM prompt builder and the terminal read a
seat's transcript without re-rendering the game so far. Lines carry a tier
(`TranscriptLine`) that says how readily a shortened transcript may drop them.
"""

from __future__ import annotations

from dataclasses import dataclass

from mafia_arena.engine.events import SeatEvent
from mafia_arena.views.display_names import PLAIN, DisplayNames
from mafia_arena.views.text import render_event

Renders = dict[int, tuple[SeatEvent, "str | None"]]
"""Rendered lines by entry identity (each value keeps its entry alive)."""


@dataclass(frozen=True, slots=True)
class TranscriptLine:
    """One rendered line of a seat's transcript and how readily a shortened transcript
    may drop it: ``tier`` 0 never, 1 first (public speech), 2 next (other public lines)."""

    text: str
    tier: int


SKELETON = frozenset({"setup", "phase", "death", "reveal", "game_over", "role", "allies"})
"""Public event kinds that are the skeleton of the game: their lines are never dropped."""


def line_tier(entry: SeatEvent) -> int:
    """The `TranscriptLine.tier` of an entry's line (it depends on the entry alone)."""
    if entry.private or entry.kind in SKELETON:
        return 0  # the seat's own knowledge, or the game's skeleton
    return 1 if entry.kind == "speech" else 2


class Transcript:
    """The seat's rendered lines, one render per entry, appended as entries are read.

    Shared by the fold and its snapshots: `lines(n)` renders entries up to `n` if not
    done yet and returns the non-empty lines of the first `n` entries. A line depends on
    the entry alone, so the seats of one game may share `renders` (entry identity →
    line): an event admitted to ten seats is then rendered once, not ten times.
    `tagged(n)` gives the same lines with their tier (`TranscriptLine`), for the LLM
    prompt builder's shortened transcript. Only that builder reads tiers, so they are
    built on its first call (from the entry kept with each line), never for the envs'
    text views, which read `text(n)` at nearly every step. `names` are the game's
    readable names for role, card and night step ids (`views.display_names`); the
    folds that share `renders` share the game, so they share its names too.
    """

    __slots__ = (
        "_ends",
        "_entries",
        "_joined",
        "_joined_lines",
        "_lines",
        "_names",
        "_renders",
        "_sources",
        "_tagged",
        "seat",
    )

    def __init__(
        self,
        entries: list[SeatEvent],
        seat: int,
        renders: Renders | None = None,
        names: DisplayNames = PLAIN,
    ) -> None:
        self._entries = entries
        self._renders: Renders = {} if renders is None else renders
        self._names = names
        self._lines: list[str] = []
        self._sources: list[SeatEvent] = []  # the entry behind each line (for its tier)
        self._tagged: list[TranscriptLine] = []  # tagged lines built so far (a prefix)
        self._ends: list[int] = []  # number of lines after each entry
        self._joined = ""
        self._joined_lines = 0
        self.seat = seat

    def _end(self, count: int) -> int:
        ends = self._ends
        done = len(ends)
        if count <= done:
            return ends[count - 1] if count else 0
        lines, sources, renders, seat = self._lines, self._sources, self._renders, self.seat
        names = self._names
        get, end = renders.get, len(lines)
        for entry in self._entries[done:count]:
            key = id(entry)
            known = get(key)
            if known is None:
                line = render_event(entry, seat, names)
                renders[key] = (entry, line)  # the entry held: its id stays unique
            else:
                line = known[1]
            if line:
                lines.append(line)
                sources.append(entry)
                end += 1
            ends.append(end)
        return ends[count - 1]

    def lines(self, count: int) -> list[str]:
        return self._lines[: self._end(count)]

    def tagged(self, count: int) -> list[TranscriptLine]:
        """The first `count` entries' lines with their tiers (built once, kept)."""
        end = self._end(count)
        tagged, lines, sources = self._tagged, self._lines, self._sources
        for i in range(len(tagged), end):
            tagged.append(TranscriptLine(lines[i], line_tier(sources[i])))
        return tagged[:end]

    def text(self, count: int) -> str:
        """The first `count` entries' lines joined by newlines (extended, not rebuilt)."""
        end = self._end(count)
        if end < self._joined_lines:
            return "\n".join(self._lines[:end])
        if end > self._joined_lines:
            new = "\n".join(self._lines[self._joined_lines : end])
            self._joined = f"{self._joined}\n{new}" if self._joined else new
            self._joined_lines = end
        return self._joined
