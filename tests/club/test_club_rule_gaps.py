"""club.md 2.3, 3.1, 5.1 and D37 (civilians never wake, not even on night 1), 6.2 (a
round-1 nomination may carry an explanation) and 3.2 step 2 (the host sets a theme for
the day-1 introductions)."""

import pytest
from tests.club.club_table import Table

from mafia_arena.engine import PASS, Choice, Game, Speech
from mafia_arena.rules import load_variant

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
