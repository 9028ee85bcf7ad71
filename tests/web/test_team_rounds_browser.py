"""A team's later round of night picks says which round it is and why it is asked.

Two people hold the mafiosi of a 7-player `standard` game (seed 1 deals P1 and P6 the
mafiosi) and pick different victims: the rules give the mafia a second round to agree
(docs/rules/standard.md), and both pages must say so. Before, the second round's
prompt was the first one's word for word ("Night 1: choose tonight's victim"), so a
person read it as their click lost and nothing said the team had not agreed. The page
adds the round (`web.render.team_round_prompt`, from the team's picks the seat was
shown); the engine's prompt, part of every stored log, is left as it was. The first
round's picks in the transcript say their round of how many (`people_line`).
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.web.browser_support import join_all
from tests.web.support import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

HUMAN, BOT = {"kind": "human"}, {"kind": "bot", "agent": "random"}


def test_a_mafia_that_did_not_agree_is_told_so_in_its_second_round(
    browser: Any, server: LiveServer
) -> None:
    created = server.create(
        variant="standard", players=7, seed=1, seats=[HUMAN, BOT, BOT, BOT, BOT, HUMAN, BOT]
    )
    contexts, pages = join_all(browser, server.url, created, {"width": 1280, "height": 860})
    first = "Night 1: choose tonight's victim"
    for page in pages:
        page.wait_for_selector("#choices button:has-text('kill P2')")
        assert page.locator("#you-role").inner_text() == "mafioso"
        assert page.locator("#prompt").inner_text() == first
    pages[0].click("#choices button:has-text('kill P2')")
    pages[1].click("#choices button:has-text('kill P3')")
    again = f"{first} (round 2 of 2: the team did not agree)"
    for page in pages:
        page.wait_for_selector(f'#prompt:text-is("{again}")')
        assert page.locator("#choices button:enabled").count() == 5  # P2, P3, P4, P5, P7
        lines = page.locator("#transcript li").all_inner_texts()
        assert any(
            "Team picks for the mafia's kill (round 1 of 2): P1→P2, P6→P3." in t for t in lines
        )
    for context in contexts:
        context.close()
