"""Check claims in Palermo: the lying mafia fakes them, the good camp weighs them.

The liar's designated mafioso claims the Detective's role and frames town players; the
good camp never claims falsely, does not believe a check that a second claimant of the
same role disputes, and votes a claimant whose "mafia" result a reveal refuted.
"""

from __future__ import annotations

from tests.agents.support import play_heuristic
from tests.palermo.table import S16, P, Table

from mafia_arena.agents.heuristic import HeuristicAgent
from mafia_arena.agents.heuristic.palermo_claims import FORMAL_MAFIA
from mafia_arena.agents.heuristic.style import BALANCED, LIAR, QUIET, Style
from mafia_arena.engine import Choice, Game, Speech
from mafia_arena.engine.catalogue import SpeechMade
from mafia_arena.engine.palermo.roles import MAFIA_TEAM
from mafia_arena.rules import load_variant
from mafia_arena.speech.claims import extract_claims
from mafia_arena.views import SeatTracker

VARIANT = load_variant("palermo")
MAFIA_CAMP = MAFIA_TEAM | {"corrupt_cop", "prostitute"}


def styled_game(players: int, seed: int, style: Style) -> Game:
    """A game of heuristic seats of one style (strict: a strategy error fails the test)."""
    return play_heuristic(Game(VARIANT, players, seed), style)


def public_claims(game: Game) -> list[tuple[int, str, int | None, str | None]]:
    """(speaker, kind, target, value) of every claim in a public post, in order."""
    out = []
    for event in game.events:
        fact = event.fact
        if isinstance(fact, SpeechMade) and event.visibility.channel is None:
            for claim in extract_claims(fact.text, VARIANT.roles):
                out.append((fact.seat, claim.kind, claim.target, claim.value))
    return out


def false_good_camp_claims(game: Game) -> list[tuple[int, str, int | None, str | None]]:
    """The good camp's role claims it does not hold and check claims the truth belies."""
    roles = [game.state.seats[s].role for s in range(game.players)]
    wrong = []
    for seat, kind, target, value in public_claims(game):
        if roles[seat] in MAFIA_CAMP:
            continue
        if kind == "claim_role" and value != roles[seat]:
            wrong.append((seat, kind, target, value))
        lie = target is not None and (value == "mafia") != (roles[target] in FORMAL_MAFIA)
        if kind == "claim_result" and lie:
            wrong.append((seat, kind, target, value))
    return wrong


def test_the_lying_mafia_fakes_the_detective_and_frames_town_players_never_a_partner() -> None:
    for seed in range(4):
        game = styled_game(12, seed, LIAR)
        roles = [game.state.seats[s].role for s in range(game.players)]
        claims = public_claims(game)
        liars = {s for s, kind, _, value in claims if kind == "claim_role" and value != roles[s]}
        assert liars and all(roles[s] in MAFIA_TEAM for s in liars), (seed, liars)
        assert all(
            value == "detective"
            for s, kind, _, value in claims
            if s in liars and kind == "claim_role"
        )
        framed: list[int] = []
        for s, kind, target, value in claims:
            if s in liars and kind == "claim_result" and value == "mafia":
                assert target is not None
                framed.append(target)
        assert any(roles[t] not in MAFIA_CAMP for t in framed), (seed, framed)
        assert not any(roles[t] in MAFIA_TEAM for t in framed), ("a partner named", seed)


def test_the_balanced_mafia_bluff_in_some_games_and_the_quiet_mafia_never() -> None:
    bluffs = {"heuristic": 0, "heuristic:quiet": 0}
    for style in (BALANCED, QUIET):
        for seed in range(10):
            game = styled_game(12, seed, style)
            roles = [game.state.seats[s].role for s in range(game.players)]
            bluffs[style.name] += any(
                kind == "claim_role" and roles[s] in MAFIA_CAMP
                for s, kind, _, _ in public_claims(game)
            )
    assert bluffs["heuristic"] > 0 and bluffs["heuristic:quiet"] == 0, bluffs


def test_the_good_camp_never_claims_falsely_against_honest_or_lying_mafia() -> None:
    claimed = 0
    for style in (BALANCED, LIAR):
        for seed in range(6):
            game = styled_game(12, seed, style)
            assert false_good_camp_claims(game) == [], (style.name, seed)
            claimed += any(kind == "claim_role" for _, kind, _, _ in public_claims(game))
    assert claimed > 0


def fake_detective_on_day_one(counter: bool) -> Table:
    """S16: Known Mafioso A (P1) claims the Detective and "checks" P14 as mafia in the
    first morning; with `counter` the real Detective (P7) claims his role after him."""
    table = Table(S16, keep={1, 7, 14, 15}, absent={14})
    table.until(1, "morning")
    table.step({1: "post"})
    table.step({1: Speech("I claim to be the detective. My check: P14 is mafia.")})
    if counter:
        table.step({7: "post"})
        table.step({7: Speech("I claim to be the detective.")})
    return table


def town_ballot(table: Table, number: int = 15) -> Choice:
    """What a heuristic Simple Citizen (P15 by default) does at its turn now."""
    agent = HeuristicAgent(5, strict=True)
    agent.reset(P(number), 99)
    decision = agent.decide(SeatTracker(P(number)).view(table.game))
    assert isinstance(decision, Choice)
    return decision


def test_a_single_check_claim_is_followed_and_a_disputed_one_is_not() -> None:
    alone = fake_detective_on_day_one(counter=False)
    alone.until(1, "afternoon")
    assert town_ballot(alone) == Choice("vote", P(14))
    disputed = fake_detective_on_day_one(counter=True)
    disputed.until(1, "afternoon")
    ballot = town_ballot(disputed)
    assert ballot.verb == "vote" and ballot.target != P(14)


def test_a_claimant_whose_mafia_result_a_reveal_refuted_is_voted() -> None:
    """P14 misses two votes and leaves, revealed a Simple Citizen: P1's check lied."""
    table = fake_detective_on_day_one(counter=False)
    table.until(3, "afternoon")
    knowledge = SeatTracker(P(15)).view(table.game).knowledge
    assert knowledge.revealed.get(P(14)) == "citizen"
    assert town_ballot(table) == Choice("vote", P(1))
