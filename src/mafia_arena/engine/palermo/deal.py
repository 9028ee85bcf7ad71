"""The intrigue-card deal (2.3), run once after the roles are dealt.

Counts: one copy per `ratio` players (floor, at least one) or the card's fixed
`copies`. Order: Resurrection first, split across the camps when there are two or more
copies (copy 1 to the mafia camp, copy 2 to the good camp, the rest to anyone); then the
unique Failed Assassination to a good-camp player who is not the Rival Mafioso; then
every other copy in the file's `deal_order`. Every copy goes to a uniformly drawn player
who holds no card yet (at most one card each), and every draw is a logged draw of the
game's generator, so the deal replays.
"""

from __future__ import annotations

from mafia_arena.engine.game import Game
from mafia_arena.engine.palermo.roles import GOOD_CAMP, MAFIA_CAMP, RIVAL
from mafia_arena.rules.palermo import PalermoSpec


def card_counts(spec: PalermoSpec, players: int) -> dict[str, int]:
    """Copies of each card at this table size, in deal order."""
    order = [spec.deal_first, spec.deal_unique, *spec.deal_order]
    return {card: spec.cards[card].count(players) for card in order}


def deal_cards(game: Game, spec: PalermoSpec) -> dict[int, str]:
    """Seat → card for every holder (2.3). Raises ValueError if the pool runs dry."""
    counts = card_counts(spec, game.players)
    pool = list(range(game.players))
    held: dict[int, str] = {}

    def give(card: str, candidates: list[int]) -> None:
        if not candidates:
            raise ValueError(f"no player left to receive {card}")
        seat = game.draw(f"card:{card}", candidates)
        held[seat] = card
        pool.remove(seat)

    def camp(seat: int) -> str:
        return game.state.seats[seat].faction

    first = spec.deal_first
    for copy in range(counts[first]):
        if counts[first] >= 2 and copy == 0:
            give(first, [s for s in pool if camp(s) == MAFIA_CAMP])
        elif counts[first] >= 2 and copy == 1:
            give(first, [s for s in pool if camp(s) == GOOD_CAMP])
        else:
            give(first, list(pool))
    unique = spec.deal_unique
    for _ in range(counts[unique]):
        give(
            unique,
            [s for s in pool if camp(s) == GOOD_CAMP and game.state.seats[s].role != RIVAL],
        )
    for card in spec.deal_order:
        for _ in range(counts[card]):
            give(card, list(pool))
    return held
