"""`heuristic:liar`, kept importable under its old module: the heuristic in its liar style.

Why the style exists: a town policy trained only against the plain heuristic learns to
believe every "My check: Px is mafia." (a balanced heuristic mafioso claims falsely
only now and then), and then loses to any mafia that lies. The preset lives with the
others in `agents.heuristic.style` (`LIAR`); this module only names it.
"""

from __future__ import annotations

from mafia_arena.agents.heuristic import HeuristicAgent
from mafia_arena.agents.heuristic.style import LIAR


class LiarAgent(HeuristicAgent):
    """`HeuristicAgent` with the `LIAR` style (the registered ``heuristic:liar``)."""

    def __init__(self, seed: int = 0, *, strict: bool = False) -> None:
        super().__init__(seed, strict=strict, style=LIAR)
