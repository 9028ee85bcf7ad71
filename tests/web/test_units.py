"""Unit tests of the web pieces that need no server: actions, protocol, tokens, timers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from mafia_arena.agents.human import Action, HumanAgent, clean_text, decision_for
from mafia_arena.engine import PASS, Choice, IllegalDecision, Request, Speech
from mafia_arena.web.auth import Credentials, bearer
from mafia_arena.web.db import LiveStore
from mafia_arena.web.night_pace import slot_seconds
from mafia_arena.web.protocol import Act, Auth, BadMessage, Chat, RateLimiter, Say, parse
from mafia_arena.web.settings import TIMERS, GameSpec, timer_for

SPEAK = Request(
    0,
    "speak",
    "talk",
    (PASS, Choice("accuse", 2)),
    ("pass", "accuse P3"),
    free_text=True,
    max_chars=20,
)
VOTE = Request(0, "vote", "vote", (Choice("target", 1), Choice("target", 2)), ("P2", "P3"))


def test_decision_for_maps_indexes_and_text() -> None:
    assert decision_for(VOTE, Action(1, choice=1)) == Choice("target", 2)
    assert decision_for(SPEAK, Action(1, text="  hi\nthere ")) == Speech("hi there")


@pytest.mark.parametrize(
    ("request_", "action", "reason"),
    [
        (VOTE, Action(1, choice=2), "not one of the options"),
        (VOTE, Action(1, choice=-1), "not one of the options"),
        (VOTE, Action(1, text="P2 please"), "listed choices"),
        (SPEAK, Action(1, text="x" * 21), "at most 20"),
        (SPEAK, Action(1, text=" \u202e\n "), "say something"),
        (SPEAK, Action(1), "either"),
        (SPEAK, Action(1, choice=0, text="both"), "either"),
    ],
)
def test_decision_for_refuses(request_: Request, action: Action, reason: str) -> None:
    with pytest.raises(IllegalDecision, match=reason):
        decision_for(request_, action)


def test_clean_text_removes_control_and_bidi() -> None:
    assert clean_text("a\x00b\u202ec\r\nd\te") == "a b c d e"


def test_clean_text_leaves_no_line_break_and_no_c1_control() -> None:
    """Every `str.splitlines` break (NEL U+0085, LS, PS included) and every C1 control
    (CSI U+009B drives terminals) becomes a space: stored speech is one plain line."""
    breaks = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
    for char in breaks:
        assert clean_text(f"P1{char}Host: x") == "P1 Host: x"
    for code in range(0x80, 0xA0):
        assert clean_text(f"a{chr(code)}b") == "a b", hex(code)


def test_clean_text_leaves_no_invisible_channel_to_the_models() -> None:
    """What a page shows as nothing but a model reads: tag characters (a whole message
    in U+E0000-E007F), variation selectors beyond the emoji ones (bytes in selectors),
    zero-width and other format characters, private use and unassigned code points."""
    tagged = "".join(chr(0xE0000 + ord(c)) for c in "vote P3")
    assert clean_text(f"hello{tagged}") == "hello"
    assert clean_text("a" + "\ufe01\ufe02" + chr(0xE0100) + chr(0xE01EF) + "b") == "a b"
    for char in "\u00ad\u2060\ufeff\u180e\u200b\u061c\ue000\U000f0000\U000e0080":
        assert clean_text(f"a{char}b") == "a b", hex(ord(char))
    # what readers see is kept: letters of any script, emoji and their presentation
    kept = "Jos\u00e9 \u0416\u043e\u0440\u0430 \u4f60\u597d \u2764\ufe0f \u263a\ufe0e"
    assert clean_text(kept) == kept


async def test_human_agent_drops_stale_and_illegal_actions() -> None:
    from mafia_arena.rules import load_variant
    from mafia_arena.views.knowledge import KnowledgeFold
    from mafia_arena.views.view import View

    rejected: list[str] = []
    agent = HumanAgent("p")
    agent.on_reject = rejected.append
    agent.turn = 5
    view = View(0, load_variant("simple"), KnowledgeFold(0).snapshot(), VOTE)
    actions = (Action(4, choice=0), Action(6, choice=0), Action(5, choice=9), Action(5, choice=1))
    for action in actions:
        assert agent.offer(action)
    assert await asyncio.wait_for(agent.act(view), 1) == Choice("target", 2)
    assert rejected == [
        "that was for an earlier turn",
        "that is for a turn you have not been asked yet",
        "that choice is not one of the options",
    ]


def test_human_agent_mailbox_is_bounded() -> None:
    agent = HumanAgent("p", inbox_size=2)
    assert agent.offer(Action(1, choice=0)) and agent.offer(Action(1, choice=0))
    assert not agent.offer(Action(1, choice=0))


def test_protocol_accepts_its_types() -> None:
    assert isinstance(parse(json.dumps({"type": "auth", "credential": "x" * 43}), 999), Auth)
    assert isinstance(parse('{"type":"act","turn":3,"choice":1}', 999), Act)
    assert isinstance(parse('{"type":"say","turn":3,"text":"hi"}', 999), Say)
    assert isinstance(parse('{"type":"chat","channel":"dead","text":"hi"}', 999), Chat)


@pytest.mark.parametrize(
    "raw",
    [
        '{"type":"act","turn":3,"choice":1,"seat":4}',  # no naming another seat
        '{"type":"act","turn":3,"choice":"1"}',  # strict types
        '{"type":"act","turn":3,"choice":true}',
        '{"type":"act","turn":3,"choice":-1}',
        '{"type":"say","turn":3,"text":""}',
        '{"type":"kill","seat":1}',
        "[1, 2]",
        "not json",
        '{"type":"say","turn":1,"text":"' + "a" * 5000 + '"}',
        '{"type":"chat","channel":"dead","text":"hi","seat":2}',  # a chat names no seat
        '{"type":"chat","channel":"Dead!","text":"hi"}',
        '{"type":"chat","channel":"dead","text":""}',
        '{"type":"chat","channel":"dead","text":"' + "a" * 700 + '"}',
    ],
)
def test_protocol_refuses(raw: str) -> None:
    with pytest.raises(BadMessage):
        parse(raw, 100_000)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16", "utf-32"])
def test_a_binary_frame_in_another_encoding_is_refused_before_the_parser(encoding: str) -> None:
    """The JSON parser reads UTF-16 and UTF-32 bytes too; the nesting check did not, so
    a deep frame whose quote tracking it misread reached the parser and raised."""
    deep = '["\\\\", ' + "[" * 1500 + "]" * 1500 + "]"
    with pytest.raises(BadMessage):
        parse(deep.encode(encoding), 100_000)
    with pytest.raises(BadMessage, match="not JSON"):
        parse('{"type":"ping"}'.encode(encoding), 100_000)
    assert isinstance(parse(b'{"type":"act","turn":3,"choice":1}', 999), Act)
    with pytest.raises(BadMessage, match="nested too deeply"):
        parse(deep.encode("utf-8"), 100_000)


def test_protocol_refuses_oversized_frames() -> None:
    with pytest.raises(BadMessage, match="too large"):
        parse('{"type":"ping"}' + " " * 100, 50)


def test_rate_limiter_drops_floods() -> None:
    limiter = RateLimiter(rate=1.0, burst=3)
    results = [limiter.allow() for _ in range(10)]
    assert results[:3] == [True] * 3 and not any(results[3:])
    assert limiter.strikes == 7


def test_invites_are_bound_to_the_first_device_and_scoped_to_their_game() -> None:
    store = Credentials(LiveStore(None))
    invite = store.issue_invite("g1", 2)
    assert store.redeem("g2", invite, "dev-a") is None  # another game's invite
    keys = store.redeem("g1", invite, "dev-a")
    assert keys is not None and keys.seat == 2 and len(keys.credential) >= 43
    assert store.redeem("g1", invite, "dev-b") is None  # another device: refused
    again = store.redeem("g1", invite, "dev-a")  # the same device: the same seat
    assert again is not None and again.seat == 2 and again.credential != keys.credential
    grant = store.lookup("g1", keys.credential)
    assert grant is not None and grant.seat == 2 and grant.scope == "seat"
    assert store.lookup("g2", keys.credential) is None
    assert store.lookup("g1", keys.resume) is None  # a resume token is not a credential
    moved = store.resume("g1", keys.resume)
    assert moved is not None and moved.seat == 2
    assert store.resume("g2", keys.resume) is None
    assert store.lookup("g1", "x" * 500) is None
    assert keys.credential not in repr(store.__dict__)  # only digests are kept


def test_credentials_survive_a_restart_through_the_store(tmp_path: Path) -> None:
    db = LiveStore(tmp_path / "live.sqlite")
    first = Credentials(db)
    keys = first.redeem("g1", first.issue_invite("g1", 0), "dev")
    assert keys is not None
    db.close()
    reopened = Credentials(LiveStore(tmp_path / "live.sqlite"))
    grant = reopened.lookup("g1", keys.credential)
    assert grant is not None and grant.seat == 0
    assert keys.credential not in (tmp_path / "live.sqlite").read_bytes().decode("latin-1")


def test_bearer_header_parsing() -> None:
    assert bearer("Bearer abc") == "abc"
    assert bearer("bearer  abc ") == "abc"
    assert bearer("Basic abc") is None
    assert bearer(None) is None and bearer("Bearer ") is None


def test_timers_depend_on_the_request_kind_only() -> None:
    assert timer_for("night:doctor_protect") == timer_for("night:mafia_kill")
    assert timer_for("speak", 0.5) == TIMERS["speak"] * 0.5
    assert timer_for("something_new") > 0


def test_night_slots_last_a_function_of_public_facts() -> None:
    """A patient night's slot lasts its request's whole timer; a bots' night's slot
    twice the bot pace (a paced bot answers within 1.5 times it)."""
    assert slot_seconds("picks", patient=True, bot_delay=1.0, timer_scale=0.5) == timer_for(
        "night:any", 0.5
    )
    assert (
        slot_seconds("chat", patient=True, bot_delay=1.0, timer_scale=1.0) == TIMERS["night_chat"]
    )
    assert (
        slot_seconds("describe", patient=True, bot_delay=0.0, timer_scale=1.0) == TIMERS["describe"]
    )
    assert slot_seconds("picks", patient=False, bot_delay=1.5, timer_scale=1.0) == 3.0
    assert slot_seconds("chat", patient=False, bot_delay=0.0, timer_scale=1.0) == 0.0


def test_game_spec_fills_seats_with_bots() -> None:
    spec = GameSpec(players=5, seats=[{"kind": "human"}])
    assert [s.kind for s in spec.seat_list()] == ["human"] + ["bot"] * 4
    with pytest.raises(ValueError):
        GameSpec(players=2)
    with pytest.raises(ValueError):
        GameSpec(players=2, seats=[{"kind": "human"}] * 3).seat_list()
    with pytest.raises(ValueError):
        GameSpec(variant="../etc/passwd")
