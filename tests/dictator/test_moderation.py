"""The game master's rulings (dictator.md 8.4, 8.5.3): irrelevant posts and sanctions.

The host decides; the engine carries out the ruling with events of explicit audience
and records it so the game replays.
"""

from __future__ import annotations

import pytest
from tests.dictator.table import C1, C2, C3, C8, CAST, B, Table, c, name

from mafia_arena.engine import PASS, Game, GameOver, IllegalModeration, Speech
from mafia_arena.engine.catalogue import GameEnded, GameMasterNotice, Narration, SpeechMade
from mafia_arena.engine.forum.moderation import IRRELEVANT_NOTICE
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import GameLog, replay


def answer_round(t: Table, posts: dict[int, str], *, others: bool = True) -> None:
    """Answer the window's current round: the thread post `posts` gives a seat, else a
    one-line post (`others`) or done for the phase."""
    for seat in sorted(t.game.pending()):
        if seat in posts:
            t.game.submit(seat, Speech(posts[seat], c("post")))
        elif others:
            t.game.submit(seat, Speech(f"{name(seat)} here.", c("post")))
        else:
            t.game.submit(seat, PASS)


def readers(t: Table, topic: str) -> set[int]:
    return {
        s
        for s in range(18)
        if any(isinstance(f, GameMasterNotice) and f.topic == topic for f in t.seen(s))
    }


def test_SD_18_a_post_the_game_master_marks_irrelevant_does_not_prevent_a_warning() -> None:
    t = Table().to("day", 1)
    answer_round(t, {C8: "Nice weather."})
    t.game.moderate("irrelevant", C8)
    t.silent.add(C8)
    t.phase()
    assert t.notices(C8, "warning") == ["Inactivity warning 1 of 3."]
    assert readers(t, "warning") == {C8}
    assert readers(t, "moderation") == {C8}
    assert t.notices(C8, "moderation") == [IRRELEVANT_NOTICE]
    posts = [f.text for f in t.last_phase_facts(SpeechMade) if f.seat == C8]
    assert posts == ["Nice weather."]  # the post stays in the thread


def test_a_numbered_post_marked_irrelevant_leaves_the_others_counting() -> None:
    t = Table().to("day", 1)
    answer_round(t, {C8: "P5 is lying about his vote."})
    answer_round(t, {C8: "lol"}, others=False)
    t.game.moderate("irrelevant", C8, "2")
    t.silent.add(C8)
    t.phase()
    assert not t.notices(C8, "warning")  # the first post still counts
    t.phase()
    answer_round(t, {C8: "P5 is lying about his vote."})
    answer_round(t, {C8: "lol"}, others=False)
    t.game.moderate("irrelevant", C8, "2")
    t.game.moderate("irrelevant", C8, "1")
    t.phase()
    assert t.notices(C8, "warning") == ["Inactivity warning 1 of 3."]


def test_an_irrelevant_ruling_that_is_not_possible_is_refused() -> None:
    t = Table().to("day", 1)
    with pytest.raises(IllegalModeration, match="no thread post in this phase"):
        t.game.moderate("irrelevant", C8)
    answer_round(t, {})
    with pytest.raises(IllegalModeration, match="1 thread post"):
        t.game.moderate("irrelevant", C8, "2")
    with pytest.raises(IllegalModeration, match="1 thread post"):
        t.game.moderate("irrelevant", C8, "¹")  # a digit that int() refuses
    with pytest.raises(IllegalModeration, match="1 thread post"):
        t.game.moderate("irrelevant", C8, "1" * 5000)  # more digits than int() reads
    with pytest.raises(IllegalModeration, match="unknown ruling"):
        t.game.moderate("ban", C8)
    with pytest.raises(IllegalModeration, match="needs the reason"):
        t.game.moderate("warning", C8)
    with pytest.raises(IllegalModeration, match="no seat"):
        t.game.moderate("warning", 18, "spam")
    assert not [d for d in t.game.decisions if d.get("host")]
    classic = Game(load_variant("classic"), 7, 0)
    with pytest.raises(IllegalModeration, match="no game-master rulings"):
        classic.moderate("warning", 0, "spam")


def test_a_sanction_warning_is_private_and_no_inactivity_warning() -> None:
    t = Table().to("day", 1)
    t.game.moderate("warning", C2, "posting a game-master message is forbidden")
    assert readers(t, "sanction") == {C2}
    assert t.notices(C2, "sanction") == [
        "The game master warns you: posting a game-master message is forbidden"
    ]
    assert C2 not in t.game.derived["forum"].warnings
    t.silent.add(C2)
    t.phase()
    assert t.notices(C2, "warning") == ["Inactivity warning 1 of 3."]


def test_a_forfeit_ends_the_game_at_once_for_the_other_party() -> None:
    t = Table().to("day", 1)
    t.act(C1, c("execute", C3)).phase()
    answer_round(t, {})
    t.game.moderate("forfeit", B, "showed his status message")
    assert t.game.over and not t.game.pending()
    ended = t.facts(GameEnded)
    assert [f.winner for f in ended] == ["citizens"] and C3 in ended[0].winners
    said = [f.text for f in t.facts(Narration) if f.step == "sanction"]
    assert said == [
        f"The game master ends the game: {name(B)} broke the rules "
        "(showed his status message). The citizens win."
    ]
    with pytest.raises(GameOver):
        t.game.moderate("warning", C2, "too late")


def test_a_dead_players_forfeit_gives_the_win_to_the_other_party() -> None:
    """8.4: a dead player passing on game information, punished at the extreme."""
    t = Table().to("day", 1)
    t.act(C1, c("execute", C3)).phase()
    t.game.moderate("forfeit", C3, "posted game information after his death")
    assert [f.winner for f in t.facts(GameEnded)] == ["mafia"]


def test_rulings_replay_at_the_same_point() -> None:
    t = Table().to("day", 1)
    answer_round(t, {C8: "Nice weather."})
    t.game.moderate("irrelevant", C8)
    t.game.moderate("warning", C2, "a bet on his status")
    t.silent.add(C8)
    t.phase().phase()
    answer_round(t, {})
    t.game.moderate("forfeit", B, "showed his status message")
    again = Game(load_variant("dictator"), 18, 0, deal=CAST)
    for record in t.game.decisions:
        again.resubmit(record)
    assert [e.fact for e in again.events] == [e.fact for e in t.game.events]
    assert len([d for d in again.decisions if d.get("host")]) == 3


def test_a_stored_log_with_rulings_replays_byte_for_byte() -> None:
    game = Game(load_variant("dictator"), 18, 5)  # a seeded deal: the log replays from it

    def round_of(decision: Speech | None) -> None:
        for seat in sorted(game.pending()):
            game.submit(seat, decision or PASS)

    round_of(None)  # Night 0: everyone done
    round_of(Speech("Morning.", c("post")))
    game.moderate("irrelevant", 3)
    game.moderate("warning", 4, "a screenshot of his status message")
    while not game.over and game.state.day < 2:
        round_of(None)
    game.moderate("forfeit", 2, "posted after his death")
    log = GameLog.from_game(game)
    assert [d["kind"] for d in log.decisions if d.get("host")] == [
        "irrelevant",
        "warning",
        "forfeit",
    ]
    stored = GameLog.loads(log.to_jsonl())
    assert GameLog.from_game(replay(stored)).to_jsonl() == log.to_jsonl()
