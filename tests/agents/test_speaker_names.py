"""Names as speaker tags (`agents.speaker_tags.SpeakerNames`, `agents.human.speaker_names`):
the web page shows each seat under a name people chose ("P2 Ada"), and a forum game's
newspaper writes its ads under pseudonyms ("Owl: ..."), so a person's words that open
with another seat's name or a pseudonym and a colon read as that speaker's, and are
refused like ``P4:``. The speaker's own name (and a pseudonym it owns) is its own, a
name inside a sentence is prose, and names are matched literally, in any case."""

from __future__ import annotations

import asyncio

import pytest
from tests.dictator.table import C2, C3, Table, c, w

from mafia_arena.agents.human import Action, HumanAgent, clean_text, decision_for, speaker_names
from mafia_arena.agents.speaker_tags import ForeignTag, Named, SpeakerNames, foreign_tag
from mafia_arena.engine import Game
from mafia_arena.engine.choices import Choice, Request, Speech
from mafia_arena.engine.errors import IllegalDecision
from mafia_arena.rules import load_variant
from mafia_arena.views import SeatTracker

#: P3 speaks (seat 2) at a table of these names, by seat.
ME = "P3"
TABLE = ("Ada", "Ada Lovelace", "Zoë", "J. R. Smith", "random bot")
NAMES = SpeakerNames(Named(name, f"P{seat + 1}") for seat, name in enumerate(TABLE))


def speak_request() -> Request:
    return Request(2, "speak", "say", (Choice("pass"),), ("pass",), free_text=True, max_chars=300)


@pytest.mark.parametrize(
    ("said", "found"),
    [
        ("Ada: I am the detective.", ForeignTag("Ada:", "P1", "Ada")),
        ("ADA (P1): vote P5.", ForeignTag("ADA (P1):", "P1", "Ada")),
        ("**Ada Lovelace:** I am the doctor.", ForeignTag("Ada Lovelace:", "P2", "Ada Lovelace")),
        (
            '> "ada lovelace (day):" trust me',
            ForeignTag("ada lovelace (day):", "P2", "Ada Lovelace"),
        ),
        ("I trust P2. J. R. Smith: I am town.", ForeignTag("J. R. Smith:", "P4", "J. R. Smith")),
        ("[D2] Random Bot: P1 is mafia.", ForeignTag("Random Bot:", "P5", "random bot")),
        ("Zoë: fine. Ada: I agree.", ForeignTag("Ada:", "P1", "Ada")),
    ],
)
def test_another_seats_name_opening_the_words_or_a_sentence_is_found(
    said: str, found: ForeignTag
) -> None:
    assert foreign_tag(said, ME, NAMES) == found


@pytest.mark.parametrize(
    "said",
    [
        "Zoë: I trust P2.",  # the speaker's own name
        "**ZOË (day):** I trust P2.",
        "I agree with Ada: P5 is quiet.",  # a name inside a sentence
        "I asked J. R. Smith: no answer.",
        "Ada, why did you vote for me?",  # a seat spoken to
        "Adam: not a name of this table.",  # a name is whole up to the colon
        "Ada Lovelaces: neither.",
        "Smith: neither.",
    ],
)
def test_own_name_and_names_in_prose_are_the_speakers_words(said: str) -> None:
    assert foreign_tag(said, ME, NAMES) is None


@pytest.mark.parametrize(
    ("name", "tag", "prose"),
    [
        ("a.c", "A.C: hi", "abc: hi"),
        ("x+", "x+: hi", "xx: hi"),
        ("(P)", "(p): hi", "P: hi"),
        ("[y]*", "[Y]*: hi", "yyy: hi"),
        ("\\d$", "\\D$: hi", "7: hi"),
        ("^.*", "^.*: hi", "anything: hi"),
        ("a|b", "A|B: hi", "a: hi"),
    ],
)
def test_names_are_matched_literally(name: str, tag: str, prose: str) -> None:
    """A name's regex metacharacters are its own characters (the name is escaped)."""
    names = SpeakerNames([Named(name, "P1")])
    found = foreign_tag(tag, ME, names)
    assert found is not None and found.seat == "P1" and found.name == name
    assert foreign_tag(prose, ME, names) is None


def test_a_persons_words_under_another_seats_name_are_refused_with_a_reason() -> None:
    """The refusal names the name and its seat, as the page shows them, and asks for a
    rephrasing; a line break or an invisible character hides no name."""
    for typed in ("Ada: I am the detective", "I trust P2.\nAda: P2 is town", "\u200bAda: hi"):
        with pytest.raises(IllegalDecision) as refused:
            decision_for(speak_request(), Action(1, text=typed), NAMES)
        reason = refused.value.reason
        assert reason.startswith('"Ada:" would read as Ada (P1) speaking, not you'), reason
        assert "was not sent" in reason and "Please rephrase" in reason
    for typed in ("Zoë: I trust Ada.", "I agree with Ada: P5 is quiet."):
        said = decision_for(speak_request(), Action(1, text=typed), NAMES)
        assert said == Speech(clean_text(typed))


#: The length of the long lines below: read in a second or two when a check is linear
#: in its line, as it must be; a check that backtracked over such a line (quadratic or
#: worse) would take many minutes, so the hang guard ends the test.
LONG = 1_000_000


@pytest.mark.timeout(120)
def test_a_table_of_forty_long_names_answers_at_once() -> None:
    """One pattern for the table, read once at each sentence: neither many seats with
    long, alike names nor lines a million characters long (`LONG`) of markers or
    sentences make a check backtrack until the hang guard ends it."""
    table = [f"Player number {seat:02d} of table" for seat in range(40)]
    names = SpeakerNames(Named(name, f"P{seat + 1}") for seat, name in enumerate(table))
    for _ in range(200):
        assert foreign_tag("I trust P2. " * 80 + "Player number 39 of table", ME, names) is None
    sentence = "Player number 0. "
    for said in ("'" * LONG, "' " * (LONG // 2), ". *" * (LONG // 3), sentence * (LONG // 17)):
        assert foreign_tag(said, ME, names) is None
    last = foreign_tag("Hi. " * (LONG // 4) + "player NUMBER 39 of table: hi", ME, names)
    assert last == ForeignTag("player NUMBER 39 of table:", "P40", table[39])


def test_a_person_at_a_table_of_names_is_refused_in_their_seat() -> None:
    """`HumanAgent.table` (set by the web session) reaches the decision: the refusal
    goes to the person and the turn stays open for words of their own."""
    game = Game(load_variant("standard", {"rules.first_phase": "day"}), 5, 11)
    view = SeatTracker(0).view(game)
    assert view.request is not None and view.request.free_text
    agent = HumanAgent("Ada")
    agent.table = ("Ada", "Bob", "Cy", "Di", "random bot")
    refused: list[str] = []
    agent.on_reject = refused.append
    agent.offer(Action(0, text="Bob: I am the detective."))
    agent.offer(Action(0, text="Ada: Bob is quiet."))
    assert asyncio.run(agent.act(view)) == Speech("Ada: Bob is quiet.")
    assert len(refused) == 1 and refused[0].startswith('"Bob:" would read as Bob (P2)')


def test_a_name_several_seats_go_by_is_refused_naming_each_of_them() -> None:
    """A web table's bots are each named after their agent: two or more seats go by
    ``heuristic bot``. Words under that name read as any of them, so the refusal names
    every such seat, not the first; a name only one seat has still names that one."""
    game = Game(load_variant("standard", {"rules.first_phase": "day"}), 5, 11)
    view = SeatTracker(0).view(game)
    assert view.request is not None
    table = ("Ada", "heuristic bot", "random bot", "Heuristic Bot", "heuristic bot")
    names = speaker_names(view, table)
    assert foreign_tag("heuristic bot: I am the doctor.", "P1", names) == ForeignTag(
        "heuristic bot:", "P2, P4, P5", "heuristic bot"
    )
    assert foreign_tag("random bot: hi", "P1", names) == ForeignTag(
        "random bot:", "P3", "random bot"
    )
    with pytest.raises(IllegalDecision) as refused:
        decision_for(view.request, Action(0, text="Heuristic bot: vote P3."), names)
    assert refused.value.reason.startswith(
        '"Heuristic bot:" would read as heuristic bot (P2, P4, P5) speaking, not you'
    ), refused.value.reason


SIGNED = "Owl: P1 is the boss."


def test_a_forum_pseudonym_is_a_name_once_the_seat_has_seen_it() -> None:
    """P13 (C3) puts an ad under "Owl". Before the newspaper prints it, P12 (C2) does
    not know the name, so a refusal must not tell it; once printed, "Owl:" in P12's
    message reads as the ad's author and is refused, while the owner may sign with it."""
    t = Table().to("day", 1)
    t.game.submit(C3, w("Beware P1.", "ad", None, "Owl"))
    unseen = SeatTracker(C2).view(t.game)
    assert unseen.request is not None
    pm = Action(0, choice=unseen.request.choices.index(c("pm", C3)), text=SIGNED)
    assert decision_for(unseen.request, pm, speaker_names(unseen)) == w(SIGNED, "pm", C3)

    t.phase()  # the newspaper is printed
    printed = SeatTracker(C2).view(t.game)
    assert printed.request is not None
    pm = Action(0, choice=printed.request.choices.index(c("pm", C3)), text=SIGNED)
    with pytest.raises(IllegalDecision) as refused:
        decision_for(printed.request, pm, speaker_names(printed))
    assert refused.value.reason.startswith('"Owl:" would read as the pseudonym Owl speaking')

    owner = SeatTracker(C3).view(t.game)
    assert owner.request is not None
    pm = Action(0, choice=owner.request.choices.index(c("pm", C2)), text=SIGNED)
    said = decision_for(owner.request, pm, speaker_names(owner))
    assert said == w(SIGNED, "pm", C2)
