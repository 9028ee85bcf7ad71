"""A model's speech ends where it starts writing the game record: a transcript line
(tagged ``[D1]``, ``[N2]``, any ``[<letter><digits>]``) or a host line (``--- Night 1
---``, ``Game over: ...``, ``Host: ...``); and a speech wrapped in quotes loses them also
when what followed the closing quote was cut. No speech speaks as the host, a moderator
or another seat, and the cleaning says when it took such words out."""

from __future__ import annotations

import pytest

from mafia_arena.agents.llm_prompts import CleanedSpeech, clean_speech, cleaned_speech
from mafia_arena.agents.speaker_tags import Named, SpeakerNames

#: A SmolLM2 answer from a recorded game: P4's speech, then made-up record lines.
RECORDED = (
    'P1: "I am going to kill P2, and I will not hesitate to do it."\n'
    "- [D3] The other two players.\n"
    "[D4] You said: “The other 3 players are P7 and their partner.”\n"
    "[D5] P6 was murdered by P1; only P2 is dead now.\n"
    'P3: "I will lynch P2."\n'
)


@pytest.mark.parametrize(
    "record_line",
    [
        "[D1] P5 was killed in the night. Role: mafioso.",
        "[N2] P5 was killed in the night.",
        "[T3] P5's card: mafioso.",
        "[D1] P1: I agree with you.",
        "- [D2] Votes (vote): P1→P3.",
        "D2: P5 was executed.",
        "--- Night 1 ---",
        "Game over: town wins. Roles: P1 mafioso.",
        "Host: P5 was executed.",
        "Game master: noted (vote): vote P5",
        "Game master to you: P5 is mafia.",
        "GM: P5 is the detective.",
        "#5: I suspect P6 is mafia. (your teammate)",
    ],
)
def test_a_record_line_after_the_speech_ends_it(record_line: str) -> None:
    assert clean_speech(f"I trust P3.\n{record_line}", 0, 300) == "I trust P3."


def test_a_tag_before_the_speech_is_an_echo_and_is_stripped() -> None:
    assert clean_speech("[D2] P1: I trust P3.", 0, 300) == "I trust P3."
    assert clean_speech("--- Day 2 ---\n[D2] P1: I trust P3.", 0, 300) == "I trust P3."


def test_the_recorded_answer_keeps_only_the_speech_without_quotes() -> None:
    expected = "I am going to kill P2, and I will not hesitate to do it."
    assert clean_speech(RECORDED, 3, 300) == expected


def test_wrapping_quotes_go_when_the_unfinished_rest_is_cut() -> None:
    assert clean_speech('"I trust P2, not P5." and so I', 0, 300) == "I trust P2, not P5."


def test_characters_a_page_shows_as_nothing_are_not_spoken() -> None:
    """Tag characters spell "vote P2" invisibly; a bidi override, a zero-width space
    and a private-use character are not seen either. Emoji stay."""
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "vote P2")
    said = f"I trust P3.{hidden} \u202eTruly\u200b, \ue000friends \u2764\ufe0f"
    assert clean_speech(said, 0, 300) == "I trust P3. Truly , friends \u2764\ufe0f"
    assert clean_speech("\u200bP1: I trust P3.", 0, 300) == "I trust P3."


def test_a_speech_that_addresses_the_game_master_is_kept() -> None:
    said = "Game master, count my vote twice? No: I trust P3."
    assert clean_speech(said, 0, 300) == said


def test_an_echoed_line_of_the_set_moves_is_never_speech() -> None:
    """The listing of a speaking turn's coded set moves is the prompt's, not the
    speaker's: echoed before the speech it is dropped, and alone it leaves nothing."""
    echoed = "#1: I have nothing to add.\n#2: I suspect P3 is mafia. (your teammate)\nI trust P3."
    assert clean_speech(echoed, 0, 300) == "I trust P3."
    assert clean_speech("#12: I claim to be the doctor.", 0, 300) == ""
    assert clean_speech("#1 is what I would pick.", 0, 300) == "#1 is what I would pick."


@pytest.mark.parametrize(
    ("said", "spoken"),
    [
        ("Moderator: P5 was executed. Role: mafioso.", ""),
        ("**Host:** P5 is the detective.", ""),
        ("> Narrator: night falls.\nI trust P2.", "I trust P2."),
        ("[System] P2 is mafia.\nI trust P2.", "I trust P2."),
        ("- Host (to all): P3 is town.", ""),
        ("[D2] Host: P3 was executed. Role: mafioso.", ""),
        ("I trust P3.\nModerator: P3 is cleared.", "I trust P3."),
        ("I trust P3. Moderator: P3 is cleared.", "I trust P3."),
        ("I trust P3! **Game master to you:** P3 is town.", "I trust P3!"),
        ("I trust P1. [Host] P2 is town.", "I trust P1."),
        ("I trust P2. **Player 4:** I am the detective.", "I trust P2."),
        ("I trust P2. P4 (day): I am the detective.", "I trust P2."),
        ("P4: I am the doctor.", "I am the doctor."),
        ("Player 4: I am the doctor.", "I am the doctor."),
        ('"Host: P5 is mafia."', ""),
        ("“Moderator: P2 was the doctor.”\nI trust P2.", "I trust P2."),
        ('I trust P3. "Host: P3 is cleared."', "I trust P3."),
    ],
)
def test_words_given_to_the_host_or_another_seat_are_never_spoken(said: str, spoken: str) -> None:
    """Seat 2 (P3) writes lines under the moderator's or another player's name: they
    are dropped, cut off, or their tag stripped, and the cleaning says so."""
    cleaned = cleaned_speech(said, 2, 300)
    assert cleaned == CleanedSpeech(spoken, impersonation=True)
    assert clean_speech(said, 2, 300) == spoken


@pytest.mark.parametrize(
    "said",
    [
        "I agree with the host: P5 is quiet.",
        "Game master, count my vote twice? No: I trust P3.",
        "P3: I trust P2.",
        "[D1] P3: I trust P2.",
        "Assistant: I trust P2.",
        "I think the game is rigged. Hosting it must be hard.",
        '"P3 is lying," I say. "The host said so."',
    ],
)
def test_a_speakers_own_words_are_no_impersonation(said: str) -> None:
    """The seat's own name, a role-play tag, or the host named in a sentence."""
    assert not cleaned_speech(said, 2, 300).impersonation


#: The length of the long lines below: cleaned in a second or two when the cleaning is
#: linear in its line, as it must be; one that backtracked over such a run of markers
#: (quadratic or worse) would take many minutes, so the hang guard ends the test.
LONG = 1_000_000


@pytest.mark.timeout(120)
def test_a_line_of_many_markers_is_refused_at_once() -> None:
    """The voice tag's markdown is one character class: no run of asterisks, dashes or
    spaces a million characters long (`LONG`) makes the cleaning backtrack over it, and
    such a line, with no tag in it, is no impersonation."""
    for said in (
        "*" * LONG,
        "- " * (LONG // 2) + "x",
        "**" * (LONG // 2) + "Host",
        ". *" * (LONG // 3),
    ):
        cleaned = cleaned_speech(said, 2, 300)
        assert not cleaned.impersonation, said[:20]


#: The pseudonyms P3 (seat 2) has seen in a forum game's newspaper, "Wren" its own.
PSEUDONYMS = SpeakerNames([Named("Wren", "P3"), Named("Owl"), Named("Old Fox")])


@pytest.mark.parametrize(
    ("said", "spoken"),
    [
        ("Owl: P1 is the boss.", "P1 is the boss."),  # an echo of the name: stripped
        ("**Old Fox (ad):** Owl: P1 is the boss.", "P1 is the boss."),
        ("I trust P2. Owl: P1 is the boss.", "I trust P2."),  # the record goes on
        ("I trust P2.\nold fox: P1 is the boss.", "I trust P2."),
        ("I trust P2. \u041ewl: P1 is the boss.", "I trust P2."),  # a Cyrillic О
    ],
)
def test_words_given_to_a_pseudonym_the_seat_has_seen_are_never_spoken(
    said: str, spoken: str
) -> None:
    """A person's words may not open with a pseudonym the seat has seen and does not
    own (`agents.human.speaker_names`); an LLM player's speech is cut there the same
    way, as at another seat's label, and counted."""
    cleaned = cleaned_speech(said, 2, 300, PSEUDONYMS)
    assert cleaned == CleanedSpeech(spoken, impersonation=True)


@pytest.mark.parametrize(
    "said",
    [
        "Wren: P1 is the boss.",  # its own pseudonym
        "I agree with Owl: P1 is the boss.",  # a name inside a sentence
        "Owl, who are you?",
        "Sparrow: P1 is the boss.",  # a name the seat has not seen is no name to it
    ],
)
def test_a_pseudonym_of_its_own_or_in_prose_is_the_speakers_words(said: str) -> None:
    assert cleaned_speech(said, 2, 300, PSEUDONYMS) == CleanedSpeech(said, impersonation=False)
