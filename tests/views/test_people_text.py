"""`views.people_text`: the lines people read (the terminal game, the command line's
``play`` and ``replay``) say a speech's kind in words, date the forum game's Night 0,
count a team's rounds of picks and say why the game ended, while a seat's transcript,
what a model reads, keeps the lines it had. `views.endings.rule_words` gives plain
words for a win rule type it has none for. The commands' side is
`tests/cli/test_people_lines.py`, the terminal's `tests/web/test_terminal_people_lines.py`."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.engine.catalogue import Death, GameEnded, GroupPicks, NightAction, SpeechMade
from mafia_arena.engine.choices import PASS, Request
from mafia_arena.engine.events import Event, SeatEvent
from mafia_arena.engine.game import Game
from mafia_arena.rules import load_variant
from mafia_arena.rules.spec import WinRule
from mafia_arena.runner.log import replay
from mafia_arena.runner.match import play_match_sync
from mafia_arena.seating import seat_agents
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.endings import end_reason, rule_words
from mafia_arena.views.knowledge import Knowledge, KnowledgeFold
from mafia_arena.views.people_text import (
    audience_tag,
    channel_words,
    kind_words,
    people_line,
    people_prompt,
    people_tag,
    private_tag,
    tag_words,
    team_round_prompt,
)
from mafia_arena.views.text import render_event
from mafia_arena.views.view import SeatTracker
from mafia_arena.views.words import palermo_when
from mafia_arena.web import endings as web_endings


def played(variant: str, players: int, seed: int = 3) -> Game:
    """A finished game of scripted players, the same in every run (fixed host key)."""
    rules = load_variant(variant)
    agents = seat_agents("heuristic", players, rules)
    return replay(play_match_sync(rules, agents, seed, host_key=FIXED_HOST_KEY).log)


@pytest.fixture(scope="module")
def classic() -> Game:
    return played("classic", 7)


def ended(game: Game) -> Event:
    return next(e for e in game.events if isinstance(e.fact, GameEnded))


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("night_chat", "team chat"),
        ("last_word", "last word"),
        ("last_words", "last words"),
        ("introductions", "introduction"),
        ("plea", "final plea"),
        ("final_vote", "final vote"),
        ("revote", "re-vote"),
        ("defence", "defence"),
        ("a_kind_of_its_own", "a kind of its own"),
    ],
)
def test_a_kind_id_reads_as_words(kind: str, words: str) -> None:
    assert kind_words(kind) == words


def test_a_team_chat_and_a_final_vote_are_said_in_words_where_the_transcript_keeps_ids(
    classic: Game,
) -> None:
    names = DisplayNames.of(classic.variant)
    chats = [
        e for e in classic.events if isinstance(f := e.fact, SpeechMade) and f.kind == "night_chat"
    ]
    assert chats
    for event in chats:
        line = people_line(event, None, names, classic.variant)
        assert line is not None and "(team chat): " in line
        assert "(night_chat): " in (render_event(event, None, names) or "")
    votes = [e for e in classic.events if e.kind == "votes"]
    assert votes
    lines = [people_line(e, None, names, classic.variant) or "" for e in votes]
    assert not [line for line in lines if "_" in line]


def test_a_team_s_picks_say_their_round_of_how_many(classic: Game) -> None:
    names = DisplayNames.of(classic.variant)
    rounds = {s.name: s.rounds for s in classic.variant.night}
    picks = [(e, f) for e in classic.events if isinstance(f := e.fact, GroupPicks)]
    assert {rounds[f.step] for _, f in picks} >= {3}  # the mafia's three rounds
    for event, fact in picks:
        line = people_line(event, None, names, classic.variant)
        assert f"(round {fact.round} of {rounds[fact.step]}): " in (line or "")
        assert f"(round {fact.round}): " in (render_event(event, None, names) or "")


def test_the_end_says_why_the_game_ended_while_the_transcript_does_not(classic: Game) -> None:
    names = DisplayNames.of(classic.variant)
    end = ended(classic)
    assert isinstance(end.fact, GameEnded) and end.fact.reason == ""
    why = end_reason(classic, end.fact)
    assert why  # a rule won it: the words come from the finished game
    line = people_line(end, None, names, classic.variant, classic)
    plain = render_event(end, None, names)
    said = f" Why it ended: {why.rstrip('.')}. Roles: "
    assert line == (plain or "").replace(" Roles: ", said, 1)
    assert people_line(end, None, names, classic.variant) == plain  # no game, no reason
    for seat in range(classic.players):
        transcript = SeatTracker(seat).update(classic).text()
        assert "Why it ended" not in transcript and "round 1 of" not in transcript


def test_the_forum_game_s_night_0_is_dated_in_the_lines_people_read() -> None:
    game = played("dictator", 12)
    names = DisplayNames.of(game.variant)
    night_0 = [e for e in game.events if e.day == 0 and e.phase == "night" and e.kind != "phase"]
    lines = [(people_line(e, None, names), render_event(e, None, names)) for e in night_0]
    dated = [(ours, plain) for ours, plain in lines if plain]
    assert dated
    for ours, plain in dated:
        assert ours is not None and ours.startswith("[N0] ")
        assert plain is not None and not plain.startswith(
            "["
        )  # the transcript dates nothing on day 0
    setup = [e for e in game.events if e.phase == "setup"]
    assert all(people_line(e, None, names) == render_event(e, None, names) for e in setup)


def test_a_win_rule_type_without_words_gets_plain_ones_not_an_error(classic: Game) -> None:
    unlisted: Any = "last_stand"  # a type `WinRule` does not list (yet)
    rule = WinRule.model_construct(type=unlisted, factions=(), others=2)
    words = rule_words(classic, "mafia", rule)
    assert words.startswith("the mafia meet their last stand win rule (")
    assert web_endings.rule_words is rule_words  # the web's import names the same words


def test_a_step_of_one_round_says_nothing_of_rounds() -> None:
    """Simple's mafia pick once: "(round 1 of 1)" told the team nothing."""
    game = played("simple", 7)
    names = DisplayNames.of(game.variant)
    picks = [e for e in game.events if isinstance(e.fact, GroupPicks)]
    assert picks and {s.rounds for s in game.variant.night if s.group} == {1}
    for event in picks:
        line = people_line(event, None, names, game.variant) or ""
        tag = people_tag(event.phase, event.day)
        assert line.startswith(f"{tag}Team picks for the mafia's kill: "), line
        assert "round" not in line


def test_a_lone_detective_reads_its_picks_and_action_as_its_own(classic: Game) -> None:
    """Classic at 7 deals one detective: a team of one, whose lines said "Team picks"
    and "Your team's night action". The transcript a model reads keeps its words."""
    names = DisplayNames.of(classic.variant)
    seat = next(s for s in range(classic.players) if classic.state.seats[s].card == "detective")
    knowledge = SeatTracker(seat).update(classic)
    mine = [e for e in knowledge.events if isinstance(e.fact, GroupPicks | NightAction)]
    assert mine
    for event in mine:
        line = people_line(event, seat, names, classic.variant, knowledge=knowledge) or ""
        plain = render_event(event, seat, names) or ""
        if isinstance(event.fact, GroupPicks):
            assert "Your pick for the detectives' check (round 1 of 2): " in line, line
            assert "Team picks for the detectives' check (round 1): " in plain
        else:
            assert "Your night action (the detectives' check): " in line, line
            assert "Your team's night action (the detectives' check): " in plain
    # the whole log (the moderator's replay) tells it from the picks' audience
    logged = [(e, f.step) for e in classic.events if isinstance(f := e.fact, GroupPicks)]
    detective = [e for e, step in logged if step == "detective_check"]
    mafia = [e for e, step in logged if step == "mafia_kill"]
    assert detective and mafia
    assert all(
        "Your pick for" in (people_line(e, None, names, classic.variant) or "") for e in detective
    )
    assert any(
        "Team picks for" in (people_line(e, None, names, classic.variant) or "") for e in mafia
    )


def test_two_mafiosi_read_team_picks_and_their_team_s_action(classic: Game) -> None:
    names = DisplayNames.of(classic.variant)
    knowledge = SeatTracker(0).update(classic)  # P1, a mafioso beside P2
    lines = [
        people_line(e, 0, names, classic.variant, knowledge=knowledge) or ""
        for e in knowledge.events
    ]
    assert any("Team picks for the mafia's kill (round 1 of 3): P1→" in t for t in lines)
    assert any("Your team's night action (the mafia's kill): " in t for t in lines)


def _mafioso_alone_in_picks(classic: Game, ally_dies_first: bool) -> tuple[Knowledge, Any]:
    """P1's view (a mafioso beside P2) to its first round of the mafia's kill, that
    round's picks P1's alone (P2 passed), and P2 dead after them or, with
    `ally_dies_first`, before them (the last mafioso); the view and the picks' event."""
    knowledge = SeatTracker(0).update(classic)
    assert knowledge.allies.get(1) == "mafioso"
    at = next(
        i
        for i, e in enumerate(knowledge.events)
        if isinstance(e.fact, GroupPicks) and e.fact.step == "mafia_kill"
    )
    real = knowledge.events[at]
    assert isinstance(real.fact, GroupPicks)
    mine = GroupPicks("mafia_kill", 1, {0: real.fact.picks[0]})
    picks = SeatEvent(real.day, real.phase, mine, real.private, real.channel)
    death = SeatEvent(real.day, real.phase, Death(1, "night"), False, None)
    stream = [*knowledge.events[:at], *([death, picks] if ally_dies_first else [picks, death])]
    fold = KnowledgeFold(0)
    fold.extend(stream)
    return fold.snapshot(), picks


def test_picks_read_as_the_team_they_came_from_when_drawn_again_later(classic: Game) -> None:
    """The lines are drawn again from a later view (a reconnected page, the terminal's
    next turn, the view after the game): an ally who passed and died afterwards made
    the team's picks read as a lone player's, "Team picks" live and "Your pick" later.
    The last mafioso's picks, the ally dead before them, stay its own."""
    names = DisplayNames.of(classic.variant)
    later, picks = _mafioso_alone_in_picks(classic, ally_dies_first=False)
    line = people_line(picks, 0, names, classic.variant, knowledge=later) or ""
    assert "Team picks for the mafia's kill (round 1 of 3): P1→" in line, line
    alone, picks = _mafioso_alone_in_picks(classic, ally_dies_first=True)
    line = people_line(picks, 0, names, classic.variant, knowledge=alone) or ""
    assert "Your pick for the mafia's kill (round 1 of 3): " in line, line


def _knows(
    seat: int, *picks: GroupPicks, allies: tuple[int, ...] = (0, 1), dead: tuple[int, ...] = ()
) -> Any:
    """A seat's view at night 1 of a 7-player game with its team's earlier rounds of
    picks tonight, its `allies` (itself among them) and the `dead`: the fields
    `team_round_prompt` reads (a mafioso's, who knows every member of the kill)."""
    return SimpleNamespace(
        seat=seat,
        role="mafioso",
        phase="night",
        day=1,
        team_picks=[(1, p) for p in picks],
        allies=dict.fromkeys(allies, "mafioso"),
        alive=tuple(s not in dead for s in range(7)),
    )


@pytest.mark.parametrize(
    ("picks", "why"),
    [
        ({0: "kill:4", 1: "kill:5"}, "the team did not agree"),
        ({1: "kill:4"}, "you passed or did not answer in time"),
        ({0: "kill:4"}, "a teammate passed or did not answer in time"),
        (
            {1: "kill:4", 2: "kill:5"},
            "the team did not agree; you passed or did not answer in time",
        ),
    ],
)
def test_a_later_round_says_why_from_the_picks_the_seat_was_shown(
    picks: dict[int, str], why: str
) -> None:
    """Before, every later round said "the team did not agree", also when all the
    picks agreed and a member had passed or let the clock run out. Which of the two
    the seat cannot tell (the host's log alone records it), nor which teammate was
    asked: the words say no more than the picks."""
    variant = load_variant("classic")
    prompt = "Night 1: choose tonight's victim (the mafia must agree)"
    request = Request(
        0, "night:mafia_kill", prompt, (PASS,), ("pass",), "pass", info={"step": "mafia_kill"}
    )
    shown = team_round_prompt(request, _knows(0, GroupPicks("mafia_kill", 1, picks)), variant)
    assert shown == f"{prompt} (round 2 of 3: {why})"


def test_a_palermo_turn_is_dated_as_its_header_is() -> None:
    """The page's header said "early night 1" while the prompt said "round 2" for the
    same moment; both now say the night's number, as the lines' tags do ([N1])."""
    variant = load_variant("palermo")
    engine = "Night, before midnight of round 2: one move, or done."
    request = Request(
        0, "turn", engine, (PASS,), ("done for this phase",), "pass", info={"phase": "night_early"}
    )
    knowledge: Any = SimpleNamespace(seat=0, phase="night_early", day=2, team_picks=())
    assert people_prompt(request, knowledge, variant) == (
        "Early night 1 (before midnight): one move, or done."
    )
    assert palermo_when("night_early", 2) == "early night 1"
    morning = Request(
        0,
        "turn",
        "Morning of round 2: one move, or done.",
        (PASS,),
        ("done",),
        "pass",
        info={"phase": "morning"},
    )
    assert people_prompt(morning, knowledge, variant) == "Morning 2: one move, or done."
    assert palermo_when("change_window", 2) == "vote 2"
    assert palermo_when("night", 2) is None  # another variant's phase: no Palermo date
    classic = load_variant("classic")
    assert people_prompt(request, knowledge, classic) == engine  # no Palermo: as asked


def test_a_private_line_s_tag_is_in_words(classic: Game) -> None:
    names = DisplayNames.of(classic.variant)
    assert channel_words("mafia_kill", names) == "the mafia's kill"
    assert channel_words("detective_check", names) == "the detectives' check"
    assert channel_words("gm", names) == "game master"
    assert channel_words("mafia", names) == "the mafia's channel"
    assert channel_words(None, names) == "private"
    assert channel_words("new_channel", names) == "new channel"


@pytest.mark.parametrize(
    ("picks", "how", "why", "team"),
    [
        ({0: "kill:4"}, {0: "player", 1: "timeout"}, "a teammate did not answer in time", {}),
        ({0: "kill:4"}, {0: "player", 1: "absent"}, "a teammate is away", {}),
        ({0: "kill:4"}, {0: "player", 1: "stand-in"}, "a teammate's stand-in passed", {}),
        ({0: "kill:4"}, {0: "player", 1: "player"}, "a teammate passed", {}),
        ({0: "kill:4"}, {0: "player", 1: "error"}, "a teammate's answer failed", {}),
        (  # club's kills default to a random pick: no disagreement of the team's own
            {0: "kill:4", 1: "kill:5"},
            {0: "player", 1: "timeout"},
            "a teammate did not answer in time (a random pick was made)",
            {},
        ),
        ({0: "kill:4", 1: "kill:5"}, {0: "player", 1: "stand-in"}, "the team did not agree", {}),
        ({1: "kill:4"}, {0: "timeout", 1: "bot"}, "you did not answer in time", {}),
        ({1: "kill:4"}, {0: "bot", 1: "bot"}, "you passed", {}),
        (  # removed after answering (and so out): the engine does not ask again for that
            {0: "kill:4"},
            {0: "player", 1: "removed", 2: "player"},
            "a teammate passed",
            {"allies": (0, 1, 2), "dead": (1,)},
        ),
        (  # the team's disagreement explains the round: of the teammate with no pick
            # shown nothing is said (asked and away, or blocked, the seat cannot tell)
            {0: "kill:4", 2: "kill:5"},
            {0: "player", 1: "absent", 2: "player"},
            "the team did not agree",
            {"allies": (0, 1, 2)},
        ),
        (  # two teammates show no pick: which of them was asked the seat cannot tell
            {0: "kill:4"},
            {0: "player", 1: "absent", 2: "timeout"},
            "a teammate passed or did not answer in time",
            {"allies": (0, 1, 2)},
        ),
    ],
)
def test_a_later_round_says_what_happened_where_the_host_tells_it(
    picks: dict[int, str], how: dict[int, str], why: str, team: dict[str, Any]
) -> None:
    """Read from the picks alone, a teammate whose clock ran out, who was away or whose
    stand-in passed all read "a teammate passed or did not answer in time", and one
    whose timeout drew a random pick "the team did not agree". Where the host says how
    each member answered (the web table), the words say what happened; no teammate is
    named (which one was asked, a blocked one is not, the seat was not shown)."""
    variant = load_variant("classic")
    prompt = "Night 1: choose tonight's victim (the mafia must agree)"
    request = Request(
        0, "night:mafia_kill", prompt, (PASS,), ("pass",), "pass", info={"step": "mafia_kill"}
    )
    last = GroupPicks("mafia_kill", 1, picks)
    told: list[GroupPicks] = []

    def answered(round_picks: GroupPicks) -> dict[int, str]:
        told.append(round_picks)
        return how

    shown = people_prompt(request, _knows(0, last, **team), variant, answered)
    assert shown == f"{prompt} (round 2 of 3: {why})"
    assert told == [last]  # asked about the round the seat was shown, and only that one


@pytest.mark.parametrize(
    ("picks", "asked", "blocked"),
    [
        (  # the team did not agree; teammate 2 was asked and timed out, or blocked
            {0: "kill:4", 1: "kill:5"},
            {0: "player", 1: "player", 2: "timeout"},
            {0: "player", 1: "player"},
        ),
        (  # teammate 1 away and teammate 2 passed, or teammate 2 blocked
            {0: "kill:4"},
            {0: "player", 1: "absent", 2: "player"},
            {0: "player", 1: "absent"},
        ),
        (  # the seat passed; teammate 2 was asked and away, or blocked
            {1: "kill:4"},
            {0: "player", 1: "player", 2: "absent"},
            {0: "player", 1: "player"},
        ),
    ],
)
def test_a_later_round_s_words_do_not_tell_a_blocked_teammate_from_an_asked_one(
    picks: dict[int, str], asked: dict[int, str], blocked: dict[int, str]
) -> None:
    """Differential: two worlds the seat cannot tell apart (the same picks shown, the
    same allies), in one of which teammate 2 was asked and did not pick and in the other
    was blocked, and so not asked (a block is the other side's secret), give the same
    words."""
    variant = load_variant("classic")
    request = Request(
        0, "night:mafia_kill", "Night 1: kill", (PASS,), ("pass",), info={"step": "mafia_kill"}
    )
    last = GroupPicks("mafia_kill", 1, picks)
    knows = _knows(0, last, allies=(0, 1, 2))

    def told(how: dict[int, str]) -> str:
        return team_round_prompt(request, knows, variant, lambda _picks: how)

    assert told(asked) == told(blocked)


def test_a_host_that_cannot_tell_leaves_the_words_of_the_picks() -> None:
    variant = load_variant("classic")
    request = Request(
        0, "night:mafia_kill", "Night 1: kill", (PASS,), ("pass",), info={"step": "mafia_kill"}
    )
    knows = _knows(0, GroupPicks("mafia_kill", 1, {0: "kill:4"}))
    shown = team_round_prompt(request, knows, variant, lambda picks: None)
    assert shown.endswith("(round 2 of 3: a teammate passed or did not answer in time)")


def _private_lines(game: Game) -> list[tuple[SeatEvent, str]]:
    """Every seat's private lines of `game` as people read them, with their event."""
    names = DisplayNames.of(game.variant)
    out = []
    for seat in range(game.players):
        knowledge = SeatTracker(seat).update(game)
        for event in knowledge.events:
            line = people_line(event, seat, names, game.variant, game, knowledge)
            if event.private and line:
                out.append((event, line))
    return out


@pytest.mark.parametrize(
    ("variant", "players"),
    [
        ("simple", 7),
        ("standard", 9),
        ("classic", 10),
        ("club", 12),
        ("dictator", 12),
        ("palermo", 12),
    ],
)
def test_no_private_line_reads_its_tag_twice(variant: str, players: int) -> None:
    """Every variant's private lines: the tag before a line (the terminal's, the
    command line's view of a seat, the page's) and the moderator's never repeat the
    words the line says ("[the mafia's kill] Team picks for the mafia's kill",
    "[private message] Private message P1 → P2", "[game master] Game master to you");
    a line that does not say whose it is keeps its tag."""
    game = played(variant, players)
    names = DisplayNames.of(game.variant)
    lines = _private_lines(game)
    assert lines
    tagged = 0
    for event, line in lines:
        tag = private_tag(event, names, line)
        words = tag[1:-2].casefold()
        assert not words or words not in line.casefold(), tag + line
        said = channel_words(event.channel, names)
        assert tag or said.casefold() in line.casefold(), line  # untagged: the line says it
        tagged += bool(tag)
    assert tagged  # a seat's own card at least ("[private] You are P1; ...")
    moderator = 0
    for logged in game.events:
        line = people_line(logged, None, names, game.variant, game) or ""
        tag = audience_tag(logged, names, line) if line else ""
        words, _, seen_by = tag.rpartition(": ")  # "the mafia's kill: P1, P2", or "P1, P2"
        assert not words or words.casefold() not in line.casefold(), (tag, line)
        assert bool(seen_by) == (bool(line) and logged.visibility.scope == "seats")
        moderator += bool(words)
    assert moderator or variant in ("simple", "standard", "dictator")  # every line says it


def test_a_speech_that_names_its_channel_keeps_its_tag() -> None:
    """Only the host's own words count: a team chat that says "the mafia's kill" is
    still tagged with it."""
    names = DisplayNames.of(load_variant("classic"))
    line = '[N1] P2 (team chat): "About the mafia\'s kill: P5?"'
    assert tag_words("mafia_kill", line, names) == "the mafia's kill"
    assert tag_words("mafia_kill", "[N1] Team picks for the mafia's kill: P1→P5.", names) == ""
    assert tag_words("pm", 'Private message P1 → P2: "hi"', names) == ""
    assert tag_words("gm", "Game master to you (authority): P2 is your successor.", names) == ""
