"""Diff seeded playthroughs (text views and observations) against the committed files."""

import os
from pathlib import Path

import pytest
from tests.golden.playthrough import CASES, dumps

from mafia_arena.rules import available_variants

HERE = Path(__file__).parent / "files"
PARAMS = [(v, n, s) for v, cases in CASES.items() for n, s in cases]


def _compare(path: Path, text: str) -> None:
    if os.environ.get("UPDATE_GOLDEN") or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if not os.environ.get("UPDATE_GOLDEN"):
            pytest.fail(f"golden file {path.name} was missing and has been written")
    assert text == path.read_text(), f"playthrough differs from {path.name}"


@pytest.mark.parametrize(
    ("variant", "players", "seed"), PARAMS, ids=[f"{v}-{n}-{s}" for v, n, s in PARAMS]
)
def test_golden_playthrough(variant, players, seed):
    if variant not in available_variants():
        pytest.skip(f"variant {variant} not bundled")
    text, observations = dumps(variant, players, seed)
    _compare(HERE / f"{variant}-{players}p-seed{seed}.txt", text)
    _compare(HERE / f"{variant}-{players}p-seed{seed}.obs.txt", observations)
