"""The style presets: registered names, and the behaviour each style promises."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cache

import pytest

from mafia_arena.agents.heuristic import STYLES, HeuristicAgent
from mafia_arena.agents.heuristic.rulebook import rulebook
from mafia_arena.agents.heuristic.suspicion import evil_looks
from mafia_arena.agents.registry import make_agent, scripted_agent_names
from mafia_arena.engine.catalogue import GameEnded, NightAction, PrivateMessage, SpeechMade
from mafia_arena.engine.choices import Choice
from mafia_arena.rules import load_variant
from mafia_arena.runner.match import play_match_sync
from mafia_arena.seating import seat_agents
from mafia_arena.speech.claims import extract_claims

PRESETS = ("heuristic", "heuristic:liar", "heuristic:quiet", "heuristic:aggressive")
GAMES = 30
KEY = b"test_styles host key, fixed: 32b"  # fixed seat seeds: the counts replay exactly


@dataclass
class Talk:
    """What one preset said over `GAMES` all-preset games, counted by side."""

    speeches: int = 0
    texts: set[str] = field(default_factory=set)
    claims: Counter[tuple[str, str]] = field(default_factory=Counter)  # (side, kind)
    false_roles: Counter[str] = field(default_factory=Counter)
    false_results: Counter[str] = field(default_factory=Counter)
    framed_town: int = 0
    first_claim_days: list[int] = field(default_factory=list)
    day_one_accused: list[int] = field(default_factory=list)  # distinct names per game
    day_one_echo: list[float] = field(default_factory=list)
    """Per game: the share of the seats accusing in the day-1 discussion (each seat's
    first accusation there) that named the most-named seat."""
    shots: Counter[str] = field(default_factory=Counter)  # sheriff shots by target's side


@cache
def talk(preset: str, variant_name: str = "standard", players: int = 7) -> Talk:
    variant = load_variant(variant_name)
    book = rulebook(variant)
    looks = evil_looks(book)
    out = Talk()
    for seed in range(GAMES):
        agents = [make_agent(preset) for _ in range(players)]
        result = play_match_sync(variant, agents, seed, host_key=KEY)
        over = next(e.fact for e in result.log.events if isinstance(e.fact, GameEnded))
        roles = dict(over.roles)
        side = {s: book.side_of_role(r) for s, r in roles.items()}
        accused_day_one: dict[int, int | None] = {}
        discussed: dict[int, int] = {}
        claimed: set[int] = set()
        for event in result.log.events:
            fact = event.fact
            if isinstance(fact, NightAction) and fact.step == "sheriff_shoot":
                for key in fact.choices:
                    target = Choice.parse(key).target
                    if target is not None:
                        out.shots[side[target]] += 1
            if not isinstance(fact, SpeechMade) or event.visibility.scope != "public":
                continue
            out.speeches += 1
            out.texts.add(fact.text)
            me = side[fact.seat]
            for claim in extract_claims(fact.text, variant.roles):
                out.claims[(me, claim.kind)] += 1
                if claim.kind == "claim_role":
                    out.false_roles[me] += claim.value != roles[fact.seat]
                    if fact.seat not in claimed:
                        claimed.add(fact.seat)
                        out.first_claim_days.append(event.day)
                if claim.kind == "claim_result" and claim.target is not None:
                    truth = book.appearance(roles[claim.target])
                    said_evil, is_evil = claim.value in looks, truth in looks
                    out.false_results[me] += said_evil != is_evil
                    out.framed_town += me != "town" and said_evil and side[claim.target] == "town"
                if claim.kind == "accuse" and event.day == 1:
                    accused_day_one.setdefault(fact.seat, claim.target)  # first accusation
                    if fact.kind == "discussion" and claim.target is not None:
                        discussed.setdefault(fact.seat, claim.target)
        out.day_one_accused.append(len(set(accused_day_one.values())))
        if discussed:
            top = Counter(discussed.values()).most_common(1)[0][1]
            out.day_one_echo.append(top / len(discussed))
    return out


def test_every_preset_is_an_agent_name_with_its_own_name() -> None:
    names = scripted_agent_names()
    for preset in PRESETS:
        assert preset in names and preset in STYLES
        agent = make_agent(preset)
        assert isinstance(agent, HeuristicAgent) and agent.name == preset
    side_seated = seat_agents(
        "town=heuristic:quiet,mafia=heuristic:liar", 7, load_variant("standard")
    )
    assert side_seated[0].name == "town=heuristic:quiet,mafia=heuristic:liar"


@pytest.mark.parametrize("preset", PRESETS)
def test_no_preset_ever_lies_as_town(preset: str) -> None:
    said = talk(preset)
    assert said.false_roles["town"] == 0 and said.false_results["town"] == 0
    assert said.claims[("town", "claim_role")] > 0  # town investigators do come out


def test_the_liar_fakes_roles_and_results_and_frames_town_players() -> None:
    said = talk("heuristic:liar")
    assert said.false_roles["mafia"] >= GAMES * 2 // 3
    assert said.framed_town >= GAMES * 2 // 3
    assert said.false_results["mafia"] > talk("heuristic").false_results["mafia"]


def test_the_balanced_mafia_lie_now_and_then_and_the_quiet_mafia_never() -> None:
    balanced, quiet = talk("heuristic"), talk("heuristic:quiet")
    assert 0 < balanced.false_roles["mafia"] < talk("heuristic:liar").false_roles["mafia"]
    assert quiet.false_roles["mafia"] == 0 and quiet.claims[("mafia", "claim_result")] == 0


def test_the_quiet_style_says_less_and_never_vouches() -> None:
    quiet, balanced = talk("heuristic:quiet"), talk("heuristic")
    quiet_accusations = quiet.claims[("town", "accuse")] + quiet.claims[("mafia", "accuse")]
    balanced_accusations = (
        balanced.claims[("town", "accuse")] + balanced.claims[("mafia", "accuse")]
    )
    assert quiet_accusations < balanced_accusations
    town_vouches = quiet.claims[("town", "vouch")]
    # a quiet player's only "vouch" readings are its innocent check results
    assert town_vouches <= quiet.claims[("town", "claim_result")]


def test_the_aggressive_style_accuses_more_and_comes_out_sooner() -> None:
    aggressive, balanced = talk("heuristic:aggressive"), talk("heuristic")
    per_speech = {
        name: (t.claims[("town", "accuse")] + t.claims[("mafia", "accuse")]) / t.speeches
        for name, t in (("aggressive", aggressive), ("balanced", balanced))
    }
    assert per_speech["aggressive"] > per_speech["balanced"]
    mean = {
        name: sum(t.first_claim_days) / len(t.first_claim_days)
        for name, t in (("aggressive", aggressive), ("balanced", balanced))
    }
    assert mean["aggressive"] < mean["balanced"]


def test_the_first_day_accusations_do_not_echo_one_name() -> None:
    said = talk("heuristic")
    assert sum(n >= 2 for n in said.day_one_accused) >= GAMES * 2 // 3
    # a big club table: before any evidence, hunches stay each seat's own (no pile-on
    # on the first name spoken; once more than nine in ten of the accusers named one seat)
    club = talk("heuristic", "club", 26)
    echo = club.day_one_echo
    assert len(echo) == GAMES
    assert sum(echo) / len(echo) < 0.4, echo
    assert sum(share >= 0.9 for share in echo) <= GAMES // 10, echo


def test_the_club_sheriff_shoots_on_a_strong_read_and_rarely_hits_town() -> None:
    """An optional shot on a hunch was a town player in four shots of ten at 26 seats;
    with evidence behind every shot it is one in three at most."""
    shots = talk("heuristic", "club", 26).shots
    fired = sum(shots.values())
    assert fired >= 10, shots
    assert shots["town"] / fired <= 0.3, shots


@pytest.mark.parametrize("preset", PRESETS)
def test_speech_varies(preset: str) -> None:
    said = talk(preset)
    assert len(said.texts) >= said.speeches // 5


SEAT_NAME = re.compile(r"\bP\d+\b")


@dataclass
class Said:
    """What the balanced heuristic wrote over a few all-heuristic forum or Palermo
    games, by channel ("public", a team channel, "private"), each text with its
    seat names replaced by ``P#`` (the sentence, whoever it names)."""

    sentences: dict[str, list[str]] = field(default_factory=dict)
    by_seat: dict[tuple[str, int, int], list[str]] = field(default_factory=dict)
    """(channel, game, seat) → that seat's sentences in that game, in order."""

    def add(self, channel: str, game: int, seat: int, text: str) -> None:
        sentence = SEAT_NAME.sub("P#", text)
        self.sentences.setdefault(channel, []).append(sentence)
        self.by_seat.setdefault((channel, game, seat), []).append(sentence)


@cache
def said_in(variant_name: str, players: int = 12, games: int = 8) -> Said:
    variant = load_variant(variant_name)
    out = Said()
    for seed in range(games):
        agents = [make_agent("heuristic") for _ in range(players)]
        result = play_match_sync(variant, agents, seed, host_key=KEY)
        for event in result.log.events:
            fact = event.fact
            if isinstance(fact, SpeechMade):
                channel = event.visibility.channel if event.visibility.scope != "public" else None
                out.add(channel or "public", seed, fact.seat, fact.text)
            elif isinstance(fact, PrivateMessage):
                out.add("private", seed, fact.sender, fact.text)
    return out


@pytest.mark.parametrize(
    ("variant_name", "channel", "at_least"),
    [
        ("palermo", "public", 12),
        ("palermo", "mafia", 6),
        ("dictator", "public", 12),
        ("dictator", "private", 15),
    ],
)
def test_palermo_and_forum_speech_varies(variant_name: str, channel: str, at_least: int) -> None:
    """Many sentences per channel (the canned speech had 1 to 5), and no seat says the
    same sentence in two posts running."""
    said = said_in(variant_name)
    sentences = said.sentences[channel]
    assert len(sentences) >= 5 * at_least  # enough speech for the count to mean something
    assert len(set(sentences)) >= at_least, sorted(set(sentences))
    if channel == "private":
        return  # replies to several writers in one phase may share a sentence
    for (where, _, seat), posts in said.by_seat.items():
        if where == channel:
            repeats = [a for a, b in itertools.pairwise(posts) if a == b]
            assert not repeats, (seat, repeats)
