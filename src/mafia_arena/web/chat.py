"""Table chat beside the rules: named channels, each with an audience.

The rules' own talk is part of the game: speeches, and a faction's night talk rounds
(the night steps' ``chat_rounds``, e.g. ``mafia_chat_rounds`` in standard and classic,
``detective_chat_rounds`` in classic), asked by the engine and kept in the log. This
module carries the talk the rules leave out, which must never reach the living:

- ``dead``: the dead among themselves (a seat is dead here when its own view says
  so, so a night's victim joins at dawn, when their page learns it);
- ``spectators``: the people watching, who see only public events.

A channel is a name, a title and who belongs to it; a member reads and writes the
channels they belong to, and after the game everyone reads every channel. A later
channel (a variant's private messages, a newspaper) is one more `Channel`.

Chat is not a decision: it is not in the game log and no bot reads it, so the game
stays a function of variant, seed and decisions. The live store keeps it (a restart
loses no chat).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from mafia_arena.agents.human import clean_text, foreign_words
from mafia_arena.agents.speaker_tags import NO_NAMES, SpeakerNames, seat_label
from mafia_arena.engine.player_states import PlayerState
from mafia_arena.views.view import View

MAX_CHAT = 300  # characters per chat line
MAX_LINES = 2000
"""Chat lines per channel of a game: the store and every page stay bounded. Per
channel, so the spectators (a watch link can be passed around) cannot fill the dead
players' chat, nor they the spectators'."""


@dataclass(frozen=True)
class Member:
    """Who reads: a seat (alive or dead, as its own view says; in Palermo only a
    permanent exit is dead, see `seat_member`) or a spectator (no seat)."""

    seat: int | None
    alive: bool = True
    """Not dead as the chat sees it: where the rules have player states (Palermo), not
    permanently out (a ghost or a prisoner counts as alive); elsewhere alive in the
    seat's own view."""
    over: bool = False


@dataclass(frozen=True)
class Channel:
    """A chat channel and its audience (a predicate on the reader); `tag`, the words a
    line of it is tagged with on the page ("dead chat"), sent with each line so the
    page holds no table of channel names."""

    name: str
    title: str
    belongs: Callable[[Member], bool]
    tag: str = ""

    def reads(self, member: Member) -> bool:
        return member.over or self.belongs(member)

    def writes(self, member: Member) -> bool:
        return not member.over and self.belongs(member)


def seat_member(seat: int, view: View) -> Member:
    """A seat as a chat reader: dead or alive as its own view says (a night's victim
    learns it at dawn, and joins the dead then). Where the rules have player states
    (Palermo) only a permanent exit is dead here: a ghost or a prisoner may come back
    into play, and the dead chat would be a channel between players still in the game
    that the rules do not give them."""
    states = view.knowledge.states
    gone = states[seat] == PlayerState.OUT if states else not view.alive
    return Member(seat, alive=not gone, over=view.knowledge.over)


CHANNELS = (
    Channel("dead", "Dead chat", lambda m: m.seat is not None and not m.alive, "dead chat"),
    Channel("spectators", "Spectator chat", lambda m: m.seat is None, "spectators"),
)


class Page(Protocol):
    """An open page as chat delivery sees it (`session.Connection`)."""

    chat_cursor: int
    chat_open: tuple[str, ...]

    def send(self, message: dict[str, Any]) -> None: ...


class ChatRefused(ValueError):
    """A chat line that may not be posted; the message is safe to show its sender."""


@dataclass(frozen=True)
class ChatLine:
    channel: str
    author: str
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"channel": self.channel, "author": self.author, "text": self.text}


class ChatBook:
    """Every chat line of one game, in order, with who may read each."""

    def __init__(self, channels: tuple[Channel, ...] = CHANNELS) -> None:
        self.channels = {c.name: c for c in channels}
        self.lines: list[ChatLine] = []

    def restore(self, saved: list[dict[str, Any]]) -> None:
        self.lines = [ChatLine(d["channel"], d["author"], d["text"]) for d in saved]

    def open_to(self, member: Member) -> list[dict[str, Any]]:
        """The channels `member` reads, and whether they may write there."""
        return [
            {"name": c.name, "title": c.title, "writable": c.writes(member)}
            for c in self.channels.values()
            if c.reads(member)
        ]

    def post(
        self,
        channel: str,
        member: Member,
        author: str,
        text: str,
        names: SpeakerNames = NO_NAMES,
    ) -> ChatLine:
        """Add a line from `member`; `ChatRefused` unless they may write there, and
        unless the words are their own: no tag of the host, of another seat or of a
        name of `names` (the names the writer reads the table by:
        `agents.human.speaker_names`, `watcher_names`) opening a line or a sentence
        (`agents.human.foreign_words`, the check a person's speech gets; a spectator
        has no seat, so every seat's tag is another's).

        Why chat too: a dead player's "Host: P3 was the detective" is read by the other
        dead, and by everyone after the game, as the game's word, just as in a speech."""
        found = self.channels.get(channel)
        if found is None or not found.writes(member):
            raise ChatRefused("you cannot write in that chat")
        if sum(1 for line in self.lines if line.channel == channel) >= MAX_LINES:
            raise ChatRefused("this chat is full")
        words = clean_text(text)[:MAX_CHAT]
        if not words:
            raise ChatRefused("empty message")
        me = seat_label(member.seat) if member.seat is not None else ""
        refused = foreign_words(me, text, names)
        if refused is not None:
            raise ChatRefused(refused)
        line = ChatLine(channel, author, words)
        self.lines.append(line)
        return line

    def deliver(self, page: Page, member: Member) -> None:
        """Send a page the lines it may read and has not had. A page whose channels
        changed (its seat died, the game ended) gets them all again. A page with no
        channel gets nothing at all, so the living never see that chat exists."""
        channels = tuple(c["name"] for c in self.open_to(member))
        reset = channels != page.chat_open
        new = self.readable(member, 0 if reset else page.chat_cursor)
        page.chat_open = channels
        page.chat_cursor = len(self.lines)
        if new or reset:
            page.send({"type": "chat", "reset": reset, "lines": new})

    def readable(self, member: Member, start: int = 0) -> list[dict[str, Any]]:
        """The lines from `start` on that `member` may read, as JSON, each with its
        channel's `tag` (the channel's name where it has none)."""
        return [
            {**line.to_json(), "tag": c.tag or c.name}
            for line in self.lines[start:]
            if (c := self.channels.get(line.channel)) is not None and c.reads(member)
        ]
