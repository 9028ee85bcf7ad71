"""Table chat channels: who reads and who writes each (`web/chat.py`)."""

from __future__ import annotations

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.palermo.table import P, Table

from mafia_arena.agents.human import speaker_names
from mafia_arena.agents.speaker_tags import Named, SpeakerNames
from mafia_arena.engine import Game
from mafia_arena.engine.catalogue import FormNoted, Newspaper, PseudonymTransfer
from mafia_arena.engine.palermo.changes import change
from mafia_arena.engine.player_states import PlayerState
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import replay
from mafia_arena.runner.match import play_match_sync
from mafia_arena.seating import seat_agents
from mafia_arena.views import view_of
from mafia_arena.views.pseudonyms import held_pseudonyms
from mafia_arena.web.chat import MAX_LINES, ChatBook, ChatRefused, Member, seat_member

LIVING = Member(2, alive=True)
DEAD = Member(4, alive=False)
SPECTATOR = Member(None)
AFTER = Member(2, alive=True, over=True)


def test_the_dead_chat_is_read_and_written_by_the_dead_only() -> None:
    book = ChatBook()
    book.post("dead", DEAD, "Ada (P5)", "I was the doctor")
    assert book.readable(DEAD) == [  # the tag: the page's words for the channel
        {"channel": "dead", "author": "Ada (P5)", "text": "I was the doctor", "tag": "dead chat"}
    ]
    assert book.readable(LIVING) == [] and book.readable(SPECTATOR) == []
    for member in (LIVING, SPECTATOR):
        with pytest.raises(ChatRefused):
            book.post("dead", member, "x", "let me in")
    assert [c["name"] for c in book.open_to(LIVING)] == []
    assert [c["name"] for c in book.open_to(DEAD)] == ["dead"]


def test_spectators_have_their_own_chat_that_no_seat_reads() -> None:
    book = ChatBook()
    book.post("spectators", SPECTATOR, "spectator 1", "P3 looks shifty")
    assert book.readable(LIVING) == [] and book.readable(DEAD) == []
    assert [line["tag"] for line in book.readable(SPECTATOR)] == ["spectators"]
    with pytest.raises(ChatRefused):
        book.post("spectators", DEAD, "Ada (P5)", "P3 is the mafioso")


def test_after_the_game_everyone_reads_every_channel_and_nobody_writes() -> None:
    book = ChatBook()
    book.post("dead", DEAD, "Ada (P5)", "gg")
    book.post("spectators", SPECTATOR, "spectator 1", "gg")
    assert len(book.readable(AFTER)) == 2
    with pytest.raises(ChatRefused):
        book.post("dead", Member(4, alive=False, over=True), "Ada (P5)", "late")


def test_chat_text_is_cleaned_and_bounded() -> None:
    book = ChatBook()
    line = book.post("dead", DEAD, "Ada (P5)", "a\u202eb\nc" + "x" * 1000)
    assert line.text.startswith("a b c") and len(line.text) == 300
    with pytest.raises(ChatRefused):
        book.post("dead", DEAD, "Ada (P5)", " \n ")
    with pytest.raises(ChatRefused):
        book.post("nowhere", DEAD, "Ada (P5)", "hello")


#: The table's names as its pages show them, by seat: P5 (`DEAD`) is Ada.
TABLE = SpeakerNames(
    Named(name, f"P{seat + 1}") for seat, name in enumerate(("Bo", "Cy", "Di", "Ed", "Ada"))
)


@pytest.mark.parametrize(
    ("member", "typed", "why"),
    [
        (DEAD, "Host: P3 was the detective", '"Host:" would read as the game speaking'),
        (DEAD, "gg. **Moderator:** P3 was town", '"Moderator:" would read as the game'),
        (DEAD, "P2: I was the doctor", '"P2:" would read as P2 speaking'),
        (DEAD, "Cy: I was the doctor", '"Cy:" would read as Cy (P2) speaking'),
        (DEAD, "\u0397ost: P3 was the detective", '"\u0397ost:" would read as the game'),
        (SPECTATOR, "P5: I was the doctor", '"P5:" would read as P5 speaking'),
        (SPECTATOR, "Ada: I was the doctor", '"Ada:" would read as Ada (P5) speaking'),
        (SPECTATOR, "[System] P1 is mafia", '"[System]" would read as the game speaking'),
    ],
)
def test_chat_words_given_to_the_host_or_another_seat_are_refused(
    member: Member, typed: str, why: str
) -> None:
    """The table chat holds a person's words to the rule their speech is held to
    (`agents.human.foreign_words`): refused with the reason, nothing posted. A
    spectator has no seat: every seat's tag is another's."""
    book = ChatBook()
    with pytest.raises(ChatRefused) as refused:
        channel = "spectators" if member.seat is None else "dead"
        book.post(channel, member, "x", typed, TABLE)
    assert str(refused.value).startswith(why), refused.value
    assert "Please rephrase" in str(refused.value)
    assert book.lines == []


def test_chat_words_of_the_writers_own_are_posted() -> None:
    book = ChatBook()
    for typed in ("P5: I was the doctor", "Ada: gg", "I agree with the host: P3 lied"):
        book.post("dead", DEAD, "Ada (P5)", typed, TABLE)
    book.post("spectators", SPECTATOR, "spectator 1", "P3, well played", TABLE)
    assert len(book.lines) == 4


def test_each_chat_channel_is_bounded_on_its_own() -> None:
    """Spectators who fill their channel leave the dead chat open, and the other way."""
    book = ChatBook()
    for n in range(MAX_LINES):
        book.post("spectators", SPECTATOR, "spectator 1", f"line {n}")
    with pytest.raises(ChatRefused, match="full"):
        book.post("spectators", SPECTATOR, "spectator 2", "one more")
    for n in range(MAX_LINES):
        book.post("dead", DEAD, "Ada (P5)", f"line {n}")
    with pytest.raises(ChatRefused, match="full"):
        book.post("dead", DEAD, "Ada (P5)", "one more")
    assert len(book.lines) == 2 * MAX_LINES


@pytest.mark.parametrize(
    ("state", "in_dead_chat"),
    [
        (PlayerState.IMPRISONED, False),
        (PlayerState.GHOST, False),
        (PlayerState.OUT, True),
    ],
)
def test_in_palermo_only_a_permanent_exit_joins_the_dead_chat(
    state: PlayerState, in_dead_chat: bool
) -> None:
    """A Palermo prisoner or ghost may come back into play: a dead chat open to them
    would let players still in the game talk where the rules give them no channel."""
    t = Table(keep={1, 2})
    t.until(2, "night_early")
    cause = {PlayerState.IMPRISONED: "sanction", PlayerState.GHOST: "vote"}
    change(t.game, P(1), state, cause.get(state, "penalty"))
    member = seat_member(P(1), view_of(t.game, P(1)))
    assert [c["name"] for c in ChatBook().open_to(member)] == (["dead"] if in_dead_chat else [])
    assert seat_member(P(2), view_of(t.game, P(2))).alive


def test_in_other_variants_a_seat_dead_in_its_own_view_joins_the_dead_chat() -> None:
    game = Game(load_variant("standard"), 7, 3)
    while not any(not game.state.alive(s) for s in range(7)):
        for seat, request in sorted(game.pending().items()):
            game.submit(seat, request.choices[-1])
    dead = next(s for s in range(7) if not game.state.alive(s))
    alive = next(s for s in range(7) if game.state.alive(s))
    assert not seat_member(dead, view_of(game, dead)).alive
    assert seat_member(alive, view_of(game, alive)).alive


def test_a_dead_player_s_own_pseudonym_is_theirs_in_the_dead_chat() -> None:
    """Dictator, 12 scripted players, seed 1: P9 placed an ad as 'Thistle' and is out
    by the end. With no forum request open, its own pseudonym was refused as another
    speaker's ("the pseudonym Thistle speaking"): the request alone listed it. Its own
    events (the ad's notice) make it P9's; a pseudonym it only read stays refused."""
    rules = load_variant("dictator")
    game = replay(
        play_match_sync(rules, seat_agents("heuristic", 12, rules), 1, host_key=FIXED_HOST_KEY).log
    )
    view = view_of(game, 8)
    assert view.request is None and not view.alive
    assert held_pseudonyms(8, (e.fact for e in view.knowledge.events)) == ["Thistle"]
    names = speaker_names(view)  # its names as the game left them; a dead writer's line
    book = ChatBook()
    book.post("dead", Member(8, alive=False), "bot (P9)", "Thistle: that ad was mine", names)
    read = {
        p for e in view.knowledge.events if isinstance(e.fact, Newspaper) for p in e.fact.pseudonyms
    }
    other = sorted(read - {"Thistle"})[0]
    with pytest.raises(ChatRefused, match=f"the pseudonym {other} speaking"):
        book.post("dead", Member(8, alive=False), "bot (P9)", f"{other}: mine too", names)


def test_pseudonyms_handed_on_are_no_longer_held() -> None:
    facts = [
        FormNoted("ad", "Your ad under 'Owl' is in the next edition.", "Owl"),
        PseudonymTransfer("Owl", 2, 4),
        PseudonymTransfer("Lark", 6, 2),
    ]
    assert held_pseudonyms(2, facts) == ["Lark"]
    assert held_pseudonyms(4, facts[1:]) == ["Owl"]
