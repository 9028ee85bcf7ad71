"""JSON for one seat's page, built only from that seat's `View` and public seating.

Contract: every field comes from `view.knowledge` (the fold of the events admitted to
the seat: the panels read its dated records, never a rescan of its stream), the
view's request, the variant's public rule text, or the public roster (names, bot/human,
presence). Nothing here reads `Game` state, so the page can show nothing its seat may
not know; the one field from outside, the end screen's `why`, is the caller's
(`views.endings`), given only once the seat has seen the game's end, when everything it
draws on is public. Event sequence numbers are deliberately not sent: gaps between
the numbers of visible events would count the hidden events in between (e.g. how many
night actions ran, hence which power roles are alive).

Lines write roles and Palermo's intrigue cards by the variant's readable names
(`views.display_names`, public rule data), and are the lines people read
(`views.people_text.people_line`), as the terminal game and the command line's
transcripts print them: a speech's or a vote's kind in words ("P2 (team chat): ...",
"Votes (final vote): ..."), the forum game's Night 0 dated "[N0]", a team's picks with
their round of how many. Each is a line of the seat's own transcript
(`views.text.render_event`, what a model reads, left as it was) with only those words
changed, so a line says nothing its event does not. The end's line is the
transcript's: the page says why the game ended on its end screen (`_reveal`), once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mafia_arena.agents.human import FORUM_KIND, owned_pseudonyms
from mafia_arena.engine.catalogue import NominationTally, SpeechMade, Votes
from mafia_arena.engine.choices import Request
from mafia_arena.rules import Variant
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.knowledge import Knowledge
from mafia_arena.views.people_text import Answered, people_line, people_prompt, tag_words
from mafia_arena.views.text import name, quote_speech
from mafia_arena.views.view import View
from mafia_arena.views.words import palermo_when
from mafia_arena.web.stand_ins import Moves, tag


@dataclass(frozen=True)
class SeatInfo:
    """Public facts about a seat: who sits there, not what card they hold."""

    seat: int
    name: str
    kind: str  # "human" or "bot"
    agent: str  # bot preset / agent file; "human" for people
    taken: bool = False
    away: bool = False
    replaced: bool = False
    stand_in: str | None = None  # the bot playing for an absent person, while it does

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "label": name(self.seat),
            "name": self.name,
            "kind": self.kind,
            "agent": self.agent,
            "taken": self.taken,
            "away": self.away,
            "replaced": self.replaced,
            "stand_in": self.stand_in,
        }


@dataclass(frozen=True)
class Turn:
    """The request currently open for the seat, as the driver issued it."""

    turn: int
    seconds_left: float
    last_call: bool = False
    """Everyone else of the prompt has answered; the timer was cut short."""


def lines(
    knowledge: Knowledge,
    start: int = 0,
    moves: Moves | None = None,
    hide: Callable[[Any], bool] | None = None,
    *,
    names: DisplayNames,
    variant: Variant,
) -> list[dict[str, Any]]:
    """Rendered transcript entries for `knowledge.events[start:]` (empty ones skipped),
    as people read them (`views.people_text.people_line`, without the end's reason:
    the end screen gives it).

    `names` are the game's variant's readable names (`DisplayNames.of(variant)`): a
    role or card is written as the text view writes it ("Role: Known Mafioso A."), and
    `variant` gives a team's picks their number of rounds ("round 1 of 3"); both are
    required, not defaulted — a caller that forgot them would show bare ids.
    `moves` (`web/stand_ins.py`) names the speech and votes a stand-in made for an
    absent person: those lines say "(stand-in)" after the seat. `hide` leaves out the
    events whose fact it accepts (the after-game replay: `views.pseudonyms`). A
    private line carries its ``tag``, whose it is in the words the terminal writes
    before it (`views.people_text.tag_words`), which the page shows as it is; an empty
    one where the line says whose it is itself ("Team picks for the mafia's kill")."""
    out = []
    for event in knowledge.events[start:]:
        if hide is not None and hide(event.fact):
            continue
        text = people_line(event, knowledge.seat, names, variant, knowledge=knowledge)
        if not text:
            continue
        text = tag(text, event.fact, moves)
        entry: dict[str, Any] = {
            "text": text,
            "kind": event.kind,
            "phase": event.phase,
            "day": event.day,
            "private": event.private,
            "channel": event.channel,
        }
        if event.private:  # whose line it is, in the terminal's words (`tag_words`);
            entry["tag"] = tag_words(event.channel, text, names)  # "": the line says it
        if isinstance(event.fact, SpeechMade):  # the page shows the words in their own element
            words = event.fact.text
            entry["speaker"] = text[: len(text) - len(quote_speech(words)) - 2]  # "[D1] P3"
            entry["speech"] = words
        out.append(entry)
    return out


def role_titles(variant: Variant) -> dict[str, str]:
    """The roles the page names otherwise than by id (`RoleSpec.display`: Palermo's
    ``known_a`` is "Known Mafioso A"); the page shows any other role by its id (JS
    `roleName`). The same names as the text lines' (`DisplayNames.of`), so the role
    card, the player list and the transcript call a role alike."""
    return dict(DisplayNames.of(variant).roles)


def known_role(knowledge: Knowledge, seat: int) -> str | None:
    """A seat's role as this viewer knows it: own card, allies, public reveals."""
    if seat == knowledge.seat:
        return knowledge.role
    return knowledge.revealed.get(seat) or knowledge.allies.get(seat)


def _card(view: View, variant: Variant) -> dict[str, Any]:
    k = view.knowledge
    role = variant.roles.get(k.role) if k.role else None
    faction = variant.factions.get(k.faction) if k.faction else None
    return {
        "seat": view.seat,
        "label": name(view.seat),
        "role": k.role,
        "faction": k.faction,
        "role_text": role.description if role else "",
        "goal": faction.description if faction else "",
        "allies": [{"seat": s, "label": name(s), "role": r} for s, r in sorted(k.allies.items())],
        "alive": view.alive,
        **_palermo_card(k, variant),
    }


def _palermo_card(k: Knowledge, variant: Variant) -> dict[str, Any]:
    """Palermo: the seat's player state and intrigue card (title, text, when playable)."""
    if variant.palermo is None:
        return {}
    state = k.states[k.seat] if k.states else "active"
    card = variant.palermo.cards.get(k.card) if k.card else None
    return {
        "state": state,
        "intrigue_card": None
        if card is None
        else {
            "name": k.card,
            "title": card.title,
            "text": card.description,
            "phases": list(card.phases),
        },
    }


def _vote_panel(knowledge: Knowledge, names: DisplayNames) -> dict[str, Any]:
    """The latest day's public voting record, ballots and tallies as the events carry them,
    each line as people read it (`people_line`: "Votes (final vote): ...").

    In most variants the vote ends the day, so "today's" record would be empty from the
    moment it is complete until the next day's vote: the panel keeps the last day that
    voted (``day``) and says whether that is today (``today``).
    """
    voting = knowledge.vote_record  # the fold keeps the latest voting day's record
    if not voting:
        return {"day": None, "today": False, "entries": []}
    latest = voting[0].day
    entries = []
    for noted in voting:
        event, fact = noted.entry, noted.fact
        entry: dict[str, Any] = {"kind": event.kind, "text": people_line(event, None, names)}
        if isinstance(fact, Votes | NominationTally):
            entry["tally"] = [{"label": name(s), "count": c} for s, c in fact.tally.items()]
        entries.append(entry)
    today = latest == knowledge.day and knowledge.phase == "day"
    return {"day": latest, "today": today, "entries": entries}


def _reveal(knowledge: Knowledge, why: str = "") -> dict[str, Any] | None:
    """After the game: every card and who won, from the public game_over event, and why
    it ended: `why` where the caller gives it (`views.endings.end_reason`, the rule that
    held, found in the finished game's public state), else the event's reason."""
    f = knowledge.ended
    if f is None:
        return None
    return {
        "winner": f.winner,
        "reason": why or f.reason,
        "seats": [
            {
                "seat": s,
                "label": name(s),
                "role": r,
                "faction": f.factions.get(s),
                "won": s in f.winners,
            }
            for s, r in sorted(f.roles.items())
        ],
    }


def _forum_panel(knowledge: Knowledge) -> dict[str, Any] | None:
    """The forum's channels as the seat has them: its private conversations, the latest
    newspaper edition, the testaments delivered to it (the fold's records of its own
    stream; the latest 40 messages)."""
    k = knowledge
    if not k.messages and k.newspaper is None and not k.testaments:
        return None
    messages = [
        {
            "from": name(m.fact.sender),
            "to": [name(r) for r in m.fact.recipients],
            "text": m.fact.text,
            "day": m.entry.day,
            "phase": m.entry.phase,
        }
        for m in k.messages[-40:]
    ]
    edition: dict[str, Any] | None = None
    if (f := k.newspaper) is not None:
        ads = [{"pseudonym": p, "text": t} for p, t in zip(f.pseudonyms, f.texts, strict=True)]
        edition = {"edition": f.edition, "ads": ads}
    testaments = [
        {"author": name(t.fact.author), "text": t.fact.text, "public": t.fact.public}
        for t in k.testaments
    ]
    return {"messages": messages, "newspaper": edition, "testaments": testaments}


def _players(k: Knowledge, roster: list[SeatInfo], me: int | None) -> list[dict[str, Any]]:
    """The player list as this knowledge shows it: alive, player states, the cards it
    knows (`known_role`; a spectator's fold, seat -1, knows only revealed ones)."""
    players = []
    for info in roster:
        entry = info.to_json()
        entry["alive"] = k.alive[info.seat] if k.alive else True
        if k.states:
            entry["state"] = k.states[info.seat]
        entry["role"] = known_role(k, info.seat)
        entry["you"] = info.seat == me
        players.append(entry)
    return players


def snapshot(
    view: View,
    variant: Variant,
    roster: list[SeatInfo],
    turn: Turn | None,
    names: DisplayNames,
    why: str = "",
    answered: Answered | None = None,
) -> dict[str, Any]:
    """Everything but the transcript: role card, players, phase, request, votes, and
    the seat's private results, written with `names` (`DisplayNames.of(variant)`, kept
    by the game's session) as its lines are. `why`: the reason the end screen shows
    once the game is over (`_reveal`). `answered`: how the members of the seat's team
    answered a round of picks, which the request for the next round says
    (`views.people_text.team_round_prompt`)."""
    k = view.knowledge
    request = view.request if turn is not None else None
    return {
        "you": _card(view, variant),
        **_table(k, variant, roster, view.seat),
        "request": None
        if request is None or turn is None
        else {
            "turn": turn.turn,
            "kind": request.kind,
            "prompt": people_prompt(request, k, variant, answered),
            "options": list(request.labels),
            "keys": [c.key for c in request.choices],
            "free_text": request.free_text,
            "max_chars": request.max_chars,
            # the timed phase a Palermo turn belongs to (the phases after the first of
            # a day or night announce nothing, so the seat's last event may be older)
            "phase": request.info.get("phase"),
            # a Palermo turn's moment for the header, in the prompt's words ("early
            # night 1": `views.words.palermo_when`); None in other variants
            "when": palermo_when(request.info.get("phase"), k.day)
            if variant.palermo is not None
            else None,
            "seconds_left": round(turn.seconds_left, 1),
            "last_call": turn.last_call,
            **_forum_request(request),
        },
        **_panels(k, names, why),
        "results": [people_line(o.entry, k.seat, names, variant) for o in k.outcomes],
    }


def _forum_request(request: Request) -> dict[str, Any]:
    """A forum turn's extra field: the seat's own pseudonyms (its request's info), for
    the ads and transfers the page offers beside the listed forms
    (`agents.human.written_act`); nothing for other turns."""
    if request.kind != FORUM_KIND:
        return {}
    return {"pseudonyms": owned_pseudonyms(request)}


def public_snapshot(
    knowledge: Knowledge,
    variant: Variant,
    roster: list[SeatInfo],
    names: DisplayNames,
    why: str = "",
) -> dict[str, Any]:
    """What a spectator sees: the public events only (`knowledge` is the fold of a seat
    that no private event admits), so no card but the publicly revealed ones, no
    channel, no request; the same fields as `snapshot` where they exist (`why` too)."""
    return {
        "you": None,
        "spectator": True,
        **_table(knowledge, variant, roster, None),
        "request": None,
        **_panels(knowledge, names, why),
        "results": [],
    }


def _table(
    k: Knowledge, variant: Variant, roster: list[SeatInfo], me: int | None
) -> dict[str, Any]:
    """The fields a seat's page and a spectator's share: variant, players, phase."""
    return {
        "variant": {"name": variant.name, "title": variant.title},
        "role_titles": role_titles(variant),
        "composition": dict(k.composition),
        "players": _players(k, roster, me),
        "phase": k.phase,
        "day": k.day,
        "over": k.over,
        "winner": k.winner,
    }


def _panels(k: Knowledge, names: DisplayNames, why: str = "") -> dict[str, Any]:
    """The vote, forum and reveal panels, from the knowledge alone (and the variant's
    public names; `why`, the end's reason, public once the game is over)."""
    return {
        "votes": _vote_panel(k, names),
        "forum": _forum_panel(k),
        "reveal": _reveal(k, why) if k.over else None,
    }
