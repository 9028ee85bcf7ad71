"""Seating: `balanced` gives every agent each role in the deck's proportions, exactly
after every block of games; fixed seats are honoured; everything is deterministic."""

from __future__ import annotations

from collections import Counter

import pytest

from mafia_arena.experiments.plan import AgentRef, Matchup, game_seed
from mafia_arena.experiments.seating import dealt_roles, seat_agents
from mafia_arena.rules import load_variant
from mafia_arena.rules.composition import deck_counts


def matchup(
    seating: str,
    labels: list[str],
    quotas: dict[str, int] | None = None,
    players: int = 7,
    games: int = 28,
    variant: str = "standard",
) -> Matchup:
    return Matchup(
        f"{variant}-{players}p",
        variant,
        variant,
        "",
        {},
        players,
        games,
        100,
        tuple(AgentRef(label, label) for label in labels),
        quotas or {},
        seating,
    )


def role_counts(m: Matchup) -> dict[str, Counter[str]]:
    variant = load_variant(m.variant)
    counts: dict[str, Counter[str]] = {}
    for index in m.indices:
        seed = game_seed(3, index)
        roles = dealt_roles(variant, m.players, seed)
        for label, role in zip(seat_agents(m, index, 3, variant), roles, strict=True):
            counts.setdefault(label, Counter())[role] += 1
    return counts


@pytest.mark.parametrize(("variant", "players"), [("standard", 7), ("classic", 9)])
def test_balanced_gives_each_agent_the_deck_proportions(variant: str, players: int) -> None:
    m = matchup("balanced", ["a", "b"], players=players, games=players * 2 * 3, variant=variant)
    deck = deck_counts(load_variant(variant), players)
    counts = role_counts(m)
    for label in ("a", "b"):
        seats = sum(counts[label].values())
        assert seats == m.games * players // 2
        for role, k in deck.items():
            assert counts[label][role] * players == seats * k, (label, role, counts)


def test_fixed_seats_are_honoured_and_balanced() -> None:
    m = matchup("balanced", ["a", "b", "llm"], {"llm": 2}, games=7 * 2)
    variant = load_variant("standard")
    for index in m.indices:
        assert Counter(seat_agents(m, index, 3, variant))["llm"] == 2
    counts = role_counts(m)
    deck = deck_counts(variant, 7)
    assert all(counts["llm"][role] * 7 == 2 * m.games * k for role, k in deck.items())
    assert sum(counts["a"].values()) == sum(counts["b"].values())


def test_random_seating_honours_fixed_seats_and_is_deterministic() -> None:
    m = matchup("random", ["a", "b", "llm"], {"llm": 2})
    variant = load_variant("standard")
    tables = [seat_agents(m, i, 3, variant) for i in m.indices]
    assert all(Counter(t)["llm"] == 2 and len(t) == 7 for t in tables)
    assert tables == [seat_agents(m, i, 3, variant) for i in m.indices]
    assert len({tuple(t) for t in tables}) > 1


def holders(m: Matchup, base_seed: int, role: str) -> list[str]:
    """The agent that held `role` (dealt once per game) in each game of the matchup."""
    variant = load_variant(m.variant)
    out = []
    for index in m.indices:
        roles = dealt_roles(variant, m.players, game_seed(base_seed, index))
        labels = seat_agents(m, index, base_seed, variant)
        out.append(labels[roles.index(role)])
    return out


def test_balanced_does_not_tie_one_cards_holder_to_another() -> None:
    """With a fixed offset between deck positions, in a two-agent league at an even
    table the detective's and the doctor's holders would be the same agent in every
    game or in none; the per-block permutation of positions mixes the pairing, so the
    doctor's row in roles.csv is not the detective's row permuted."""
    m = matchup("balanced", ["a", "b"], players=8, games=8 * 2 * 10)
    detective, doctor = holders(m, 3, "detective"), holders(m, 3, "doctor")
    same = sum(x == y for x, y in zip(detective, doctor, strict=True))
    assert 0.25 * m.games < same < 0.75 * m.games


def test_balanced_permutation_follows_the_base_seed_and_stays_balanced() -> None:
    m = matchup("balanced", ["a", "b"], players=8, games=8 * 2 * 4)
    assert holders(m, 3, "detective") != holders(m, 4, "detective")
    for role in ("detective", "doctor"):
        assert Counter(holders(m, 4, role)) == {"a": m.games // 2, "b": m.games // 2}
