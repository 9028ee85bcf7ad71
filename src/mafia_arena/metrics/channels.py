"""Channel metrics of the forum game: who writes privately to whom, ads, testaments.

Defined for a game whose log has the forum's channel events (the dictator variant);
None elsewhere. Sides are the seats' final sides (`GameFacts.side_of`).

- ``pm.<a>_to_<b>``: private messages from side a to side b (a group message counts
  once per recipient); ``pm.total``; ``pm.group_share``: the share of messages with more
  than one recipient.
- ``town_partner_mafia``: over town seats with a private partner (anyone they wrote to
  or heard from), the mean share of their partners who are mafia; against it
  ``town_partner_mafia_base``: the mafia share among the other seats, what random
  partners would give.
- ``ads.total``, ``ads.town``, ``ads.mafia``: ads published, by the author's side.
- ``ad_guess.correct`` / ``ad_guess.wrong`` / ``ad_guess.rate``: a post or private
  message that names a published pseudonym and exactly one player guesses that the
  player wrote it; correct when he owned it.
- ``testament.public``, ``testament.private``: testaments delivered; of the players a
  public testament names who were still in the game, ``testament.named_executed``: the
  share executed within the next day, ``testament.named_mafia``: the share who were
  mafia.

Per seat: ``pm_sent``, ``pm_received``, ``ads_placed``.
"""

from __future__ import annotations

import re
from typing import Any

from mafia_arena.engine.catalogue import (
    Death,
    DeliveredTestament,
    FormNoted,
    Newspaper,
    PrivateMessage,
    SpeechMade,
)
from mafia_arena.metrics.facts import MAFIA, TOWN, GameFacts
from mafia_arena.metrics.ratios import ratio

PerSeat = dict[int, dict[str, Any]]
NAMED = re.compile(r"\bP(\d{1,2})\b")


def channels(f: GameFacts) -> tuple[PerSeat, dict[str, Any]]:
    if not any(e.kind in ("private_message", "newspaper", "testament") for e in f.forum):
        return {}, {}
    per_seat: PerSeat = {
        s: {"pm_sent": 0, "pm_received": 0, "ads_placed": 0} for s in range(f.players)
    }
    game: dict[str, Any] = {f"pm.{a}_to_{b}": 0 for a in (TOWN, MAFIA) for b in (TOWN, MAFIA)}
    partners: dict[int, set[int]] = {}
    messages = groups = 0
    owner: dict[str, int] = {}
    published: set[str] = set()
    ads = {TOWN: 0, MAFIA: 0}
    guesses = {"correct": 0, "wrong": 0}
    alive = set(range(f.players))
    named: list[tuple[int, int]] = []  # (day, named seat) from public testaments
    executed: list[tuple[int, int]] = []
    testaments = {"public": 0, "private": 0}
    for event in f.forum:
        fact = event.fact
        if isinstance(fact, PrivateMessage):
            messages += 1
            groups += len(fact.recipients) > 1
            per_seat[fact.sender]["pm_sent"] += 1
            for r in fact.recipients:
                per_seat[r]["pm_received"] += 1
                game[f"pm.{f.side_of(fact.sender)}_to_{f.side_of(r)}"] += 1
                partners.setdefault(fact.sender, set()).add(r)
                partners.setdefault(r, set()).add(fact.sender)
            _guess(fact.text, fact.sender, owner, published, guesses)
        elif isinstance(fact, FormNoted) and fact.form == "ad" and fact.pseudonym:
            author = min(event.visibility.seats)
            owner[fact.pseudonym] = author
        elif isinstance(fact, Newspaper):
            for pseudonym in fact.pseudonyms:
                published.add(pseudonym)
                writer = owner.get(pseudonym)
                if writer is not None:
                    ads[f.side_of(writer)] += 1
                    per_seat[writer]["ads_placed"] += 1
        elif isinstance(fact, SpeechMade) and fact.kind == "post":
            _guess(fact.text, fact.seat, owner, published, guesses)
        elif isinstance(fact, DeliveredTestament):
            testaments["public" if fact.public else "private"] += 1
            if fact.public:
                for match in NAMED.finditer(fact.text):
                    seat = int(match.group(1)) - 1
                    if seat in alive and seat != fact.author:
                        named.append((event.day, seat))
        elif isinstance(fact, Death):
            alive.discard(fact.seat)
            if fact.cause == "execution":
                executed.append((event.day, fact.seat))
    game["pm.total"] = messages
    game["pm.group_share"] = ratio(groups, messages)
    town = [s for s in partners if f.side_of(s) == TOWN]
    shares = [
        ratio(sum(f.side_of(p) == MAFIA for p in partners[s]), len(partners[s])) for s in town
    ]
    game["town_partner_mafia"] = ratio(sum(x for x in shares if x is not None), len(shares))
    mafia = len(f.seats_on(MAFIA))
    game["town_partner_mafia_base"] = ratio(mafia, f.players - 1) if town else None
    game["ads.total"] = ads[TOWN] + ads[MAFIA]
    game["ads.town"], game["ads.mafia"] = ads[TOWN], ads[MAFIA]
    game["ad_guess.correct"], game["ad_guess.wrong"] = guesses["correct"], guesses["wrong"]
    game["ad_guess.rate"] = ratio(guesses["correct"], guesses["correct"] + guesses["wrong"])
    game["testament.public"], game["testament.private"] = (
        testaments["public"],
        testaments["private"],
    )
    hits = sum(any(d in (day, day + 1) and s == seat for d, s in executed) for day, seat in named)
    game["testament.named_executed"] = ratio(hits, len(named))
    game["testament.named_mafia"] = ratio(sum(f.side_of(s) == MAFIA for _, s in named), len(named))
    return per_seat, game


def _guess(
    text: str, writer: int, owner: dict[str, int], published: set[str], guesses: dict[str, int]
) -> None:
    """A text naming a published pseudonym and exactly one other player is a guess."""
    players = {int(m.group(1)) - 1 for m in NAMED.finditer(text)} - {writer}
    if len(players) != 1:
        return
    for pseudonym in published:
        if pseudonym.casefold() in text.casefold():
            correct = owner.get(pseudonym) in players
            guesses["correct" if correct else "wrong"] += 1
