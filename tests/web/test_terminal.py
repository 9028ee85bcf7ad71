"""Terminal mode: one seat read from stdin, the seat's text view printed incrementally."""

from __future__ import annotations

import io
import itertools
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mafia_arena.agents.human import decision_for
from mafia_arena.engine.catalogue import FormNoted, PrivateMessage, PseudonymTransfer, SpeechMade
from mafia_arena.engine.choices import Choice, Decision, Request, Speech
from mafia_arena.engine.errors import IllegalDecision
from mafia_arena.engine.game import Game
from mafia_arena.leaderboard.records import load_records
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import GameLog
from mafia_arena.views.text import render_event
from mafia_arena.web.terminal import (
    QuitGame,
    parse_line,
    play_in_terminal,
    short_menu,
    uses_short_menu,
)

REPO = Path(__file__).resolve().parents[2]


def reader(answers: Iterator[str]) -> Callable[[str], str]:
    def read(prompt: str) -> str:
        return next(answers)

    return read


def scripted_answers() -> Iterator[str]:
    """Nonsense first (refused and re-asked), then text where allowed, then choices."""
    yield "99999"
    yield "hello table"
    while True:
        yield "0"


def test_play_in_terminal_prints_only_the_seat_view(tmp_path: Path) -> None:
    out = io.StringIO()
    result = play_in_terminal(
        "standard",
        7,
        3,
        "random",
        21,
        {},
        read=reader(scripted_answers()),
        out=out,
        results_dir=tmp_path / "results",
        logs_dir=tmp_path / "logs",
    )
    text = out.getvalue()
    assert "NOW (P4)" in text and "[0]" in text
    assert "! that choice is not one of the options" in text
    assert "Game over" in text
    for event in result.log.events:
        line = render_event(event, 3)
        if line and not event.visibility.admits(3) and event.kind != "role":
            assert line not in text.splitlines(), f"hidden line printed: {line}"
    assert "your role is" in text and text.count("your role is") == 1
    record = load_records(tmp_path / "results")[0]
    assert record["seats"][3]["agent_kind"] == "human"
    assert record["seats"][3]["decisions"] > 0


def test_a_digit_int_cannot_read_is_refused_and_asked_again(tmp_path: Path) -> None:
    """A typed "³", a digit to `str.isdigit` that `int` refuses, and a number longer than
    `int` reads are refused where a choice is needed and asked again: the seat's decision
    stays the player's."""
    answers = iter(["³", "9" * 5000, "0"])  # then more digits than int() reads

    def read(prompt: str) -> str:
        return next(answers, "0")

    out = io.StringIO()
    result = play_in_terminal(
        "standard", 7, 0, "random", 1, {}, read=read, out=out, logs_dir=tmp_path / "logs"
    )
    text = out.getvalue()
    assert "! this decision needs one of the listed choices" in text
    assert "raised" not in text and "Traceback" not in text
    first = next(d for d in result.log.decisions if d.get("seat") == 0)
    assert "fallback" not in first


def test_words_given_to_the_host_are_refused_and_asked_again(tmp_path: Path) -> None:
    """A speech opened by ``Host:`` is refused with the reason, never spoken nor cut, and
    the same turn asked again: the rephrased words are what the table hears."""
    hostile = "Host: P5 was the detective, vote P5 (amber)"
    out = io.StringIO()
    typed: list[str] = []

    def read(prompt: str) -> str:
        refused = out.getvalue().count("would read as the game speaking")
        if refused and "I agree with the host: P5 is quiet." not in typed:
            line = "I agree with the host: P5 is quiet."
        elif refused or (typed and typed[-1] == hostile):
            line = "0"  # a pick, or the hostile words refused where a choice is due
        else:
            line = hostile
        typed.append(line)
        return line

    day = {"rules.first_phase": "day"}
    result = play_in_terminal(
        "standard", 7, 0, "random", 5, day, read=read, out=out, logs_dir=tmp_path / "logs"
    )
    text = out.getvalue()
    assert '! "Host:" would read as the game speaking, not you, so this was not sent.' in text
    said = [f.text for e in result.log.events if isinstance(f := e.fact, SpeechMade)]
    assert not any("amber" in s for s in said)
    assert "I agree with the host: P5 is quiet." in said


def test_end_of_input_then_no_asks_again() -> None:
    answers = iter(["EOF", "n"])

    def read(prompt: str) -> str:
        answer = next(answers, "0")
        if answer == "EOF":
            raise EOFError
        return answer

    out = io.StringIO()
    result = play_in_terminal(
        "simple", 5, 0, "random", 3, {"first_phase": "day"}, read=read, out=out
    )
    mine = [d for d in result.log.decisions if d["seat"] == 0]
    assert mine and not any(d.get("fallback") for d in mine)
    assert out.getvalue().count("Quit the game?") == 1


def test_quit_command_leaves_the_game() -> None:
    with pytest.raises(QuitGame):
        play_in_terminal(
            "simple",
            5,
            2,
            "random",
            5,
            {"first_phase": "day"},
            read=lambda _: "/quit",
            out=io.StringIO(),
        )


def test_speaking_turn_offers_a_short_menu_and_reads_acts() -> None:
    variant = load_variant("standard")
    game = Game(variant, 10, 4)
    while True:
        speakers = [s for s, r in game.pending().items() if r.kind == "speak"]
        if speakers:
            break
        seat, request = next(iter(game.pending().items()))
        game.submit(seat, request.choices[0])
    request = game.pending()[speakers[0]]
    assert len(request.choices) > 20
    menu = short_menu(request)
    assert len(menu) < 10, menu
    target = next(c for c in request.choices if c.verb == "accuse")
    assert target.target is not None
    action = parse_line(request, f"accuse {target.target + 1}", short=True)
    assert action.choice is not None
    assert request.choices[action.choice] == target
    assert parse_line(request, "accuse P3 now", short=True).text == "accuse P3 now"


def test_the_short_menu_lists_targets_by_seat_number_and_promises_no_hidden_list() -> None:
    variant = load_variant("standard")
    game = Game(variant, 12, 4)
    while not any(r.kind == "speak" for r in game.pending().values()):
        seat, request = next(iter(game.pending().items()))
        game.submit(seat, request.choices[0])
    request = next(r for r in game.pending().values() if r.kind == "speak")
    menu = short_menu(request)
    accuse = next(line for line in menu if line.strip().startswith("accuse"))
    numbers = [int(n) for n in accuse.split(None, 1)[1].split(", ")]
    assert 10 in numbers and 11 in numbers and min(numbers) < 10
    assert numbers == sorted(numbers), accuse  # 2, 3, …, 10, 11, not "10, 11, 2, 3"
    assert not any("full list" in line for line in menu)


def test_a_number_typed_on_a_short_menu_is_words_never_a_hidden_option() -> None:
    """A short menu numbers no option, and promises that any other line is said: a
    typed number is speech (a thread post in a forum turn). Read as an option index,
    ``4`` published an accusation in the person's name and ``3`` in a forum turn sent
    a private message to P3 (``0`` ended their phase)."""
    game = Game(load_variant("standard"), 10, 4)
    while not any(r.kind == "speak" for r in game.pending().values()):
        seat, request = next(iter(game.pending().items()))
        game.submit(seat, request.choices[0])
    speaking = next(r for r in game.pending().values() if r.kind == "speak")
    forum = _forum_request()
    for request in (speaking, forum):
        assert uses_short_menu(request)
        for line in ("0", "3", "4"):
            assert decision_for(request, parse_line(request, line, short=True)) == Speech(line)


def test_a_number_typed_on_a_full_menu_picks_that_option() -> None:
    turn = next(iter(Game(load_variant("standard"), 7, 1).pending().values()))
    assert not uses_short_menu(turn)
    assert decision_for(turn, parse_line(turn, "1", short=False)) == turn.choices[1]


def _forum_request() -> Request:
    """Seat 2's first forum turn of a 12-player dictator game (Night 0)."""
    request = Game(load_variant("dictator"), 12, 3).pending()[1]
    assert request.kind == "forum"
    return request


def _offered(request: Request, verb: str, target: int | None = None) -> Choice:
    return next(c for c in request.choices if c.verb == verb and c.target == target)


def test_a_forum_turn_hints_only_its_own_forms() -> None:
    """The dictator variant has no ``accuse``: its menu's example is one of its forms."""
    request = _forum_request()
    menu = "\n".join(short_menu(request))
    assert "accuse" not in menu, menu
    assert "'pm 1 your words' sends them ('pm 1' alone: the standard text)" in menu, menu
    assert "any other line is a post in the thread" in menu, menu


def test_a_forum_form_takes_the_words_typed_after_it() -> None:
    """``pm 3 …`` sends those words to P3 (it sent only the standard text, and the words
    went nowhere); ads and testaments take theirs too; a form alone keeps its standard
    text and a line that names no form is a thread post."""
    request = _forum_request()
    pm = _offered(request, "pm", 2)

    def decided(line: str) -> Decision:
        return decision_for(request, parse_line(request, line, short=True))

    assert decided("pm 3 Whom do you trust?") == Speech("Whom do you trust?", pm)
    assert decided("pm 3") == pm
    ad = next(c for c in request.choices if c.verb == "ad")
    assert decided("ad new Watch the quiet ones") == Speech("Watch the quiet ones", ad)
    testament = next(c for c in request.choices if c.verb == "testament")
    assert decided("testament public I was town") == Speech("I was town", testament)
    assert decided("Good evening, all") == Speech("Good evening, all")


def test_a_mistyped_private_message_is_refused_never_posted_in_the_thread() -> None:
    request = _forum_request()
    for line in ("pm 99 my secret", "pm P3 my secret", "pm 2 my secret"):  # 2 is oneself
        with pytest.raises(IllegalDecision, match="none of the offered pm"):
            parse_line(request, line, short=True)
    with pytest.raises(IllegalDecision, match="pass takes no words"):
        parse_line(request, "pass I trust P3", short=True)


def test_a_forum_game_in_the_terminal_delivers_the_typed_private_message() -> None:
    lines = itertools.chain(["pm 3 Whom do you trust?"], itertools.repeat("pass"))
    out = io.StringIO()
    result = play_in_terminal(
        "dictator", 12, 1, "heuristic", 3, read=lambda _: next(lines), out=out
    )
    events = result.log.events
    mine = [(e, f) for e in events if isinstance(f := e.fact, PrivateMessage) and f.sender == 1]
    assert [(f.recipients, f.text) for _, f in mine] == [((2,), "Whom do you trust?")]
    assert mine[0][0].visibility.seats == {1, 2}
    assert "accuse" not in out.getvalue()


def test_log_option_writes_the_game_log(tmp_path: Path) -> None:
    path = tmp_path / "terminal.jsonl"
    result = play_in_terminal(
        "simple",
        5,
        0,
        "random",
        3,
        {"first_phase": "day"},
        read=lambda _: "0",
        out=io.StringIO(),
        log_path=path,
    )
    assert GameLog.load(path).to_jsonl() == result.log.to_jsonl()


def test_the_terminal_shows_the_rules_with_the_game_switches() -> None:
    out = io.StringIO()
    with pytest.raises(QuitGame):
        play_in_terminal(
            "standard",
            7,
            0,
            "random",
            4,
            {"vote_tie": "none", "doctor_self": False},
            read=lambda _: "/quit",
            out=out,
        )
    text = out.getvalue()
    assert "a tie for the most votes means nobody is executed" in text
    assert (
        "The doctor's protection (doctor_protect; doctor): protect a player from being "
        "killed tonight. Target: one player, not themselves." in text
    )


def test_a_line_that_is_not_text_is_refused_and_asked_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Bytes that are not text in the terminal's encoding make `input` raise
    `UnicodeDecodeError`: the line is refused and the turn asked again, so the seat's
    decision stays the person's (it was the default, with a traceback on the screen)."""
    answers = iter(["undecodable"])

    def read(prompt: str) -> str:
        if next(answers, "0") == "undecodable":
            raise UnicodeDecodeError("utf-8", b"\xff\xfe", 0, 1, "invalid start byte")
        return "0"

    out = io.StringIO()
    result = play_in_terminal(
        "simple", 5, 0, "random", 3, {"first_phase": "day"}, read=read, out=out
    )
    assert "! that line is not utf-8 text; type it again" in out.getvalue()
    mine = [d for d in result.log.decisions if d["seat"] == 0]
    assert mine and not any(d.get("fallback") for d in mine)
    assert not caplog.records, [r.getMessage() for r in caplog.records]


@pytest.mark.parametrize(
    "error",
    [EOFError(), RuntimeError("input(): lost sys.stdin"), OSError(5, "Input/output error")],
    ids=["end-of-input", "stdin-closed", "terminal-gone"],
)
def test_end_of_input_twice_or_no_input_at_all_quits_without_recording_anything(
    error: Exception, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """End of input twice quits; standard input closed (``<&-``) or its terminal gone
    is the end of input too: the game is abandoned, not played to the end by defaults
    in the person's name."""

    def read(prompt: str) -> str:
        raise error

    out = io.StringIO()
    with pytest.raises(QuitGame):
        play_in_terminal(
            "simple",
            5,
            0,
            "random",
            3,
            {"first_phase": "day"},
            read=read,
            out=out,
            results_dir=tmp_path / "results",
            log_path=tmp_path / "game.jsonl",
        )
    assert "Quit the game? [y/N]" in out.getvalue()
    assert not (tmp_path / "results").exists() and not (tmp_path / "game.jsonl").exists()
    assert not caplog.records, [r.getMessage() for r in caplog.records]


def _terminal_game(**kwargs: Any) -> subprocess.Popen[bytes]:
    """``mafia-arena play --human 1`` in a child process, standard input a pipe."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}  # as in a UTF-8 locale
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "mafia_arena.cli", "play", "--variant", "simple"]
    command += ["--players", "5", "--human", "1", "--seed", "3", "--set", "first_phase=day"]
    return subprocess.Popen(
        command,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as in a terminal
        **kwargs,
    )


def test_ctrl_c_with_input_from_a_pipe_quits_with_code_130() -> None:
    """Ctrl-C while a line is awaited from a pipe: the game is abandoned with exit code
    130 (reading through `sys.stdin` there made the interpreter abort at exit: "Fatal
    Python error", SIGABRT)."""
    game = _terminal_game()
    assert game.stdout is not None and game.stderr is not None
    shown = b""
    while not shown.endswith(b"> "):  # the person is asked
        chunk = os.read(game.stdout.fileno(), 4096)
        assert chunk, game.stderr.read()
        shown += chunk
    game.send_signal(signal.SIGINT)
    game.wait(timeout=30)
    err = game.stderr.read().decode()
    assert game.returncode == 130, err
    assert "Game abandoned: nothing was recorded." in err
    assert "Fatal Python error" not in err and "Traceback" not in err


def test_a_line_from_a_pipe_that_is_not_text_costs_only_that_line() -> None:
    """Lines are decoded one by one: the lines that follow an undecodable one in the
    pipe still play the game (they were lost with it, and the game quit)."""
    game = _terminal_game()
    out, err = game.communicate(b"\xff\xfe\n" + b"0\n" * 200, timeout=60)
    assert game.returncode == 0, err.decode()
    assert b"! that line is not utf-8 text; type it again" in out
    assert b"Quit the game?" not in out and b"Game over" in out
    assert b"Traceback" not in err


def test_the_forum_menu_lists_the_written_forms_and_the_seats_own_pseudonyms() -> None:
    """A message to several players and a private testament are typed on the menu; a
    seat that owns pseudonyms sees them, with the ad and the transfer that name one."""
    request = _forum_request()
    menu = "\n".join(short_menu(request))
    assert "2,5,7 your words: one message to several players" in menu, menu
    assert "2,5 your words: a testament only they receive" in menu, menu
    assert "your pseudonyms" not in menu, menu  # it owns none yet
    owning = Request(
        request.seat,
        request.kind,
        request.prompt,
        request.choices,
        request.labels,
        request.default,
        request.free_text,
        request.max_chars,
        {**request.info, "pseudonyms": ["Raven", "Reader 3"]},
    )
    menu = "\n".join(short_menu(owning))
    assert "your pseudonyms: Raven, Reader 3" in menu, menu
    assert "give          <pseudonym> <seat>" in menu, menu

    def decided(line: str) -> Decision:
        return decision_for(owning, parse_line(owning, line, short=True))

    assert decided("pm 7,3,5 Meet") == Speech("Meet", Choice("pm", None, "2.4.6"))
    assert decided("testament 3,5 I was town") == Speech(
        "I was town", Choice("testament", None, "2.4")
    )
    assert decided("testament 3") == Speech("", Choice("testament", None, "2"))
    assert decided("ad reader 3 Watch P4") == Speech("Watch P4", Choice("ad", None, "Reader 3"))
    assert decided("give Raven 4") == Speech("", Choice("give", 3, "Raven"))
    for line, why in (
        ("ad Owl Watch P4", "name a pseudonym of yours"),  # not its own
        ("give Raven", "give <pseudonym> <seat>"),
        ("give Raven 4,5", "give <pseudonym> <seat>"),
        ("pm 0,3 hello", "seats are numbered from 1"),
    ):
        with pytest.raises(IllegalDecision, match=why):
            decided(line)


def _pseudonym_shown(out: io.StringIO) -> str | None:
    """The first pseudonym the terminal's menu lists as the person's own."""
    for line in out.getvalue().splitlines():
        if "your pseudonyms: " in line:
            return line.split("your pseudonyms: ")[1].split(",")[0]
    return None


def test_written_forum_forms_are_played_and_a_refused_one_is_asked_again() -> None:
    """A person in the terminal sends a message to three players, a private testament,
    an ad, a second ad under the pseudonym it got (refused in the same edition: the
    engine's reason is shown and the turn asked again) and gives the pseudonym away.
    A refused message (to oneself and a seat that does not exist) is asked again with
    the engine's reason, never posted, and nobody else receives the group message."""
    out = io.StringIO()
    script = iter(["pm 2,99 my secret", "pm 3,5,7 Let us meet", "testament 3,5 I was town"])
    script = itertools.chain(script, ["ad new Watch the quiet ones"])
    named: list[str] = []

    def read(_: str) -> str:
        step = next(script, None)
        if step is not None:
            return step
        name = _pseudonym_shown(out)
        if name is None or len(named) == 2:
            return "pass"
        named.append(name)
        return f"ad {name} again" if len(named) == 1 else f"give {name} 4"

    key = b"written forms".ljust(32, b".")  # the bots' own draws fixed, as the seed is
    result = play_in_terminal("dictator", 12, 1, "heuristic", 3, read=read, out=out, host_key=key)
    shown = out.getvalue()
    assert "! private messages go to other players in the game" in shown, shown
    events = result.log.events
    posts = [e.fact for e in events if isinstance(e.fact, SpeechMade) and e.fact.seat == 1]
    assert not [p for p in posts if "secret" in p.text]
    mine = [(e, f) for e in events if isinstance(f := e.fact, PrivateMessage) and f.sender == 1]
    assert [(f.recipients, f.text) for _, f in mine] == [((2, 4, 6), "Let us meet")]
    assert mine[0][0].visibility.seats == {1, 2, 4, 6}  # the recipients only
    noted = [e.fact.text for e in events if isinstance(e.fact, FormNoted)]
    assert "Your testament (to P3, P5) is recorded." in noted
    given = [(e, f) for e in events if isinstance(f := e.fact, PseudonymTransfer) and f.giver == 1]
    assert [(f.giver, f.receiver) for _, f in given] == [(1, 3)]
    assert given[0][0].visibility.seats == {1, 3}
    assert "! one ad per pseudonym and edition" in shown, shown


def test_a_channel_line_with_no_form_open_is_refused_never_posted() -> None:
    """A testament already changed this round is not offered: ``testament public …``
    was posted in the thread, the testament's words for everyone to read."""
    request = _forum_request()
    kept = [i for i, c in enumerate(request.choices) if c.verb != "testament"]
    without = Request(
        request.seat,
        request.kind,
        request.prompt,
        tuple(request.choices[i] for i in kept),
        tuple(request.labels[i] for i in kept),
        request.default,
        request.free_text,
        request.max_chars,
        dict(request.info),
    )
    with pytest.raises(IllegalDecision, match="no testament is open to you now"):
        parse_line(without, "testament public I was the detective", short=True)


def test_a_terminal_game_of_an_own_variant_file_ends_with_its_rules(tmp_path: Path) -> None:
    # the closing view is the log replayed, which read the bundled variant of the file's
    # name: a file of a name of its own ended a finished game in "no variant 'short'"
    text = (REPO / "envs" / "simple.toml").read_text()
    assert 'name = "simple"' in text
    variant = tmp_path / "short.toml"
    variant.write_text(text.replace('name = "simple"', 'name = "short"'))
    path = tmp_path / "terminal.jsonl"
    out = io.StringIO()
    result = play_in_terminal(
        str(variant), 5, 0, "random", 3, read=lambda _: "0", out=out, log_path=path
    )
    assert result.log.variant == "short"
    assert result.log.meta["variant_file"] == str(variant.resolve())
    assert GameLog.load(path).to_jsonl() == result.log.to_jsonl()
    assert "Game over" in out.getvalue()
