"""Detection metrics of the town side: do the town's votes and checks find the mafia?

Formulas (docs/metrics.md has them with examples). Votes are the published day ballots
(`votes` events of any kind: ``vote`` for plurality, ``final_vote`` for classic);
nominations are scored separately. Sides are taken at the moment of each event.
"""

from __future__ import annotations

from typing import Any

from mafia_arena.metrics.calibration import Pair, auc, brier, calibration_error, overconfidence
from mafia_arena.metrics.facts import MAFIA, TOWN, GameFacts
from mafia_arena.metrics.ratios import Counts, ratio

PerSeat = dict[int, dict[str, Any]]


def detection(f: GameFacts) -> tuple[PerSeat, dict[str, Any]]:
    irp, vss, vss_cast, nominations, checks = Counts(), Counts(), Counts(), Counts(), Counts()
    for ballot in f.ballots:
        for voter, target in ballot.votes.items():
            if target is not None and ballot.sides[voter] == TOWN:
                irp.add(voter, ballot.sides[target] == MAFIA)
    mafia_executed = 0
    for execution in f.executions:
        if execution.side != MAFIA:
            continue
        mafia_executed += 1
        if execution.ballot is None:
            continue
        ballot = execution.ballot
        for seat in sorted(ballot.alive):  # Kaggle's VSS: every living village player
            if ballot.sides.get(seat) == TOWN:
                vss.add(seat, ballot.votes.get(seat) == execution.seat)
        for voter, target in ballot.votes.items():
            if target is not None and ballot.sides[voter] == TOWN:
                vss_cast.add(voter, target == execution.seat)
    for voter, _target, voter_side, target_side in f.nominations:
        if voter_side == TOWN:
            nominations.add(voter, target_side == MAFIA)
    # a hunt for hidden mafia among the living: the Medium's questions to ghosts are not
    living_checks = [c for c in f.checks if c.living]
    check_hits = [c.target_side == MAFIA for c in living_checks]
    for check in living_checks:
        for seat in check.seats:
            checks.add(seat, check.target_side == MAFIA)
    pairs_by_seat: dict[int, list[Pair]] = {}
    for _seq, seat, probs, sides in f.beliefs:
        pairs = pairs_by_seat.setdefault(seat, [])
        pairs.extend((p, int(sides.get(t) == MAFIA)) for t, p in probs.items() if t != seat)
    all_pairs = [pair for pairs in pairs_by_seat.values() for pair in pairs]
    per_seat: PerSeat = {}
    for seat in range(f.players):
        pairs = pairs_by_seat.get(seat, [])
        per_seat[seat] = {
            "irp": irp.of(seat),
            "vss": vss.of(seat),
            "vss_cast": vss_cast.of(seat),
            "nomination_irp": nominations.of(seat),
            "check_hit_rate": checks.of(seat),
            "brier": brier(pairs),
            "auc": auc(pairs),
            "calibration_error": calibration_error(pairs),
            "overconfidence": overconfidence(pairs),
        }
    game = {
        "irp": irp.total(),
        "vss": vss.total(),
        "vss_cast": vss_cast.total(),
        "nomination_irp": nominations.total(),
        "mafia_elim_share": ratio(mafia_executed, len(f.executions)),
        "investigator_hit_rate": ratio(sum(check_hits), len(check_hits)),
        "brier": brier(all_pairs),
        "auc": auc(all_pairs),
        "calibration_error": calibration_error(all_pairs),
        "overconfidence": overconfidence(all_pairs),
    }
    return per_seat, game
