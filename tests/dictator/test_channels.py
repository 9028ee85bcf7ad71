"""One test per channel rule: limits, transfer, retirement, delivery, hidden existence.

Hidden existence is checked on what other seats are shown: their own event streams and
the transcript lines rendered from them (what prompts and pages read).
"""

from __future__ import annotations

from typing import Any

from tests.dictator.table import (
    C1,
    C2,
    C3,
    C4,
    C5,
    C6,
    C7,
    C8,
    B,
    F,
    R,
    Table,
    c,
    murder,
    name,
    texts,
    w,
)

from mafia_arena.engine import IllegalDecision, Speech
from mafia_arena.engine.catalogue import (
    Death,
    DeliveredTestament,
    Disqualified,
    Newspaper,
    PrivateMessage,
    PseudonymTransfer,
)
from mafia_arena.views import SeatTracker


def transcript(t: Table, seat: int) -> str:
    return SeatTracker(seat).update(t.game).text()


def test_a_private_message_reaches_its_sender_and_recipient_only() -> None:
    t = Table().to("day", 1)
    t.act(C2, w("I think P1 is the boss.", "pm", C3)).phase()
    for seat in range(18):
        got = [f for f in t.seen(seat) if isinstance(f, PrivateMessage)]
        assert (len(got) == 1) == (seat in (C2, C3)), name(seat)
        assert ("P1 is the boss" in transcript(t, seat)) == (seat in (C2, C3))


def test_a_group_message_reaches_every_member_of_the_group() -> None:
    t = Table().to("night", 0)
    t.act(C2, w("Let us vote together.", "pm", None, f"{C3}.{C4}.{C5}")).phase()
    readers = {s for s in range(18) if any(isinstance(f, PrivateMessage) for f in t.seen(s))}
    assert readers == {C2, C3, C4, C5}


def test_the_eliminated_can_neither_send_nor_receive_private_messages() -> None:
    t = Table().to("day", 1)
    t.act(C1, c("execute", C5)).phase()
    t.refused(C2, c("pm", C5))
    t.refused(C2, w("hello", "pm", None, f"{C3}.{C5}"))
    assert C5 not in t.game.pending()


def test_private_messages_can_be_switched_off() -> None:
    overrides: dict[str, Any] = {"rules.forum.private_messages": False}
    t = Table(**overrides).to("day", 1)
    request = t.game.pending()[C2]
    assert not any(choice.verb == "pm" for choice in request.choices)
    t.refused(C2, w("psst", "pm", C3))


def test_at_most_five_pseudonyms_per_player_and_edition() -> None:
    t = Table().to("day", 1)
    for i in range(5):
        t.act(C2, w(f"ad {i}", "ad", None, f"Name{i}"))
    t.phase()
    assert len(t.last_phase_facts(Newspaper)[0].texts) == 5
    t = Table().to("day", 1)
    for i in range(5):
        t.act(C2, w(f"ad {i}", "ad", None, f"Name{i}"))
    t.act(C2, w("sixth", "ad", None, "Name5"))
    t.phase()
    assert [(s, r) for s, r in t.refusals] == [(C2, "at most 5 pseudonyms per player and edition")]
    assert len(t.last_phase_facts(Newspaper)[0].texts) == 5


def test_one_ad_per_pseudonym_and_edition() -> None:
    t = Table().to("day", 1)
    t.act(C2, w("first", "ad", None, "Phantom"), w("second", "ad", None, "Phantom")).phase()
    assert t.last_phase_facts(Newspaper)[0].texts == ("first",)
    assert t.refusals == [(C2, "one ad per pseudonym and edition: 'Phantom' already has one")]


def test_pseudonyms_are_unique_and_owned() -> None:
    t = Table().to("day", 1)
    t.act(C2, w("mine", "ad", None, "Phantom")).phase().phase()
    t.refused(C3, w("taken", "ad", None, "phantom"))
    t.refused(C3, w("me", "ad", None, "P4"))
    t.refused(C3, w("me", "ad", None, "Spielleiter"))


def test_a_transfer_is_immediate_irrevocable_and_private() -> None:
    t = Table().to("day", 1)
    t.act(C2, w("mine", "ad", None, "Phantom")).phase().phase()
    t.act(C2, w("", "give", C3, "Phantom")).phase()
    told = {s for s in range(18) if any(isinstance(f, PseudonymTransfer) for f in t.seen(s))}
    assert told == {C2, C3}
    t.refused(C2, w("mine again", "ad", None, "Phantom"))
    t.refused(C2, w("", "give", C4, "Phantom"))
    t.act(C3, w("now mine", "ad", None, "Phantom")).phase()
    assert t.last_phase_facts(Newspaper)[0].texts == ("now mine",)


def test_a_dead_owners_pseudonyms_are_retired_and_never_revealed() -> None:
    t = Table().to("day", 1)
    t.act(C2, w("my ad", "ad", None, "Phantom")).phase().phase()
    t.act(C1, c("execute", C2)).phase()
    for seat in range(18):
        assert "Phantom" not in "".join(
            line for line in transcript(t, seat).splitlines() if name(C2) in line
        )
    t.phase()
    t.refused(C3, w("taken over", "ad", None, "Phantom"))


def test_3_1_a_night_ad_is_published_though_its_author_is_murdered_that_night() -> None:
    """Night submissions are simultaneous (3.1, 3.4 lists the ads): the ad is in."""
    t = Table().to("night", 1)
    t.act(C2, w("my night ad", "ad", None, "Phantom"), c("post"))
    t.act(B, murder(C2)).phase()
    assert not t.alive(C2)
    edition = t.last_phase_facts(Newspaper)[0]
    assert (edition.edition, edition.pseudonyms, edition.texts) == (
        "Night 1",
        ("Phantom",),
        ("my night ad",),
    )
    t.refused(C3, w("taken over", "ad", None, "Phantom"))


def test_8_5_6_a_night_ad_is_published_though_its_author_is_disqualified_that_night() -> None:
    """The disqualification comes after the phase's other resolution (8.5.6)."""
    t = Table().to("day", 1)
    t.silent.add(C8)
    t.phase()  # Day 1 silent: warning 1
    t.silent.discard(C8)
    t.phase()  # Night 1 posted: no warning
    t.silent.add(C8)
    t.phase()  # Day 2 silent: warning 2
    t.act(C8, w("still here", "ad", None, "Ghost")).phase()  # Night 2 silent: warning 3
    assert texts(t.last_phase_facts(Disqualified)) == [f"{name(C8)} has been disqualified."]
    edition = t.last_phase_facts(Newspaper)[0]
    assert (edition.edition, edition.pseudonyms) == ("Night 2", ("Ghost",))


def test_an_edition_is_published_at_every_phase_end_in_a_drawn_order() -> None:
    orders = set()
    for seed in range(6):
        t = Table(seed=seed).to("day", 1)
        for seat, pseudonym in ((C2, "Alpha"), (C3, "Beta"), (C4, "Gamma"), (C5, "Delta")):
            t.act(seat, w(pseudonym, "ad", None, pseudonym))
        t.phase()
        editions = t.facts(Newspaper)
        assert [e.edition for e in editions] == ["Night 0", "Day 1"]
        orders.add(editions[-1].pseudonyms)
    assert len(orders) > 1


def test_an_ad_never_names_its_author() -> None:
    t = Table().to("day", 1)
    t.act(C7, c("ad", None, "new")).phase()
    edition = t.last_phase_facts(Newspaper)[0]
    assert len(edition.pseudonyms) == 1
    for seat in range(18):
        if seat == C7:
            continue
        lines = transcript(t, seat)
        assert edition.pseudonyms[0] not in "".join(
            line for line in lines.splitlines() if "Newspaper" not in line
        )


def test_a_testament_changes_once_per_round() -> None:
    t = Table().to("day", 2)
    t.act(C5, w("one", "testament", None, "public")).phase()
    t.refused(C5, w("two", "testament", None, "public"))
    t.phase()
    t.act(C5, w("three", "testament", None, "public")).phase()


def test_a_public_testament_is_published_on_elimination() -> None:
    t = Table().to("day", 1)
    t.act(C5, w("Trust P12.", "testament", None, "public")).act(C1, c("execute", C5)).phase()
    assert [(f.author, f.text, f.public) for f in t.facts(DeliveredTestament)] == [
        (C5, "Trust P12.", True)
    ]


def test_a_private_testament_reaches_only_its_recipients_and_its_existence_stays_hidden() -> None:
    t = Table().to("day", 1)
    t.act(C6, w("P1 is the boss.", "testament", None, f"{C7}.{C8}"))
    t.act(C1, c("execute", C6)).phase()
    readers = {s for s in range(18) if any(isinstance(f, DeliveredTestament) for f in t.seen(s))}
    assert readers == {C7, C8}
    for seat in set(range(18)) - {C6, C7, C8}:
        assert "testament" not in transcript(t, seat).lower()


def test_no_testament_on_disqualification() -> None:
    t = Table().to("day", 1)
    t.act(C8, w("unread", "testament", None, "public"))
    t.silent.add(C8)
    while t.alive(C8):
        t.phase()
    assert not t.facts(DeliveredTestament)


def test_the_kill_authority_of_a_player_disqualified_at_night_passes_that_morning() -> None:
    """8.5.7: B is silent on Day 1, posts in Night 1, is silent on Day 2 and Night 2."""
    t = Table().to("day", 1)
    t.silent.add(B)
    t.phase()
    t.silent.discard(B)
    t.phase()
    t.silent.add(B)
    t.phase().phase()
    assert t.where == ("day", 3) and not t.alive(B)
    heir = t.game.derived["forum"].authority
    assert heir in (R, F)
    assert t.notices(heir, "authority") == ["You now hold the kill authority."]


def test_a_deposed_dictators_testament_is_delivered() -> None:
    t = Table().to("day", 1)
    t.act(C1, w("I served.", "testament", None, "public")).phase()
    for seat in (*range(10), C2, C3, C4):
        t.act(seat, c("revolution", C3))
    t.phase()
    assert [f.author for f in t.facts(DeliveredTestament)] == [C1]


def test_the_death_message_is_published_only_when_the_murder_succeeds() -> None:
    t = Table().to("night", 1)
    t.act(B, w("A rose for P13.", "murder", C3)).phase()
    manners = [e.fact.manner for e in t.game.events if isinstance(e.fact, Death)]
    assert manners == ["A rose for P13."]


def test_a_written_form_with_an_unknown_subject_is_refused() -> None:
    t = Table().to("day", 1)
    t.refused(C2, w("", "bribe", C3))
    try:
        t.game.submit(C2, Speech("hi", c("execute", C3)))
    except IllegalDecision as error:
        assert "not open to you" in error.reason
    else:
        raise AssertionError("a citizen ordered an execution")


def test_nothing_shows_how_many_forms_others_handed_in() -> None:
    """Two games that differ only in C2's private activity look the same to C4."""
    quiet, busy = Table().to("day", 1), Table().to("day", 1)
    quiet.act(C2, w("C2 posts.", "post"))
    busy.act(C2, w("C2 posts.", "post"), w("a", "pm", C3), w("b", "pm", C3), c("ad", None, "new"))
    busy.act(C2, w("will", "testament", None, f"{C3}"))
    quiet.phase()
    busy.phase()
    for t in (quiet, busy):
        t.phase()
    seen = [[f for f in t.seen(C4) if not isinstance(f, Newspaper)] for t in (quiet, busy)]
    assert seen[0] == seen[1]
