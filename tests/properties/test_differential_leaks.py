"""Differential leak test: a seat observes the same in worlds it cannot tell apart.

See `tests/properties/differential.py` for the method. The default run plays a seeded
batch of 312 cases over every setting of `SETTINGS` (every variant, several switch
settings) through both environments, weighted to the dictator and Palermo (`WEIGHTS`).
A case whose worlds part on a card shown to the observer (a death's card, a check) is
played again with world B dealt anew around the cards shown (`run_refined`), so the
comparison reaches the rest of the game, not only its start.
Thousands: ``MAFIA_SLOW=1`` runs the `slow` test (3,000 more cases), or
``MAFIA_LEAK_GAMES=5000`` enlarges the default batch. Palermo's intrigue cards get their
own cases, in which world B also moves every card but the observer's to other holders;
they are refined the same way, the cards moved afresh around the seats kept. One more
case per variant is played at its largest table.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from typing import Any

import pytest
from tests.properties import differential
from tests.properties.differential import (
    PALERMO_REACHED,
    SETTINGS,
    Leak,
    Worlds,
    card_case,
    compare,
    deal_allows,
    describe,
    draw_worlds,
    legit,
    move_cards,
    observed,
    random_case,
    refine,
    run_aec,
    run_parallel,
    run_refined,
    shown_in_a,
)

from mafia_arena import env as mafia_env
from mafia_arena.engine.catalogue import Allies, Death, Fact, Runoff
from mafia_arena.engine.events import SeatEvent
from mafia_arena.env.session import GameSession
from mafia_arena.rules import load_variant

WEIGHTS = {"dictator": 6, "palermo": 4}
"""Cases per setting relative to the others: the dictator and Palermo keep the most
hidden state (copies, successions, ghosts, cards, the Rival Mafioso) and the longest
games. Per case (one CPU): simple 0.03 s, standard and classic 0.1 s, club 0.3 s,
dictator 0.4 s, Palermo 0.5-0.8 s, each case played about three times over where cards
are shown (`run_refined`), so the default batch costs about six minutes."""
TOTAL_WEIGHT = sum(WEIGHTS.get(variant, 1) for variant, _ in SETTINGS)
DEFAULT_CASES = int(os.environ.get("MAFIA_LEAK_GAMES", str(13 * TOTAL_WEIGHT)))
SLOW_FIRST, SLOW_CASES = 100, 3000
"""The slow batch: cases 100 to 3099 of the seeded sequence (numbers stay those that
reports name; the default batch repeats its dictator and Palermo cases below 1,014)."""
RUN_SLOW = os.environ.get("MAFIA_SLOW") == "1"


def _play(cases: range, seen: Counter[str] | None = None) -> dict[str, int]:
    compared = {"parallel": 0, "aec": 0}
    for index in cases:
        worlds, policy_seed = random_case(index)
        try:
            compared["parallel"] += run_refined(run_parallel, worlds, policy_seed, seen)
            compared["aec"] += run_refined(run_aec, worlds, policy_seed, seen)
        except Leak as leak:
            raise AssertionError(f"case {index} ({describe(worlds)}): {leak}") from None
    return compared


@pytest.mark.parametrize("setting", range(len(SETTINGS)), ids=[f"{v}{o}" for v, o in SETTINGS])
def test_a_seat_observes_the_same_in_worlds_it_cannot_tell_apart(setting: int) -> None:
    per_weight = max(1, DEFAULT_CASES // TOTAL_WEIGHT)
    count = per_weight * WEIGHTS.get(SETTINGS[setting][0], 1)
    cases = range(setting, count * len(SETTINGS), len(SETTINGS))
    seen: Counter[str] = Counter()
    compared = _play(cases, seen)
    assert compared["parallel"] > 0 and compared["aec"] > 0
    if SETTINGS[setting][0] == "palermo":  # the compared play reached every Palermo rule
        missing = [what for what in PALERMO_REACHED if not seen[what]]
        assert not missing, f"no case reached {missing}: {dict(seen)}"


CARD_CASES = 24


def test_a_seat_cannot_tell_who_holds_the_other_intrigue_cards() -> None:
    """Palermo: world B moves every card but the observer's to other holders (within
    their camps), on top of the permuted roles; nothing the observer sees may differ
    (a card played publicly is played in both worlds, by the same seat). A case that
    parts on a card shown is played again around it, the cards moved afresh
    (`run_refined`)."""
    moved = 0
    compared = {"parallel": 0, "aec": 0}
    index = 0
    while moved < CARD_CASES:
        case = card_case(index)
        index += 1
        if case is None:
            continue
        moved += 1
        worlds, policy_seed = case
        try:
            compared["parallel"] += run_refined(run_parallel, worlds, policy_seed)
            compared["aec"] += run_refined(run_aec, worlds, policy_seed)
        except Leak as leak:
            raise AssertionError(
                f"cards case {index - 1} ({describe(worlds)} hands {worlds.hands} -> "
                f"{worlds.hands_b}): {leak}"
            ) from None
    assert compared["parallel"] > 0 and compared["aec"] > 0


def test_world_b_is_a_world_the_card_deal_could_give() -> None:
    """Palermo: every world B drawn (role-only cases, card cases, a refined attempt)
    fits the intrigue-card deal (`deal_allows`), since the observer knows its rules;
    and `deal_allows` rejects Failed Assassination in the mafia camp and the
    Resurrection copies in one camp only."""
    rules = load_variant("palermo", {})
    checked = 0
    for index in range(60 * len(SETTINGS)):
        worlds, _ = random_case(index)
        if worlds.hands is not None:
            assert deal_allows(rules, worlds.deal_b, worlds.hands), describe(worlds)
            checked += 1
    for index in range(40):
        case = card_case(index)
        if case is None:
            continue
        worlds, _ = case
        assert worlds.hands is not None and worlds.hands_b is not None
        assert deal_allows(rules, worlds.deal_b, worlds.hands_b), describe(worlds)
        again = refine(worlds, frozenset(sorted(worlds.sigma)[:1]))
        if again is not None:
            assert deal_allows(rules, again.deal_b, again.hands_b or worlds.hands)
        checked += 1
    assert checked > 60
    palermo = range(SETTINGS.index(("palermo", {})), 400, len(SETTINGS))
    worlds = next(w for w, _ in map(random_case, palermo) if _mutable(w))
    hands, deal = dict(worlds.hands or {}), worlds.deal_a
    assert deal_allows(rules, deal, hands)
    camp = {s: rules.roles[role].faction for s, role in enumerate(deal)}
    free_mafia = next(s for s in camp if camp[s] == "mafia" and s not in hands)
    free_town = next(s for s in camp if camp[s] == "town" and s not in hands)
    holder = next(s for s, card in hands.items() if card == "failed_assassination")
    moved = {s: c for s, c in hands.items() if s != holder} | {free_mafia: "failed_assassination"}
    assert not deal_allows(rules, deal, moved)
    mafia_copy = next(s for s, c in hands.items() if c == "resurrection" and camp[s] == "mafia")
    one_camp = {s: c for s, c in hands.items() if s != mafia_copy} | {free_town: "resurrection"}
    assert not deal_allows(rules, deal, one_camp)


def _mutable(worlds: Worlds) -> bool:
    """A Palermo world A with two Resurrections and a mafioso and a town player without a
    card: the cards can be moved to where the deal never puts them."""
    if worlds.hands is None:
        return False
    rules = load_variant(worlds.variant, worlds.overrides)
    camps = [rules.roles[role].faction for role in worlds.deal_a]
    free = {camps[s] for s in range(worlds.players) if s not in worlds.hands}
    return list(worlds.hands.values()).count("resurrection") >= 2 and free == {"mafia", "town"}


def test_a_card_case_is_refined_with_its_cards_moved_afresh() -> None:
    """A card case that parts on a card shown (case 3: a state change at step 40) is
    played again: world B is dealt anew around the seats shown, which keep their roles
    and intrigue cards, while the other cards still move, so the comparison goes on past
    the first card shown (to the game's end, in this case)."""
    case = card_case(3)
    assert case is not None
    later = refined_further(*case)
    assert later.hands is not None and later.hands_b is not None
    assert later.hands_b != later.hands, "the other intrigue cards still move"
    assert all(later.hands_b.get(s) == later.hands.get(s) for s in later.kept)


LARGEST_TABLES = ["simple", "standard", "classic", "club", "dictator", "palermo"]


@pytest.mark.parametrize("variant", LARGEST_TABLES)
def test_a_seat_at_the_largest_table_observes_the_same_in_worlds_it_cannot_tell_apart(
    variant: str,
) -> None:
    """One case per variant at its largest table (60 seats in the club, 40 in Palermo):
    the seeded batch above keeps to the usual sizes (at most nine seats over the
    minimum), and some encodings and seat counts only grow with the table. In Palermo
    world B also moves the intrigue cards (`move_cards`). About a minute in all."""
    rules = load_variant(variant)
    players = rules.max_players or 26
    rng = random.Random(f"largest:{variant}")
    while (worlds := draw_worlds(variant, {}, rng, players)) is None or (
        worlds.hands is not None and not move_cards(worlds, rng)
    ):
        pass
    policy_seed = rng.randrange(2**31)
    try:
        parallel = run_refined(run_parallel, worlds, policy_seed)
        aec = run_refined(run_aec, worlds, policy_seed)
    except Leak as leak:
        raise AssertionError(f"{describe(worlds)}: {leak}") from None
    assert worlds.players == players and parallel > 0 and aec > 0


@pytest.mark.slow
@pytest.mark.skipif(not RUN_SLOW, reason="thousands of games: set MAFIA_SLOW=1")
def test_thousands_of_worlds_observe_the_same() -> None:
    compared = _play(range(SLOW_FIRST, SLOW_FIRST + SLOW_CASES))
    assert compared["parallel"] > SLOW_CASES


def test_the_comparison_catches_a_leaked_role() -> None:
    """Mutation check: a view that names another seat's card must be caught."""
    worlds, _ = random_case(3)
    sessions = []
    for deal in (worlds.deal_a, worlds.deal_b):
        env = mafia_env.raw_parallel_env(worlds.variant, worlds.players, worlds.overrides)
        env.reset(seed=worlds.seed, options={"deal": deal})
        sessions.append(env.session)
    a, b = (observed(s, worlds.observer) for s in sessions)
    compare(a, b, "start", worlds)
    moved = next(s for s in worlds.sigma if worlds.deal_a[s] != worlds.deal_b[s])
    a["text"] += f"\nP{moved + 1} is the {worlds.deal_a[moved]}"
    b["text"] += f"\nP{moved + 1} is the {worlds.deal_b[moved]}"
    with pytest.raises(Leak):
        compare(a, b, "forged", worlds)


def test_a_forger_is_not_offered_a_question_mark_copy_he_was_never_told_of() -> None:
    """Regression (case 478: dictator, 17 players, the observer the forger): on Day 2
    the holder's successor and transfer forms named the question mark that had copied
    a mafioso in one world and not in the other; they name only comrades the holder's
    own stream named (OP-D14)."""
    worlds, policy_seed = random_case(478)
    assert worlds.variant == "dictator" and worlds.deal_a[worlds.observer] == "forger"
    assert run_parallel(worlds, policy_seed) > 18  # past the step where the mask differed
    assert run_aec(worlds, policy_seed) > 0


def test_the_vendetta_announcement_is_the_same_whether_the_rival_activated_or_not() -> None:
    """Regression (case 687: Palermo, 19 players, the observer the Lawyer): a vote left
    no mafioso Active in one world only, and that night's public vendetta announcement
    said "not accepted" there; it states the public window alone (8.4)."""
    worlds, policy_seed = random_case(687)
    assert worlds.variant == "palermo" and worlds.deal_a[worlds.observer] == "lawyer"
    assert run_parallel(worlds, policy_seed) > 52  # past the night it differed
    assert run_aec(worlds, policy_seed) > 0


def test_a_converted_werewolf_introduced_to_its_clan_is_a_card_shown() -> None:
    """Harness regression (case 55336: club, 16 players, the observer the framer): the
    werewolf converted to the yakuza when its last killer died and was introduced to the
    clan at the next night (club 4.8 d), naming its seat, which world B dealt elsewhere.
    That introduction shows the observer a card, like a death: the worlds may differ in
    it, and a refined world B keeps the werewolf's seat in place. In a variant whose
    rules tell no one of a new ally (`standard`), a differing introduction stays a leak."""
    worlds, policy_seed = random_case(55336)
    werewolf = worlds.deal_a.index("werewolf")
    assert worlds.variant == "club" and worlds.deal_a[worlds.observer] == "framer"
    assert werewolf in shown_in_a(worlds, policy_seed)
    assert run_refined(run_parallel, worlds, policy_seed) > 162  # past the introduction
    assert run_refined(run_aec, worlds, policy_seed) > 0
    standard, _ = random_case(SETTINGS.index(("standard", {})))
    for case, legitimate in ((worlds, True), (standard, False)):
        told = [
            SeatEvent(3, "night", Allies(case.observer, {seat: "mafia"}), True, None)
            for seat in sorted(case.sigma)[:2]
        ]
        assert (legit(case, told[:1], told[1:], 0) is not None) is legitimate


def test_the_comparison_catches_a_mistimed_death_and_a_spurious_runoff() -> None:
    """Mutation check of `legit`: a death's role may differ between the worlds, but not
    its seat without a tie drawn at random, nor a runoff where the other world goes on
    (outside Palermo, where the Mayor's hidden vote may break the tie)."""
    worlds, _ = random_case(0)  # simple, cards shown at death
    assert worlds.variant == "simple" and not worlds.diverged

    def at_dawn(fact: Fact) -> list[SeatEvent]:
        return [SeatEvent(1, "day", fact, False, None)]

    dead = Death(2, "night", None, "villager")
    assert legit(worlds, at_dawn(dead), at_dawn(Death(2, "night", None, "mafioso")), 0)
    assert legit(worlds, at_dawn(dead), at_dawn(Death(3, "night", None, "villager")), 0) is None
    runoff = Runoff((1, 2), 1, "Runoff between P2, P3.")
    assert legit(worlds, at_dawn(dead), at_dawn(runoff), 0) is None
    assert legit(worlds, at_dawn(dead), [], 0) is None  # a death in one world only
    late = [SeatEvent(2, "day", dead, False, None)]
    assert legit(worlds, at_dawn(dead), late, 0) is None  # the same death a day later


def test_a_refined_case_compares_past_the_first_card_shown() -> None:
    """With cards shown at death one run stops at the first death; the refined attempts
    deal world B again around the cards shown and compare further into the game."""
    refined_further(*random_case(0))  # simple: cards shown at death


def test_the_refined_comparison_catches_a_leak_after_the_first_card_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Mutation check: a view that names the living seats' cards later in the game than
    a single run gets (it stops at the first card shown) hides from that run, not from
    the refined attempts, whose worlds still differ in the cards hidden to the end."""
    real = differential.observed
    reached = [0]

    def recorded(session: GameSession, seat: int) -> dict[str, Any]:
        seen = real(session, seat)
        reached[0] = max(reached[0], len(seen["stream"]))
        return seen

    def leaky(session: GameSession, seat: int) -> dict[str, Any]:
        seen = real(session, seat)
        if len(seen["stream"]) > reached[0]:
            state = session.current.state
            cards = [state.seats[s].card for s in state.living_seats() if s != seat]
            seen["text"] += f"\nstill playing: {cards}"
        return seen

    worlds, policy_seed = random_case(0)  # simple: cards shown at death
    monkeypatch.setattr(differential, "observed", recorded)
    run_parallel(worlds, policy_seed)
    assert worlds.keep, "the single run stopped at a card shown"
    monkeypatch.setattr(differential, "observed", leaky)
    run_parallel(worlds, policy_seed)  # the leak lies beyond where a single run stops
    with pytest.raises(Leak):
        run_refined(run_parallel, worlds, policy_seed)


def test_a_question_mark_that_copied_the_terrorist_survives_the_murder_in_both_readings() -> None:
    """Regression of the harness (case 1570: dictator, 12 players, the observer the
    character assassin): in a refined attempt the mafia murdered P10, a question mark
    in world A that had copied the terrorist, so nobody died there, while P10 died in
    world B. A copy takes the copied card's immunities (4.11), so this is the terrorist's
    public immunity, as for a dealt terrorist, not a leak."""
    worlds, policy_seed = random_case(1570)
    assert worlds.variant == "dictator" and worlds.deal_a[worlds.observer] == "character_assassin"
    attempts: list[Worlds] = []

    def counted(case: Worlds, seed: int, seen: Counter[str] | None = None) -> int:
        attempts.append(case)
        return run_parallel(case, seed, seen)

    assert run_refined(counted, worlds, policy_seed) > 0
    assert len(attempts) >= 4  # the attempt that met the copied terrorist was played


def test_a_werewolf_that_converts_on_hidden_deaths_is_its_own_cards_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Regression of the harness (case 7236: club, 17 players, the observer the
    werewolf): in a refined attempt the night killed both of the yakuza clan's killers
    (sensei and yakuza) in world A, whose cards club shows only after the vote (D23);
    the werewolf converted to the yakuza at dawn (D18) and was told so privately. In
    world B the same seats held other cards and nobody converted. Reading the clan's
    end from its own conversion is the werewolf's rule, not a leak: both comparisons
    accept it, and for that reason."""
    worlds, policy_seed = random_case(7236)
    assert worlds.variant == "club" and worlds.deal_a[worlds.observer] == "werewolf"
    reasons: list[str | None] = []
    real = differential.legit

    def recorded(*args: Any) -> str | None:
        reasons.append(real(*args))
        return reasons[-1]

    monkeypatch.setattr(differential, "legit", recorded)
    assert run_refined(run_parallel, worlds, policy_seed) > 0
    assert run_refined(run_aec, worlds, policy_seed) > 0
    own = [r for r in reasons if r is not None and "own card" in r]
    assert own, reasons


def refined_further(worlds: Worlds, policy_seed: int) -> Worlds:
    """Check that the case's first run parts on a card shown and that a refined attempt
    compares further, with world B's cards of the seats kept in place; the second
    attempt's worlds."""
    first = run_parallel(worlds, policy_seed)
    assert worlds.keep, "the first run parts on a card shown"
    attempts: list[tuple[int, Worlds]] = []

    def counted(case: Worlds, seed: int, seen: Counter[str] | None = None) -> int:
        steps = run_parallel(case, seed, seen)
        attempts.append((steps, case))
        return steps

    run_refined(counted, worlds, policy_seed)
    assert len(attempts) >= 2
    assert max(steps for steps, _ in attempts[1:]) > first
    later = attempts[1][1]
    assert worlds.keep <= later.kept and later.deal_b != later.deal_a
    assert all(later.deal_b[s] == later.deal_a[s] for s in later.kept)
    return later


def test_the_question_marks_copy_told_on_day_2_parts_the_worlds_lawfully() -> None:
    """Case 9461 of the seeded sequence: a dictator question mark copies the forger; on
    Day 2 his status and comrades name the mafia's seats (4.11), which differ between
    deals of the hidden cards. The comparison accepts that and goes on to the end."""
    compared = _play(range(9461, 9462))
    assert compared["parallel"] > 0 and compared["aec"] > 0
