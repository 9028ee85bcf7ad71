"""The forum's channels: thread posts, private messages, newspaper ads, testaments.

Each channel is switched on by the variant (`rules.forum`) and is one typed fact with
its audience (`engine.catalogue`): a post is public; a private message reaches its
sender and recipients only; an ad is published under its pseudonym alone, in an edition
whose order is drawn; a pseudonym transfer is told to the two owners; a testament is
public or reaches its chosen recipients, and a private one's existence is told to no
one else. Refusals are checked before anything changes (`refusal`), so the same rules
serve the submission check and the moment a form is applied.
"""

from __future__ import annotations

import re

from mafia_arena.engine.catalogue import (
    DeliveredTestament,
    FormNoted,
    Newspaper,
    PrivateMessage,
    PseudonymTransfer,
    SpeechMade,
)
from mafia_arena.engine.events import PUBLIC, private
from mafia_arena.engine.forum.state import Ad, Testament, draw, forum, round_of, shuffled
from mafia_arena.engine.game import Game, seat_name

CHANNEL_VERBS = frozenset({"post", "pm", "ad", "give", "testament"})
RESERVED = frozenset({"spielleiter", "gm", "system", "game master", "new"})
NAME = re.compile(r"^[\w][\w .'-]{0,30}$")

DEFAULT_POST = "I am here and following the game."
DEFAULT_MESSAGE = "Hello. Whom do you trust, and whom should the dictator execute?"
DEFAULT_AD = "Watch the quiet ones."
DEFAULT_TESTAMENT = "I trusted the town to the end."
COINED = (
    "Phantom", "Raven", "Owl", "Fox", "Wolf", "Sparrow", "Comet", "Shadow", "Lantern",
    "Harbour", "Needle", "Compass", "Violet", "Thistle", "Echo", "Ember", "Falcon", "Marble",
)  # fmt: skip


def seats_of(value: str | None) -> tuple[int, ...] | None:
    """``"2.5.7"`` → (2, 5, 7) (a group message's or a testament's recipients)."""
    if not value:
        return None
    try:
        return tuple(sorted({int(part) for part in value.split(".")}))
    except ValueError:
        return None


def pseudonym_refusal(game: Game, seat: int, name: str) -> str:
    """Why `seat` may not place an ad under `name` in this edition ("" if it may)."""
    state = forum(game)
    key = name.strip().casefold()
    if not NAME.match(name.strip()):
        return "a pseudonym is 1 to 31 letters, digits, spaces or .'-"
    if key in RESERVED or re.fullmatch(r"p\d+", key):
        return "a pseudonym may not be a player's name or the game master's"
    if key in state.retired:
        return f"the pseudonym {name!r} is retired"
    owner = state.owners.get(key)
    if owner is not None and owner != seat:
        return f"the pseudonym {name!r} belongs to another player"
    edition = [ad for ad in state.ads if ad.author == seat]
    if any(ad.pseudonym.casefold() == key for ad in state.ads):
        return f"one ad per pseudonym and edition: {name!r} already has one"
    used = {ad.pseudonym.casefold() for ad in edition}
    if len(used) >= game.variant.rules.forum.pseudonyms_per_edition:
        limit = game.variant.rules.forum.pseudonyms_per_edition
        return f"at most {limit} pseudonyms per player and edition"
    return ""


def refusal(game: Game, seat: int, verb: str, target: int | None, value: str | None) -> str | None:
    """Why a channel form is refused now ("" if accepted; None: not a channel verb)."""
    if verb not in CHANNEL_VERBS:
        return None
    rules = game.variant.rules.forum
    state = game.state
    if verb == "post":
        return ""
    if verb == "pm":
        if not rules.private_messages:
            return "this variant has no private messages"
        recipients = (target,) if target is not None else seats_of(value)
        if not recipients:
            return "name the recipients"
        for r in recipients:
            if not 0 <= r < game.players or r == seat or not state.alive(r):
                return "private messages go to other players in the game"
        return ""
    if verb == "ad":
        if not rules.newspaper:
            return "this variant has no newspaper"
        if value in (None, "", "new"):
            return ""
        return pseudonym_refusal(game, seat, value)
    if verb == "give":
        if not rules.newspaper:
            return "this variant has no newspaper"
        key = (value or "").casefold()
        if forum(game).owners.get(key) != seat:
            return "you may give away only a pseudonym you own"
        if target is None or target == seat or not state.alive(target):
            return "a pseudonym goes to another player in the game"
        return ""
    # testament
    if not rules.testaments:
        return "this variant has no testaments"
    held = forum(game).testaments.get(seat)
    if held is not None and held.round == round_of(game):
        return "a testament may be changed once per round"
    if value not in (None, "", "public"):
        recipients = seats_of(value)
        if not recipients or any(not 0 <= r < game.players for r in recipients):
            return "a private testament names its recipients as seat numbers"
    return ""


def coin(game: Game) -> str:
    """A fresh pseudonym for an ad asked without one (a logged draw, so it replays)."""
    state = forum(game)
    free = [
        n for n in COINED if n.casefold() not in state.owners and n.casefold() not in state.retired
    ]
    if not free:
        free = [f"Reader {i}" for i in range(1, 200) if f"reader {i}" not in state.owners]
    return str(draw(game, "pseudonym", free))


def apply(
    game: Game, seat: int, verb: str, target: int | None, value: str | None, text: str
) -> None:
    """Carry out an accepted channel form (`refusal` said "")."""
    state = forum(game)
    if verb == "post":
        state.posted.add(seat)
        state.thread.append((seat, text or DEFAULT_POST))
    elif verb == "pm":
        recipients = (target,) if target is not None else seats_of(value) or ()
        game.emit(
            PrivateMessage(seat, tuple(recipients), text or DEFAULT_MESSAGE),
            private(seat, *recipients, channel="pm"),
        )
    elif verb == "ad":
        name = coin(game) if value in (None, "", "new") else str(value).strip()
        key = name.casefold()
        if key not in state.owners:
            state.owners[key] = seat
            state.spelled[key] = name
        state.ads.append(Ad(seat, state.spelled[key], text or DEFAULT_AD))
        spelled = state.spelled[key]
        notice = f"Your ad under {spelled!r} is in the next edition."
        game.emit(FormNoted("ad", notice, spelled), private(seat))
    elif verb == "give":
        key = str(value).casefold()
        assert target is not None
        state.owners[key] = target
        game.emit(
            PseudonymTransfer(state.spelled[key], seat, target), private(seat, target, channel="gm")
        )
    else:
        chosen = None if value in (None, "", "public") else seats_of(value)
        state.testaments[seat] = Testament(text or DEFAULT_TESTAMENT, chosen, round_of(game))
        whom = "public" if chosen is None else "to " + ", ".join(seat_name(r) for r in chosen)
        game.emit(FormNoted("testament", f"Your testament ({whom}) is recorded."), private(seat))


def publish_thread(game: Game) -> None:
    """The window's thread posts, by seat, each seat's in the order it wrote them.

    Why at the window's close and not as they come: the moment of a public post would
    tell everyone how many private forms its author handed in before it.
    """
    state = forum(game)
    for seat, text in sorted(state.thread, key=lambda post: post[0]):
        game.emit(SpeechMade(seat, text, "post"), PUBLIC)
    state.thread = []
    state.irrelevant = set()


def publish_edition(game: Game, edition: str, handed_in: list[Ad] | None = None) -> None:
    """The phase's newspaper (7.4.7): ads in a drawn order, pseudonyms only.

    `handed_in`: the ads as they stood when a night's resolution began. Night
    submissions are simultaneous (3.1, 3.4): an author jailed, murdered, deposed or
    disqualified in that resolution still has the ad he placed published (8.5.6: a
    disqualified player's actions of the phase still resolve). Default: the ads
    standing now, which by day no longer hold an eliminated author's (8.4)."""
    if not game.variant.rules.forum.newspaper:
        return
    state = forum(game)
    if handed_in is None:
        ads = [ad for ad in state.ads if game.state.alive(ad.author)]
    else:
        ads = list(handed_in)
    state.ads = []
    if len(ads) > 1:
        order = shuffled(game, "newspaper", len(ads))
        ads = [ads[i] for i in order]
    game.emit(
        Newspaper(edition, tuple(a.pseudonym for a in ads), tuple(a.text for a in ads)), PUBLIC
    )


def retire(game: Game, seat: int) -> None:
    """An eliminated owner's pseudonyms are retired, never revealed (7.4.6); his
    unpublished ads are dropped with his other rights (8.4), except that a night's
    resolution publishes the ads handed in before it began (`publish_edition`)."""
    state = forum(game)
    for key, owner in list(state.owners.items()):
        if owner == seat:
            del state.owners[key]
            state.retired.add(key)
    state.ads = [ad for ad in state.ads if ad.author != seat]


def deliver_testament(game: Game, seat: int) -> None:
    """The testament of an eliminated player (not a disqualified one, 7.5.4)."""
    held = forum(game).testaments.pop(seat, None)
    if held is None:
        return
    if held.recipients is None:
        game.emit(DeliveredTestament(seat, held.text, True), PUBLIC)
    else:
        game.emit(
            DeliveredTestament(seat, held.text, False), private(*held.recipients, channel="gm")
        )
