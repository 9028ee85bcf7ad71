"""A form may be withdrawn until the phase's deadline (rules/dictator.md 3.1): the
dictator's order, a Revolution PN, a night form; the attack and the kill authority's
transfers take effect at once and have nothing to withdraw."""

from __future__ import annotations

from tests.dictator.table import C1, C5, A, Table, c, dictator, name, revolt, small, texts

from mafia_arena.engine.catalogue import Death, FormNoted, NoExecution
from mafia_arena.engine.forum.forms import IMMEDIATE, ROLE_VERBS, WITHDRAWABLE
from mafia_arena.views import view_of


def verbs(t: Table, seat: int) -> set[str]:
    return {choice.verb for choice in t.game.pending()[seat].choices}


def test_a_withdrawn_execution_order_executes_nobody() -> None:
    t = Table().to("day", 1)
    assert dictator(t) == C1 and "withdraw" not in verbs(t, C1)
    t.act(C1, c("execute", C5), c("withdraw", None, "execute")).phase()
    assert t.alive(C5) and not t.last_phase_facts(Death)
    assert texts(t.last_phase_facts(NoExecution), "reason") == ["Nobody was executed today."]
    told = [e.fact for e in view_of(t.game, C1).knowledge.events]
    assert FormNoted("withdraw", "withdraw your execution order") in told
    others = [e.fact for e in view_of(t.game, C5).knowledge.events]
    assert not any(isinstance(f, FormNoted) and f.form in ("execute", "withdraw") for f in others)


def test_a_revised_then_withdrawn_order_leaves_nothing_and_the_offer_goes_with_it() -> None:
    t = Table().to("day", 1)
    game = t.game
    for seat in sorted(game.pending()):
        game.submit(seat, c("execute", C5) if seat == C1 else c("pass"))
    assert "withdraw" in verbs(t, C1)
    game.submit(C1, c("withdraw", None, "execute"))
    assert "withdraw" not in verbs(t, C1)
    t.phase()
    assert t.alive(C5), name(C5)


def test_a_withdrawn_revolution_pn_no_longer_counts() -> None:
    for withdrawn, deposed in ((False, True), (True, False)):
        t = small()
        t.act(10, c("execute", 11)).phase()  # Night 1 starts with 11 players: 6 needed
        revolt(t, {A: list(range(6))})
        if withdrawn:
            t.act(0, c("withdraw", None, "revolution"))
        t.phase()
        assert (dictator(t) == A) is deposed


def test_every_form_verb_is_either_withdrawable_or_immediate() -> None:
    assert not set(IMMEDIATE) & set(WITHDRAWABLE)
    assert set(IMMEDIATE) | set(WITHDRAWABLE) == ROLE_VERBS - {"withdraw"}
