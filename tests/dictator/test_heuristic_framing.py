"""The heuristic in dictator: a lying mafia frames town players in private messages to
the dictator, and a town dictator stops believing a sender whose named player was
executed and shown a citizen."""

from __future__ import annotations

from tests.agents.support import play_heuristic
from tests.dictator.table import C1, C2, C3, C4, C5, C6, Table, c, w

from mafia_arena.agents.heuristic import HeuristicAgent
from mafia_arena.agents.heuristic.forum import GUILTY
from mafia_arena.agents.heuristic.style import LIAR, QUIET, Style
from mafia_arena.engine import PASS, Choice, Game
from mafia_arena.engine.catalogue import Allies, PrivateMessage
from mafia_arena.rules import load_variant
from mafia_arena.views import SeatTracker

VARIANT = load_variant("dictator")


def styled_game(seed: int, style: Style) -> Game:
    """A game of heuristic seats of one style (strict: a strategy error fails the test)."""
    return play_heuristic(Game(VARIANT, 12, seed), style)


def mafia_frames(game: Game) -> list[tuple[int, int]]:
    """(sender, named) of each "ist Mafioso" message a seat that knows comrades sent."""
    told = {e.fact.seat: set(e.fact.allies) for e in game.events if isinstance(e.fact, Allies)}
    mafia = {s for s in range(game.players) if VARIANT.roles[game.state.role(s)].faction == "mafia"}
    out = []
    for event in game.events:
        fact = event.fact
        if isinstance(fact, PrivateMessage) and fact.sender in mafia and told.get(fact.sender):
            out += [(fact.sender, int(n) - 1) for n in GUILTY.findall(fact.text)]
    return out


def test_the_lying_mafia_frame_non_comrades_to_the_dictator_and_the_quiet_never() -> None:
    framed = 0
    for seed in range(4):
        game = styled_game(seed, LIAR)
        told = {e.fact.seat: set(e.fact.allies) for e in game.events if isinstance(e.fact, Allies)}
        frames = mafia_frames(game)
        assert all(named not in told[sender] for sender, named in frames), seed
        framed += len(frames)
        assert mafia_frames(styled_game(seed, QUIET)) == [], seed
    assert framed >= 4


def test_a_town_dictator_ignores_a_sender_whose_named_player_was_shown_a_citizen() -> None:
    """C1 holds the office (night 0). Day 1: C2 names C4, C3 names C5, and C1 executes
    C4, shown a citizen. Night 1: C2 names C6 twice; the heuristic dictator executes C5
    (named once, by a sender never refuted), not C6 (named twice, by C2)."""
    t = Table().to("day", 1)
    t.act(C2, w(f"P{C4 + 1} ist Mafioso. Please execute.", "pm", C1))
    t.act(C3, w(f"P{C5 + 1} ist Mafioso. Please execute.", "pm", C1))
    t.act(C1, c("execute", C4)).phase()
    assert not t.game.state.alive(C4)
    t.act(C2, w(f"P{C6 + 1} ist Mafioso. Please execute.", "pm", C1))
    t.act(C2, w(f"P{C6 + 1} ist Mafioso. Really.", "pm", C1))
    t.phase()
    agent = HeuristicAgent(strict=True)
    agent.reset(C1, 5)
    agent.set_variant(t.game.variant)
    tracker = SeatTracker(C1)
    orders: list[Choice] = []
    start = t.where
    while t.where == start and not t.game.over:
        for seat in sorted(t.game.pending()):
            decision = agent.decide(tracker.view(t.game)) if seat == C1 else PASS
            if isinstance(decision, Choice) and decision.verb == "execute":
                orders.append(decision)
            t.game.submit(seat, decision)
    assert orders and orders[0].target == C5, orders
