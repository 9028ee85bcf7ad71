"""classic.md 5.3: the worked nomination examples as a table of vote counts → outcome."""

import pytest

from mafia_arena.engine.voting.nominate_final import split_places

P1, P2, P3, P4, P5 = range(5)

# (id, tally, places, expected secured, expected tie set, runoff needed)
CASES = [
    ("TC-N1", {P1: 4, P2: 3, P3: 2, P4: 1, P5: 0}, 2, [P1], [P2], False),
    ("TC-N2", {P1: 3, P2: 3, P3: 3, P4: 1, P5: 0}, 2, [], [P1, P2, P3], True),
    ("TC-N3", {P1: 4, P2: 2, P3: 2, P4: 2, P5: 0}, 2, [P1], [P2, P3, P4], True),
    ("TC-N4", {P1: 4, P2: 4, P3: 1, P4: 1, P5: 0}, 2, [], [P1, P2], False),
    ("TC-N5", {P1: 3, P2: 3, P3: 2, P4: 2, P5: 0}, 2, [], [P1, P2], False),
    ("TC-N6", {P1: 4, P2: 3, P3: 3}, 2, [P1], [P2, P3], True),
    ("TC-N7", {P1: 4, P2: 4, P3: 2}, 2, [], [P1, P2], False),
    ("TC-N8", {P2: 3, P3: 1, P4: 1}, 1, [], [P2], False),
    ("TC-N9", {P2: 2, P3: 2, P4: 1}, 1, [], [P2, P3], True),
    ("TC-N10", {P2: 1, P3: 1, P4: 1}, 1, [], [P2, P3, P4], True),
    ("TC-N11", {P1: 4, P2: 0, P3: 0, P4: 0, P5: 0}, 2, [P1], [P2, P3, P4, P5], True),
    ("TC-N12", {P1: 0, P2: 0, P3: 0, P4: 0, P5: 0}, 2, [], [P1, P2, P3, P4, P5], True),
    ("TC-N13", {P1: 0, P2: 1}, 2, [P2], [P1], False),
]


@pytest.mark.parametrize(
    ("case", "tally", "places", "secured", "tied", "runoff"), CASES, ids=[c[0] for c in CASES]
)
def test_worked_nomination_examples(case, tally, places, secured, tied, runoff):
    got_secured, got_tied = split_places(tally, places)
    assert got_secured == secured
    assert got_tied == tied
    assert (len(got_secured) + len(got_tied) != places) == runoff
