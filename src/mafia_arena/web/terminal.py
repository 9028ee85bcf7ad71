"""Terminal mode: one person plays one seat in the terminal against bots.

The seat's text view is printed incrementally (`views.people_text.people_line` over
the events its `SeatTracker` admits, roles and cards by the variant's readable names:
the lines an LLM reads, with a speech's kind in words, the forum game's Night 0 dated,
a team's round of picks counted and, at the end, why the game ended), and each
decision is read from stdin: the number of a listed choice, or, on a speaking turn, any
text. No timers: the game waits for the person. Ctrl-C quits at once; Ctrl-D (end of input)
asks whether to quit, and a second end of input quits; typing ``/quit`` quits too.
Input that cannot be read at all (standard input closed) is end of input; a line that
is not text in the terminal's encoding is refused and asked again.
Quitting abandons the game (`QuitGame`): nothing is recorded in the person's name.
The game runs through `runner.play_match` like any other match; optionally it is
stored like a tournament game (a GameLog and a results record with ``agent_kind``
``human``).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from mafia_arena.agents.base import Agent
from mafia_arena.agents.human import (
    Action,
    Form,
    HumanAgent,
    decision_for,
    owned_pseudonyms,
    speaker_names,
)
from mafia_arena.engine.choices import Choice, Decision, Request
from mafia_arena.engine.errors import IllegalDecision
from mafia_arena.engine.game import Game
from mafia_arena.rules import Variant, load_variant
from mafia_arena.runner.log import replay
from mafia_arena.runner.match import MatchResult, play_match
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.knowledge import Knowledge
from mafia_arena.views.people_text import people_prompt, seat_line
from mafia_arena.views.rules_text import rules_text
from mafia_arena.views.text import name
from mafia_arena.views.view import SeatTracker, View
from mafia_arena.whole_numbers import read_whole_number

QUIT_COMMAND = "/quit"
_YES = frozenset({"y", "yes", "q", "quit"})
_SHORT_MENU_ABOVE = 8  # a speaking turn with more options than this gets the short menu
FORUM = "forum"  # the request kind of a forum's communication window (engine.forum.window)
CHANNELS = frozenset({"pm", "ad", "testament"})
"""Forum channels whose line is refused, never posted, when none of its forms is open
(a testament already changed this round, a variant without the channel)."""


class QuitGame(Exception):
    """The person left the terminal game (``/quit``, or end of input twice)."""


def standard_input() -> Callable[[str], str]:
    """The line reader for the person at standard input: `input` on a terminal (its
    line editing), else a reader of lines from a private duplicate of the descriptor,
    each decoded by itself in standard input's encoding; `EOFError` at its end.

    Why not `input` on a pipe: there it reads through `sys.stdin`, whose buffer lock the
    reading thread holds while it waits. When Ctrl-C ends the game with a read pending,
    the interpreter cannot close `sys.stdin` at exit and aborts ("Fatal Python error",
    killed by SIGABRT instead of exit code 130). A private file is never closed under
    the waiting thread. Decoding line by line also limits an undecodable line's damage
    to that line (`sys.stdin` would lose the lines read in the same chunk).
    """
    stdin = sys.stdin
    try:
        if stdin is None or stdin.isatty():
            return input
        descriptor = os.dup(stdin.fileno())
    except (OSError, ValueError):  # closed, or no descriptor (a replaced stream)
        return input
    lines = os.fdopen(descriptor, "rb")
    encoding, errors = stdin.encoding or "utf-8", stdin.errors or "strict"

    def read(prompt: str) -> str:
        sys.stdout.write(prompt)  # where `input` writes it
        sys.stdout.flush()
        line = lines.readline()
        if not line:
            raise EOFError
        return line.rstrip(b"\r\n").decode(encoding, errors)

    return read


class TerminalHuman(HumanAgent):
    """A `HumanAgent` whose actions come from a line reader instead of a mailbox.

    Each line is read on a daemon thread, so Ctrl-C ends the program at once instead of
    waiting for a blocked read to return. `read` defaults to `standard_input()`.
    Quitting sets `quit` and leaves the turn unanswered; `play_in_terminal` then
    cancels the match.
    """

    def __init__(
        self,
        name: str = "human",
        read: Callable[[str], str] | None = None,
        out: TextIO | None = None,
    ) -> None:
        super().__init__(f"human:{name}")
        self.read = read or standard_input()
        self.out = out or sys.stdout
        self.cursor = 0
        self.quit = asyncio.Event()
        self.on_reject = self._refused

    def _refused(self, reason: str) -> None:
        """The engine refused the decision (`runner.match`): say why; it asks again."""
        self.write(f"  ! {reason}")

    def show_new(self, knowledge: Knowledge, variant: Variant, game: Game | None = None) -> None:
        """Print the events this seat has not seen yet, in log order, as people read
        them (`views.people_text.people_line`: roles and cards by the `variant`'s
        names, as an LLM's transcript and the web page write them); `game`, once it is
        over, says why it ended. A private line starts with whose it is, the web
        page's tag in the same words, unless the line says it itself
        (`views.people_text.seat_line`, as ``play --seat`` and ``replay --seat`` print
        them)."""
        names = DisplayNames.of(variant)
        for event in knowledge.events[self.cursor :]:
            line = seat_line(event, knowledge, names, variant, game)
            if line:
                self.write(line)
        self.cursor = len(knowledge.events)

    def write(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    async def read_line(self, prompt: str) -> str:
        """One line from `read`, on a daemon thread; `EOFError` at end of input.

        A line that is not text in the terminal's encoding raises its
        `UnicodeDecodeError` (`act` refuses it and asks again). Input that cannot be
        read at all (standard input closed, or its terminal gone: `OSError`,
        `RuntimeError`, or `ValueError` on a closed file) is end of input too: else the
        runner would play the seat's defaults in the person's name for the rest of the
        game, printing the error's traceback at every turn.
        """
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[str] = loop.create_future()

        def settle(line: str | None, error: BaseException | None) -> None:
            if answer.done():
                return
            if error is not None:
                answer.set_exception(error)
            else:
                answer.set_result(line or "")

        def work() -> None:
            try:
                line = self.read(prompt)
            except UnicodeDecodeError as exc:  # a line, but not text: refused by `act`
                loop.call_soon_threadsafe(settle, None, exc)
            except (OSError, RuntimeError, ValueError) as exc:  # no input to read at all
                loop.call_soon_threadsafe(settle, None, EOFError(str(exc)))
            except BaseException as exc:  # handed to the event loop, never lost
                loop.call_soon_threadsafe(settle, None, exc)
            else:
                loop.call_soon_threadsafe(settle, line, None)

        threading.Thread(target=work, name="terminal-input", daemon=True).start()
        return await answer

    async def act(self, view: View) -> Decision:
        request = view.request
        if request is None:
            raise ValueError("act called without a request")
        self.show_new(view.knowledge, view.rules)
        prompt = people_prompt(request, view.knowledge, view.rules)
        self.write(f"\nNOW ({name(view.seat)}): {prompt}")
        short = uses_short_menu(request)
        for line in short_menu(request) if short else full_menu(request):
            self.write(line)
        self.write(f"  ({QUIT_COMMAND} leaves the game)")
        names = speaker_names(view, self.table)  # the forum's pseudonyms this seat saw
        while True:
            try:
                line = (await self.read_line("> ")).strip()
            except EOFError:
                if await self._confirm_quit():
                    return await self._leave()
                continue
            except UnicodeDecodeError as exc:
                self.write(f"  ! that line is not {exc.encoding} text; type it again")
                continue
            if line == QUIT_COMMAND:
                return await self._leave()
            try:
                decision = decision_for(request, parse_line(request, line, short), names)
            except IllegalDecision as exc:
                self.write(f"  ! {exc.reason}")
                continue
            self.stats.decisions += 1
            return decision

    async def _confirm_quit(self) -> bool:
        self.write("End of input. Quit the game? [y/N]")
        try:
            answer = await self.read_line("quit? ")
        except EOFError:
            return True
        except UnicodeDecodeError:  # not a yes: back to the turn
            return False
        return answer.strip().lower() in _YES

    async def _leave(self) -> Decision:
        """Signal the quit and wait to be cancelled: no decision is made in our name."""
        self.quit.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable: the match is cancelled on quit")


def full_menu(request: Request) -> list[str]:
    """Every option, numbered, plus the free-text hint where speech is allowed."""
    lines = [f"  [{index}] {label}" for index, label in enumerate(request.labels)]
    if request.free_text:
        lines.append("  (or type what you want to say)")
    return lines


def uses_short_menu(request: Request) -> bool:
    """Whether `request` gets the short menu: a forum turn always (its forms take words
    after them, which an option number cannot carry), a speaking turn with more options
    than `_SHORT_MENU_ABOVE` (a 10-player table offers 25-29 of them)."""
    if not request.free_text:
        return False
    return request.kind == FORUM or len(request.choices) > _SHORT_MENU_ABOVE


def short_menu(request: Request) -> list[str]:
    """A speaking or forum turn's options grouped by verb: one line per act or form,
    not one per seat and value; then how to type one, with an example taken from this
    request's own options (a variant without ``accuse`` is never told to type it)."""
    by_verb: dict[str, list[Choice]] = {}
    for choice in request.choices:
        by_verb.setdefault(choice.verb, []).append(choice)
    lines = []
    for verb, options in by_verb.items():
        if len(options) == 1 and options[0].target is None and options[0].value is None:
            lines.append(f"  {verb:<14}{request.labels[request.choices.index(options[0])]}")
            continue
        ordered = sorted(options, key=_seat_order)
        forms = list(dict.fromkeys(_form(c) for c in ordered))
        lines.append(f"  {verb:<14}" + ", ".join(forms))
    return lines + _how_to_type(request)


def _how_to_type(request: Request) -> list[str]:
    """The short menu's closing hint, its example one of `request`'s options."""
    example = _example(request)
    if request.kind != FORUM:
        return [f"  e.g. '{example}', or type what you want to say"]
    return [
        *_written_forms(request),
        f"  type a form, then its words: '{example} your words' sends them "
        f"('{example}' alone: the standard text)",
        "  any other line is a post in the thread",
    ]


def _written_forms(request: Request) -> list[str]:
    """The forum forms typed beyond the listed options (`agents.human.Form`), each
    where this turn offers its channel: a message to several players, a private
    testament, an ad under and the transfer of a pseudonym the seat owns (listed)."""
    verbs = {c.verb for c in request.choices}
    owned = owned_pseudonyms(request)
    lines = []
    if "pm" in verbs:
        lines.append(f"  {'pm':<14}2,5,7 your words: one message to several players")
    if "testament" in verbs:
        lines.append(f"  {'testament':<14}2,5 your words: a testament only they receive")
    if "ad" in verbs and owned:
        lines.append(f"  {'ad':<14}<pseudonym> your words: an ad under a pseudonym of yours")
        lines.append(f"  {'give':<14}<pseudonym> <seat>: hand a pseudonym of yours over")
        lines.append(f"  {'':<14}your pseudonyms: {', '.join(owned)}")
    return lines


def _example(request: Request) -> str:
    """An option of `request` as typed on the short menu: a private message or another
    act with a target where there is one (the forms that most need words), else the
    first act that is not ``pass``."""
    choices = [c for c in request.choices if c.verb != "pass"] or list(request.choices)
    chosen = next(
        (c for c in choices if c.verb == "pm" and c.target is not None),
        next((c for c in choices if c.target is not None), choices[0]),
    )
    return " ".join(part for part in (chosen.verb, _form(chosen)) if part)


def _seat_order(choice: Choice) -> tuple[int, str]:
    """By seat number (P2 before P10), then by value: the order the table sits in."""
    return (-1 if choice.target is None else choice.target, choice.value or "")


def _form(choice: Choice) -> str:
    parts = [] if choice.target is None else [str(choice.target + 1)]
    if choice.value is not None:
        parts.append(choice.value)
    return " ".join(parts)


def parse_line(request: Request, line: str, short: bool) -> Action:
    """What a typed line means: an option number on the full menu, a short-menu act
    (``accuse 3``, ``claim_result 2 mafia``) on a short menu, or else free text.

    A short menu numbers no option, so a number typed there is words like any others
    (``4`` in a speech, a thread post): read as an option index it published a hidden
    option in the person's name (an accusation, a private message, the end of their
    phase).

    On a forum turn a form may be followed by its words (``pm 3 Whom do you trust?``:
    that private message; ``ad new …``, ``testament public …``, ``murder 4 …`` with its
    death message); the forms the request does not list are typed too (``pm 2,5,7 …``,
    ``testament 2,5 …``, ``ad <pseudonym> …``, ``give <pseudonym> <seat>``:
    `_written_action`). A line that starts with a form's verb but names none of the
    offered or written ones is refused (`IllegalDecision`), never posted: a mistyped
    private message must not go to the public thread."""
    if not short:
        number = read_whole_number(line)
        return Action(0, text=line) if number is None else Action(0, choice=number)
    words = line.split()
    if request.kind == FORUM:
        return _forum_action(request, words) or Action(0, text=line)
    for index, choice in enumerate(request.choices):
        if words and words[0] == choice.verb and " ".join(words[1:]) == _form(choice):
            return Action(0, choice=index)
    return Action(0, text=line)


def _forum_action(request: Request, words: list[str]) -> Action | None:
    """The form a forum line names, with the words after it as its content; None when
    the line starts with no form verb (a thread post). The longest matching form wins
    (``withdraw ballot`` over ``withdraw``). ``pass`` takes no words: they would be
    dropped unsaid, so the line is refused (`IllegalDecision`) rather than lost."""
    verb = words[0] if words else ""
    written = _written_action(request, words)
    if written is not None:
        return written
    options = [(i, c, _form(c).split()) for i, c in enumerate(request.choices) if c.verb == verb]
    if not options and verb in CHANNELS:
        raise IllegalDecision(request.seat, f"no {verb} is open to you now")
    if not options:
        return None
    matches = [(len(form), i) for i, _, form in options if words[1 : 1 + len(form)] == form]
    if not matches:
        ordered = sorted((c for _, c, _ in options), key=_seat_order)
        forms = ", ".join(dict.fromkeys(_form(c) for c in ordered))
        typed = " ".join(words[:2])
        raise IllegalDecision(request.seat, f"'{typed}' is none of the offered {verb} ({forms})")
    size, index = max(matches)
    text = " ".join(words[1 + size :])
    if text and verb == "pass":
        raise IllegalDecision(request.seat, "pass takes no words: post them first, then pass")
    return Action(0, choice=index, text=text or None)


def _written_action(request: Request, words: list[str]) -> Action | None:
    """A forum line naming a form the request does not list (`agents.human.Form`):
    ``pm 2,5,7 …`` (several recipients), ``testament 2,5 …`` (private), ``ad <your
    pseudonym> …``, ``give <your pseudonym> <seat>``; None for any other line. Seats
    are typed as shown (from 1), joined by commas. `IllegalDecision` for a malformed one:
    asked again, never posted."""
    verb, rest = (words[0], words[1:]) if words else ("", [])
    if verb in ("pm", "testament") and rest and _seat_list(rest[0]):
        if verb == "pm" and "," not in rest[0]:
            return None  # ``pm 3``: the listed private message
        return Action(0, text=" ".join(rest[1:]) or None, form=Form(verb, _seats(request, rest[0])))
    if verb == "ad" and rest and rest[0] != "new":
        name, text = _pseudonym_in(request, rest)
        return Action(0, text=" ".join(text) or None, form=Form("ad", (), name))
    if verb == "give" and any(c.verb == "ad" for c in request.choices):
        name, whom = _pseudonym_in(request, rest)
        if len(whom) != 1 or not _seat_list(whom[0]) or "," in whom[0]:
            raise IllegalDecision(
                request.seat, "type 'give <pseudonym> <seat>' ('post give …' posts it)"
            )
        return Action(0, form=Form("give", _seats(request, whom[0]), name))
    return None


def _seat_list(word: str) -> bool:
    """Whether `word` reads as seat numbers joined by commas (``2,5,7``)."""
    return all(part.isdigit() for part in word.split(","))


def _seats(request: Request, word: str) -> tuple[int, ...]:
    """The 0-based seats of a typed list ``2,5,7`` (seats are shown from 1)."""
    seats = tuple(int(part) - 1 for part in word.split(","))
    if any(s < 0 for s in seats):
        raise IllegalDecision(request.seat, "seats are numbered from 1")
    return seats


def _pseudonym_in(request: Request, words: list[str]) -> tuple[str, list[str]]:
    """The seat's own pseudonym that `words` start with (the longest, any case: a
    pseudonym may hold spaces) and the words after it."""
    owned = owned_pseudonyms(request)
    typed = [w.casefold() for w in words]
    found = [n for n in owned if typed[: len(n.split())] == n.casefold().split()]
    if not found:
        yours = ", ".join(owned) if owned else "none yet"
        raise IllegalDecision(request.seat, f"name a pseudonym of yours (yours: {yours})")
    name = max(found, key=lambda n: len(n.split()))
    return name, words[len(name.split()) :]


def _seat_agents(
    agents: str | Sequence[Agent], players: int, variant_name: str, overrides: dict[str, Any]
) -> list[Agent]:
    if not isinstance(agents, str):
        return list(agents)
    from mafia_arena.seating import seat_agents

    return seat_agents(agents, players, load_variant(variant_name, overrides))


def play_in_terminal(
    variant: str,
    players: int,
    human_seat: int,
    agents: str | Sequence[Agent] = "random",
    seed: int | None = None,
    overrides: dict[str, Any] | None = None,
    *,
    player_name: str = "human",
    read: Callable[[str], str] | None = None,
    out: TextIO | None = None,
    results_dir: Path | None = None,
    logs_dir: Path | None = None,
    log_path: Path | None = None,
    host_key: bytes | None = None,
    key_dir: Path | None = None,
) -> MatchResult:
    """Play `human_seat` (0-based) yourself; bots from `agents` take the other seats.

    `agents` is a seating spec (``random``, ``a,b,c``, ``town=x,mafia=y``) or one agent
    per seat (the human seat's entry is replaced). With `results_dir`, the game is stored
    like a web game (log under `logs_dir`, default ``runs/terminal``); with `log_path`
    the game log is written there. Returns the match; raises `QuitGame` when the person
    quits (nothing is stored then). Without `seed`, a random one is drawn (so terminal
    games deal different cards) and printed only after the game. `read` gives each line
    the person types (default: `standard_input()`), `out` takes what they are shown.
    `host_key` derives the bots' seat seeds (None: a fresh key, so the bots' own draws
    differ from game to game); `key_dir` is the folder it is kept in, named in the
    closing line (`replay_hint`).
    """
    overrides = dict(overrides or {})
    rules = load_variant(variant, overrides)
    if not 0 <= human_seat < players:
        raise ValueError(f"seat {human_seat + 1} does not exist with {players} players")
    seated = _seat_agents(agents, players, variant, overrides)
    if len(seated) != players:
        raise ValueError(f"{len(seated)} agents for {players} players")
    human = TerminalHuman(player_name, read, out)
    seated[human_seat] = human
    human.write(rules_text(rules, players))  # the rules as the engine will play them
    seed = secrets.randbelow(2**31) if seed is None else seed
    match = play_match(rules, seated, seed, overrides, host_key=host_key)
    result = asyncio.run(_play_until_quit(human, match))
    if log_path is not None:
        result.log.save(log_path)
    game = replay(result.log)
    human.show_new(SeatTracker(human_seat).update(game), game.variant, game)
    human.write(replay_hint(seed, None if host_key is None else key_dir))
    if results_dir is not None:
        from mafia_arena.web.storage import SeatEntry, results_record, save_game

        game_id = f"terminal-{secrets.token_hex(6)}"
        entries = [SeatEntry(a.name, a.kind, a.stats) for a in seated]
        save_game(
            result.log,
            lambda path: results_record(game, overrides, entries, game_id, path, "terminal"),
            Path(results_dir),
            Path(logs_dir or "runs/terminal"),
            game_id,
        )
    return result


def replay_hint(seed: int, key_dir: Path | None) -> str:
    """The closing line: what plays this game again, and no more than that.

    The seed repeats the deal; the bots' own draws come from seat seeds derived with
    the host key (`mafia_arena.seat_seeds`), so only the same key folder (and the same
    answers) repeats the game itself. The line names the folder, never the key: the
    key is the host's, and with it the seat seeds of any game could be computed."""
    if key_dir is None:
        return (
            f"(game seed {seed}: --seed {seed} deals these cards again; the bots decide "
            "afresh unless both games are played with the same --key-dir folder)"
        )
    return (
        f"(game seed {seed}: --seed {seed} --key-dir {key_dir} with the same answers "
        "plays this game again)"
    )


async def _play_until_quit(human: TerminalHuman, match: Any) -> MatchResult:
    """Run the match until it ends or the person quits (then it is cancelled)."""
    game_task = asyncio.ensure_future(match)
    quit_task = asyncio.ensure_future(human.quit.wait())
    await asyncio.wait({game_task, quit_task}, return_when=asyncio.FIRST_COMPLETED)
    quit_task.cancel()
    if not game_task.done():
        game_task.cancel()
        await asyncio.gather(game_task, return_exceptions=True)
        raise QuitGame("the player left the game")
    return game_task.result()
