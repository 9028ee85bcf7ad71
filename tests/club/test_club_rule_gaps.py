"""club.md 2.3, 3.1, 5.1 and D37 (civilians never wake, not even on night 1), 6.2 (a
round-1 nomination may carry an explanation) and 3.2 step 2 (the host sets a theme for
the day-1 introductions), 6.1 (every running total is public, round 2's too, and the
simultaneous round-2 switch is no secret ballot)."""

import pytest
from tests.club.club_table import Table

from mafia_arena.engine import PASS, Choice, Game, Speech
from mafia_arena.engine.catalogue import Ballot, Votes
from mafia_arena.rules import load_variant
from mafia_arena.views.text import render_event

CLUB = load_variant("club")
EIGHT = "D M K Dr Lv C1 C2 C3"


@pytest.mark.parametrize("n", [8, 12, 16, 26, 30])
def test_item3_d37_civilians_are_never_called_on_night_1(n):
    game = Game(CLUB, n, seed=1)
    calls = [
        e.fact.to_payload()["text"] for e in game.events if e.kind == "narration" and e.day == 1
    ]
    assert calls, "the other roles are still called"
    assert not [text for text in calls if "civilian" in text]


def test_item3_d37_a_deck_of_civilians_and_a_clan_calls_only_the_clan():
    t = Table("D M C1 C2 C3 C4 C5 C6")
    calls = [p["text"] for p in t.events("narration", 1) if p["step"] == "introductions"]
    assert calls == ["Night 1: the don and the mafia wake up to meet the host."]


def _until_nomination(t: Table):
    return t.until("D", "nominate")


def test_item3_6_2_a_round_1_nomination_may_carry_an_explanation():
    t = Table(EIGHT)
    _until_nomination(t)
    game = t.game
    game.submit(t["D"], Choice("target", t["C1"]))
    request = game.request(t["D"])
    assert request is not None and request.kind == "explain" and request.free_text
    assert PASS in request.choices and request.default == "pass"
    assert "P6" in request.prompt  # names the player just nominated
    game.submit(t["D"], Speech("C1 was far too quiet during the introductions."))
    (said,) = [p for p in t.events("speech", 1) if p["kind"] == "explain"]
    assert said == {
        "seat": t["D"],
        "text": "C1 was far too quiet during the introductions.",
        "kind": "explain",
    }
    speech = next(
        e for e in game.events if e.kind == "speech" and e.fact.to_payload()["kind"] == "explain"
    )
    assert speech.visibility.scope == "public"
    kinds = [e.kind for e in game.events if e.day == 1 and e.kind in ("nomination", "speech")]
    assert kinds[-2:] == ["nomination", "speech"]  # the explanation follows its nomination
    nxt = game.pending()
    assert [r.kind for r in nxt.values()] == ["nominate"] and t["D"] not in nxt


def test_item3_6_2_the_explanation_is_optional_and_can_be_switched_off():
    t = Table(EIGHT)
    _until_nomination(t)
    t.game.submit(t["D"], Choice("target", t["C1"]))
    t.game.submit(t["D"], PASS)
    assert not [p for p in t.events("speech", 1) if p["kind"] == "explain"]
    quiet = Table(EIGHT, explain_nominations=False)
    _until_nomination(quiet)
    quiet.game.submit(quiet["D"], Choice("target", quiet["C1"]))
    assert {r.kind for r in quiet.game.pending().values()} == {"nominate"}
    assert quiet["D"] not in quiet.game.pending()


def test_item3_3_2_the_host_sets_a_theme_for_the_day_1_introductions():
    t = Table(EIGHT)
    request = t.game.request(t["D"])
    assert request is not None
    theme = CLUB.params["introduction_theme"]
    assert request.kind == "speak" and theme in request.prompt
    (call,) = [p for p in t.events("narration", 1) if p["step"] == "introduction_theme"]
    assert call["text"] == f"Day 1: introduce yourselves. The theme: {theme}."
    own = Table(EIGHT, introduction_theme="a piece of furniture")
    own_request = own.game.request(own["D"])
    assert own_request is not None
    assert "a piece of furniture" in own_request.prompt
    t.day(execute="C3")
    t.night({"D": "C1", "M": "C1"}).day()
    assert [p for p in t.events("speech", 2) if p["kind"] == "discussion"]
    assert not [p for p in t.events("narration", 2) if p["step"] == "introduction_theme"]


def test_item3_6_2_the_docs_do_not_list_the_explanation_as_missing():
    """docs/rules/club.md describes the explain turn (6.2); its list of what is not
    implemented must not still say round 1 has no explanation."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "rules" / "club.md").read_text()
    missing = text.split("## Not implemented or different from the specification", 1)[1]
    missing = missing.split("\n## ", 1)[0]
    assert "explain" not in missing.lower(), missing
    assert "request kind\n     `explain`" in text or "`explain`" in text


def test_item2_6_1_every_round_1_nomination_shows_the_running_total():
    """6.1: each vote and each running total is public; the source's round 1: "the
    suspect raises one finger per vote against" as the names are given."""
    t = Table(EIGHT, explain_nominations=False)
    _until_nomination(t)
    votes = {"D": "C1", "M": "C1", "K": "M", "Dr": "C1", "Lv": "M", "C1": "D", "C2": "M"}
    t.day(votes={**votes, "C3": "C1"}, finals={"C3": "C1"})
    D, M, C1 = t["D"], t["M"], t["C1"]
    totals = [{int(s): c for s, c in p["tally"].items()} for p in t.events("nomination", 1)]
    assert totals == [
        {C1: 1},
        {C1: 2},
        {M: 1, C1: 2},
        {M: 1, C1: 3},
        {M: 2, C1: 3},
        {D: 1, M: 2, C1: 3},
        {D: 1, M: 3, C1: 3},
        {D: 1, M: 3, C1: 4},
    ]
    last = next(e for e in reversed(t.game.events) if e.kind == "nomination")
    assert last.visibility.scope == "public"
    assert render_event(last, t["C2"]) == "[D1] P8 nominates P6. Running total: P1 1, P2 3, P6 4."


def test_item2_classic_nominations_stay_without_a_running_total():
    """classic 5.1 publishes the counts after each round only (the `nomination_tally`)."""
    game = Game(load_variant("classic"), 8, seed=1)
    while not any(e.kind == "nomination_tally" for e in game.events):
        for seat, request in sorted(game.pending().items()):
            named = [c for c in request.choices if c != PASS]
            if request.kind == "nominate" and named:
                game.submit(seat, named[0])
            else:
                game.submit(seat, PASS if PASS in request.choices else request.choices[0])
    nominations = [e.fact.to_payload() for e in game.events if e.kind == "nomination"]
    assert nominations and all("tally" not in p for p in nominations)


def test_item2_6_1_every_round_2_ballot_shows_the_running_total():
    """6.1: each vote and each running total is public, in round 2 as in round 1; the
    `ballot` events carry the count and the transcript shows it with each ballot."""
    t = Table(EIGHT, explain_nominations=False)
    _until_nomination(t)
    votes = {"D": "C1", "M": "C1", "K": "M", "Dr": "C1", "Lv": "M", "C1": "D", "C2": "M"}
    finals = {"D": "C1", "M": "C1", "K": "M", "Dr": "C1", "Lv": "M", "C1": "M", "C2": "C1"}
    t.day(votes={**votes, "C3": "C1"}, finals={**finals, "C3": "C1"})
    M, C1 = t["M"], t["C1"]
    ballots = [e for e in t.game.events if e.kind == "ballot" and e.day == 1]
    totals = [{int(s): c for s, c in e.fact.to_payload()["tally"].items()} for e in ballots]
    assert totals == [
        {C1: 1},
        {C1: 2},
        {M: 1, C1: 2},
        {M: 1, C1: 3},
        {M: 2, C1: 3},
        {M: 3, C1: 3},
        {M: 3, C1: 4},
        {M: 3, C1: 5},
    ]
    assert all(e.visibility.scope == "public" for e in ballots)
    text = render_event(ballots[-1], t["C2"])
    assert text == "[D1] P8 votes against P6. Running total: P2 3, P6 5."


@pytest.mark.parametrize("variant", ["palermo", "standard"])
def test_item2_other_variants_ballots_stay_without_a_running_total(variant):
    """Only club's ballots show the count (`Ballot.total_public`): Palermo's forum
    ballots and the other variants' sequential final votes read as before."""
    overrides = {"ballot": "sequential"} if variant == "standard" else {}
    game = Game(load_variant(variant, overrides), 12 if variant == "palermo" else 7, seed=1)
    while not game.over and not any(e.kind == "ballot" for e in game.events):
        for seat, request in sorted(game.pending().items()):
            game.submit(seat, request.choices[-1])
    ballot = next(e for e in game.events if e.kind == "ballot")
    fact = ballot.fact
    assert isinstance(fact, Ballot)
    assert fact.tally and not fact.total_public
    assert "total_public" not in fact.to_payload()
    text = render_event(ballot, fact.seat)
    assert text is not None and text.endswith(f"votes against P{fact.target + 1}.")


def test_item3_6_1_the_simultaneous_round_2_is_no_secret_ballot():
    """6.1: every vote is public. The `ballot = "simultaneous"` switch only hides the
    round-2 ballots until all are in; the closing `votes` then says who voted for whom,
    and the prompt says so rather than promising a secret ballot."""
    t = Table(EIGHT, explain_nominations=False, ballot="simultaneous")
    request = t.until("D", "final_vote")
    assert "secret" not in request.prompt.lower()
    assert request.prompt.endswith(
        "Everyone votes at once: the votes stay hidden until all are in,"
        " then they are published with who voted for whom."
    )
    t.day()
    closing = next(e for e in t.game.events if e.kind == "votes" and e.day == 1)
    assert closing.visibility.scope == "public"
    assert isinstance(closing.fact, Votes)
    assert len(closing.fact.votes) == 8  # each voter with his target
