"""The page for a person who plays with the keyboard only, or with a screen reader, in
real Chromium: a whole game played from the keyboard (each turn takes the focus, an
answer does not drop it), what the live regions announce (a turn, its last seconds,
the end; the countdown once, not every second), names and states in Chromium's own
accessibility tree (vote buttons, the sound and alerts switches, the dead in the players
list, landmarks and headings), and the contrast of every shown text (WCAG AA).

The accessibility tree is read through the Chrome DevTools Protocol
(`Accessibility.queryAXTree`, `Accessibility.getFullAXTree`) of the same Playwright
driver as the other browser tests; no checker is added to the test dependencies.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import random
import re
import secrets
import time
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.web.browser_support import step
from tests.web.support import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

# Every text either live region is given, in order (a region whose text is replaced
# keeps only the last one).
RECORD_ANNOUNCEMENTS = """
window.__said = { polite: [], urgent: [] };
new MutationObserver(() => {
  for (const [id, key] of [["announce", "polite"], ["announce-urgent", "urgent"]]) {
    const node = document.getElementById(id);
    const text = node && node.textContent.trim();
    const said = window.__said[key];
    if (text && said[said.length - 1] !== text) said.push(text);
  }
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


def _open_seat(
    browser: Any, server: LiveServer, name: str, window: dict[str, Any] | None = None, **spec: Any
) -> tuple[Any, Any]:
    """One human seat (P1) in a 7-player standard game of random bots, joined by `name`
    on its own page, which records its announcements; `window` the browser context's
    options (a 1280×860 desktop window unless given)."""
    created = server.create(
        variant="standard", players=7, seed=3, seats=[{"kind": "human"}], **spec
    )
    context = browser.new_context(**(window or {"viewport": {"width": 1280, "height": 860}}))
    context.add_init_script(RECORD_ANNOUNCEMENTS)
    page = context.new_page()
    page.goto(f"{server.url}/g/{created['game_id']}#invite={created['invites'][0]['invite']}")
    page.fill("#join-name", name)
    page.click("#join-button")
    page.wait_for_selector("#game:not([hidden])")
    return context, page


def _until(page: Any, check: Any, what: str, timeout: float = 60) -> Any:
    """Poll `check()` until it is truthy (the page's CSP forbids Playwright's eval-based
    waits); its value."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, what
        page.wait_for_timeout(50)


def _focused(page: Any) -> dict[str, Any]:
    """Where the keyboard focus is: the element's id, tag, text, whether it is inside
    the move panel, and whether it is enabled."""
    return page.evaluate(
        """(() => { const a = document.activeElement;
        return { id: a.id, tag: a.tagName, text: (a.textContent || '').trim().slice(0, 60),
                 inAction: document.getElementById('action').contains(a),
                 enabled: !a.disabled, body: a === document.body }; })()"""
    )


def _next_turn(page: Any, answered: str) -> Any:
    """A check for `_until`: "end" once the end screen shows, else the open turn's id
    when it is not `answered` ("" while there is none)."""
    expression = f"app.turn === null || String(app.turn) === {answered!r} ? '' : String(app.turn)"

    def check() -> str:
        return "end" if page.locator("#end").is_visible() else str(page.evaluate(expression))

    return check


def _tab_to(page: Any, selector: str, limit: int = 60) -> None:
    """Press Tab until the element `selector` has the focus (the keyboard's way there)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(f"document.activeElement === document.querySelector({selector!r})"):
            return
    raise AssertionError(f"Tab never reached {selector}")


def _ax_under(page: Any, selector: str, role: str) -> list[dict[str, Any]]:
    """The accessibility nodes of `role` inside the element `selector`, as Chromium's
    accessibility tree has them (Accessibility.queryAXTree)."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Accessibility.enable")
        found = cdp.send(
            "Runtime.evaluate", {"expression": f"document.querySelector({selector!r})"}
        )
        object_id = found["result"]["objectId"]
        nodes = cdp.send("Accessibility.queryAXTree", {"objectId": object_id, "role": role})
        return [n for n in nodes["nodes"] if not n.get("ignored")]
    finally:
        cdp.detach()


def _ax_all(page: Any) -> list[dict[str, Any]]:
    """Every node of the page's accessibility tree that is not ignored."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Accessibility.enable")
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
        return [n for n in nodes if not n.get("ignored")]
    finally:
        cdp.detach()


def _name(node: dict[str, Any]) -> str:
    return str(node.get("name", {}).get("value", ""))


def _prop(node: dict[str, Any], prop: str) -> Any:
    for p in node.get("properties", []):
        if p["name"] == prop:
            return p["value"].get("value")
    return None


def test_a_keyboard_player_plays_a_whole_game(
    browser: Any, server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Create, take a seat and play to the end with Tab, Enter and typing only (the
    lobby's buttons named apart): each new turn takes the focus to its first control
    (the speech box or the first choice), an answer leaves the focus in the move panel
    (not on the page's top), each turn and the end are announced at once, and the end
    screen's title then has the focus. The create form deals from a random seed; the
    seed is fixed here (a deal where P1 lives to take turns: with a random one, P1 was
    sometimes killed before its first turn, about 1 game in 25)."""
    monkeypatch.setattr(secrets, "randbelow", lambda _: 3)
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    context.add_init_script(RECORD_ANNOUNCEMENTS)
    page = context.new_page()
    try:
        page.goto(server.url + "/")
        expect(page.locator("#create-button")).to_be_enabled()
        _tab_to(page, "#bot-delay")
        page.keyboard.press("Control+A")
        page.keyboard.type("0")
        _tab_to(page, "#create-button")
        page.keyboard.press("Enter")
        page.wait_for_selector("#invites li")
        names = [_name(b) for b in _ax_under(page, "#admin", "button")]
        assert len(names) == len(set(names)), names  # each "Copy link" says whose link
        _tab_to(page, "#creator-name")
        page.keyboard.type("Keys")
        _tab_to(page, "#invites li button:nth-of-type(2)")  # "Take P1 myself"
        page.keyboard.press("Enter")
        page.wait_for_selector("#game:not([hidden])")
        turns, answered = 0, ""
        while not page.locator("#end").is_visible():
            turn = _until(page, _next_turn(page, answered), "no turn and no end", timeout=90)
            if turn == "end":
                break
            focus = _focused(page)
            assert focus["inAction"] and focus["enabled"], f"turn {turn}: focus on {focus}"
            assert focus["tag"] in ("BUTTON", "INPUT"), focus
            if focus["tag"] == "INPUT":
                page.keyboard.type(f"I am listening {turns}")
            page.keyboard.press("Enter")
            answered, turns = turn, turns + 1
            after = _focused(page)
            if not page.locator("#end").is_visible():
                assert not after["body"] and after["inAction"], f"after answering: {after}"
        assert turns >= 2
        expect(page.locator("#end-title")).to_be_focused()
        said = page.evaluate("window.__said.urgent")
        assert sum(s.startswith("Your turn: ") for s in said) >= 2, said
        assert said[-1].startswith("Game over"), said
        _tab_to(page, "#rematch")  # the end screen's controls are reachable
        _tab_to(page, "#replay-seat")
    finally:
        context.close()


def test_the_tree_names_vote_buttons_switches_and_the_dead(
    browser: Any, server: LiveServer
) -> None:
    """Chromium's accessibility tree: a vote button's name says whom it votes for
    ("vote for P3 <name>"), the sound switch is a checkbox whose state Space changes,
    a dead player's row says "dead" in words, and the page has a level-1 heading, a
    banner, a main area, named complementary areas and the named move region."""
    context, page = _open_seat(browser, server, "Ears")
    rng = random.Random(5)
    try:
        deadline = time.monotonic() + 120
        while not _vote_open(page):  # play until a vote with seat buttons is open
            assert time.monotonic() < deadline, "no vote turn came"
            assert not step(page, rng, None), "the game ended before a vote"
            page.wait_for_timeout(40)
        buttons = _ax_under(page, "#choices", "button")
        names = [_name(b) for b in buttons]
        players = dict(
            (row.split("\n")[0], row.split("\n")[1])
            for row in page.locator("#players-list li").all_inner_texts()
        )
        seat_named = [n for n in names if re.match(r"vote for P\d+ ", n)]
        assert seat_named, names
        for name in seat_named:
            label = name.split()[2]
            assert name == f"vote for {label} {players[label]}", name
        dead = page.locator("#players-list li.dead")
        assert dead.count() >= 1  # the first night's victim
        items = _ax_under(page, "#players-list", "listitem")
        dead_names = [i for i in items if "dead" in _ax_text(page, i)]
        assert len(dead_names) == dead.count()
        assert "dead" in dead.first.inner_text().split("\n")

        sound = _ax_under(page, "#toggles", "checkbox")
        assert [(_name(n), _prop(n, "checked")) for n in sound] == [
            ("sound", "false"),
            ("alerts", "false"),
        ]
        page.focus("#sound")
        page.keyboard.press("Space")
        checked = [_prop(n, "checked") for n in _ax_under(page, "#toggles", "checkbox")]
        assert checked == ["true", "false"]

        tree = _ax_all(page)
        roles = [(n["role"]["value"], _name(n)) for n in tree]
        headings = [n for n in tree if n["role"]["value"] == "heading"]
        assert [_name(h) for h in headings if _prop(h, "level") == 1] == ["Mafia Arena"]
        assert ("banner", "") in roles and ("main", "") in roles
        assert ("complementary", "Your card and the players") in roles
        assert ("complementary", "Votes and channels") in roles
        assert ("region", "Your move") in roles
    finally:
        context.close()


def _vote_open(page: Any) -> bool:
    """Whether the open turn is a vote offering seats (its prompt says vote)."""
    prompt = (page.locator("#prompt").text_content() or "").lower()
    return (
        "vote" in prompt
        and page.locator("#choices button:enabled", has_text=re.compile(r"^P\d+$")).count() > 0
    )


def _ax_text(page: Any, node: dict[str, Any]) -> str:
    """The text a screen reader reads for a list item: its DOM node's text content
    (Chromium names a list item only when asked to by its content)."""
    cdp = page.context.new_cdp_session(page)
    try:
        resolved = cdp.send("DOM.resolveNode", {"backendNodeId": node["backendDOMNodeId"]})
        text = cdp.send(
            "Runtime.callFunctionOn",
            {
                "objectId": resolved["object"]["objectId"],
                "functionDeclaration": "function () { return this.innerText; }",
                "returnByValue": True,
            },
        )
        return str(text["result"]["value"])
    finally:
        cdp.detach()


def test_a_turn_and_its_last_seconds_are_announced_once(browser: Any, server: LiveServer) -> None:
    """A turn opening is announced at once ("Your turn: <prompt>"); the countdown is not
    a live region, and its last ten seconds are announced once, not every second (timers
    at 0.3 of their length: the first turn runs out within half a minute)."""
    context, page = _open_seat(browser, server, "Clock", timer_scale=0.3)
    try:
        turn = _until(page, _next_turn(page, ""), "no turn")
        prompt = page.locator("#prompt").inner_text()
        urgent = page.evaluate("window.__said.urgent")
        assert f"Your turn: {prompt}" in urgent, urgent
        assert page.get_attribute("#timer", "aria-live") == "off"
        warned = _until(
            page,
            lambda: [s for s in page.evaluate("window.__said.urgent") if "seconds left" in s],
            "the last seconds were not announced",
        )
        assert warned == ["10 seconds left to answer."], warned
        page.wait_for_timeout(3000)  # three more seconds counted down, none read out
        assert page.evaluate("String(app.turn)") == turn  # still the same turn
        warned = [s for s in page.evaluate("window.__said.urgent") if "seconds left" in s]
        assert warned == ["10 seconds left to answer."], warned
    finally:
        context.close()


# WCAG 2's colour arithmetic in the page: a computed colour as [r, g, b, alpha], the
# relative luminance, one colour over another, what lies behind an element (the nearest
# background colours up the tree, blended over white) and the contrast ratio of a
# colour over a background.
COLOURS = """
  const rgba = (c) => {
    const m = c.match(/[\\d.]+/g).map(Number);
    return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1];
  };
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const over = ([r, g, b, a], [R, G, B]) =>
    [r * a + R * (1 - a), g * a + G * (1 - a), b * a + B * (1 - a)];
  const background = (el) => {
    const layers = [];
    for (let n = el; n; n = n.parentElement) {
      const bg = rgba(getComputedStyle(n).backgroundColor);
      if (bg[3] > 0) layers.push(bg);
      if (bg[3] === 1) break;
    }
    let out = [255, 255, 255];
    for (const layer of layers.reverse()) out = over(layer, out);
    return out;
  };
  const ratio = (fg, bg) => {
    const a = lum(over(fg, bg)), b = lum(bg);
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  };
"""

# Every shown text's contrast against what lies behind it: the text colour (with the
# opacity of its element and their ancestors) blended over the nearest background
# colour up the tree; disabled controls (inactive, exempt in WCAG) and text a screen
# reader alone reads are left out.
CONTRAST = (
    "(() => {"
    + COLOURS
    + """
  const bad = [];
  for (const el of document.querySelectorAll("body *")) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length || el.closest(".sr-only, option, [disabled]")) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden") continue;
    let opacity = 1;
    for (let n = el; n; n = n.parentElement) opacity *= Number(getComputedStyle(n).opacity);
    const fg = rgba(style.color); fg[3] *= opacity;
    const contrast = ratio(fg, background(el));
    const text = el.textContent.trim().slice(0, 30);
    if (contrast < 4.5) bad.push(`${el.tagName}.${el.className} "${text}" ${contrast.toFixed(2)}`);
  }
  return bad;
})()
"""
)


def _low_contrast(page: Any, moment: str) -> list[str]:
    """The texts under 4.5:1 (WCAG AA, normal text) with the browser asking for a light
    and for a dark scheme."""
    bad = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        bad += [f"{moment} ({scheme}): {b}" for b in page.evaluate(CONTRAST)]
    return bad


def test_every_shown_text_meets_wcag_aa_contrast(browser: Any, server: LiveServer) -> None:
    """Normal text at 4.5:1 or more (WCAG AA) on the home page, in a game with a dead
    player and on the end screen, whichever colour scheme the browser asks for."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    home = context.new_page()
    home.goto(server.url + "/")
    expect(home.locator("#create-button")).to_be_enabled()
    bad = _low_contrast(home, "home")
    home.close()
    context.close()
    context, page = _open_seat(browser, server, "Eyes")
    rng = random.Random(11)
    try:
        deadline = time.monotonic() + 120
        while not page.locator("#players-list li.dead").count():
            assert time.monotonic() < deadline, "nobody died"
            assert not step(page, rng, None), "the game ended before a death"
            page.wait_for_timeout(40)
        bad += _low_contrast(page, "game")
        _until(page, lambda: step(page, rng, None), "the game did not end", timeout=180)
        page.wait_for_selector("#replay li")
        bad += _low_contrast(page, "end")
        assert bad == []
    finally:
        context.close()


# Each text box's placeholder ("Say something…", "guest"): its colour and opacity as
# Chromium computes them for ::placeholder, over the box's own background.
PLACEHOLDERS = (
    "(() => {"
    + COLOURS
    + """
  return [...document.querySelectorAll("input[placeholder]")].map((el) => {
    const style = getComputedStyle(el, "::placeholder");
    const fg = rgba(style.color); fg[3] *= Number(style.opacity);
    return [el.id, ratio(fg, background(el))];
  });
})()
"""
)


def test_placeholders_meet_wcag_aa_contrast(browser: Any, server: LiveServer) -> None:
    """Every text box's placeholder (the join page's name, the creator's name, the speech,
    chat and ruling boxes) is at 4.5:1 or more on its box, whichever colour scheme the
    browser asks for: Chromium's own grey was 3:1 on the dark boxes."""
    created = server.create(variant="standard", players=7, seed=3, seats=[{"kind": "human"}])
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    try:
        page.goto(f"{server.url}/g/{created['game_id']}#invite={created['invites'][0]['invite']}")
        expect(page.locator("#join-name")).to_be_visible()
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            ratios = dict(page.evaluate(PLACEHOLDERS))
            assert {"join-name", "creator-name", "speech-text", "chat-text", "ruling-value"} <= set(
                ratios
            ), ratios
            low = {box: round(r, 2) for box, r in ratios.items() if r < 4.5}
            assert low == {}, f"{scheme}: {low}"
    finally:
        context.close()


PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def test_on_a_phone_tab_follows_the_headers_two_rows(browser: Any, server: LiveServer) -> None:
    """At phone width the header is two rows: the name and the sound and alerts switches,
    then the phase, the countdown and the players button. Tab goes through them in that
    order (it went from the name to the players button on the second row, then back up
    to the switches): each control it reaches lies after the last one, row by row."""
    context, page = _open_seat(browser, server, "Thumbs", window=PHONE)
    try:
        expect(page.locator("#players-toggle")).to_be_visible()
        _tab_to(page, "#brand")
        reached = []
        for _ in range(3):
            page.keyboard.press("Tab")
            reached.append(
                page.evaluate(
                    """(() => { const a = document.activeElement;
                    const r = (a.closest('label') || a).getBoundingClientRect();
                    return [a.id, Math.round(r.top + r.height / 2), Math.round(r.left)]; })()"""
                )
            )
        assert [r[0] for r in reached] == ["sound", "alerts", "players-toggle"], reached
        brand = page.locator("#brand").bounding_box()
        assert brand is not None
        # reading order: a lower row (6 px apart) comes later; within a row, left to right
        places = [(round(brand["y"] + brand["height"] / 2), round(brand["x"]))] + [
            (r[1], r[2]) for r in reached
        ]
        for (top, left), (next_top, next_left) in itertools.pairwise(places):
            assert next_top > top + 6 or (abs(next_top - top) <= 6 and next_left > left), places
    finally:
        context.close()


# Whether the focused element can be seen: inside the window, and what lies at its
# centre is the element itself (not the sticky header, nor the window's edge).
FOCUS_SEEN = """(() => {
  const a = document.activeElement, r = a.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return { id: a.id, top: Math.round(r.top), seen: r.top >= 0 && r.bottom <= innerHeight
           && !!hit && (hit === a || a.contains(hit)) };
})()"""


def test_a_new_turn_brings_the_focused_box_into_a_short_window(
    browser: Any, server: LiveServer
) -> None:
    """In a short window, a player whose speech box has the focus scrolls down to read
    the table; the next turn opens with the box still shown (a turn that closed
    unanswered, the next one at once: the server's push again with the next turn's
    number). The box is brought back into the window, clear of the sticky header: the
    browser does not scroll for a focus the box already has, and it stayed out of sight."""
    created = server.create(variant="standard", players=7, seed=3, seats=[{"kind": "human"}])
    context = browser.new_context(viewport={"width": 1280, "height": 400})
    page = context.new_page()
    pushes: list[dict[str, Any]] = []

    def heard(ws: Any) -> None:
        ws.on("framereceived", lambda frame: pushes.append(json.loads(frame)))

    page.on("websocket", heard)
    try:
        page.goto(f"{server.url}/g/{created['game_id']}#invite={created['invites'][0]['invite']}")
        page.fill("#join-name", "Short")
        page.click("#join-button")
        page.wait_for_selector("#game:not([hidden])")
        choices = page.locator("#choices button:enabled")

        def speaking() -> bool:
            if page.evaluate("document.activeElement.id") == "speech-text":
                return True
            assert not page.locator("#end").is_visible(), "the game ended before a speech"
            if choices.count():
                with contextlib.suppress(Exception):  # re-rendered under the click
                    choices.first.click(timeout=2000)
            return False

        _until(page, speaking, "no speaking turn came", timeout=90)
        turn = page.evaluate("app.turn")
        asked = next(
            m
            for m in reversed(pushes)
            if m.get("type") == "state" and (m.get("request") or {}).get("turn") == turn
        )
        page.mouse.wheel(0, 3000)  # down to the table; the box keeps the focus
        _until(page, lambda: not page.evaluate(FOCUS_SEEN)["seen"], "the box stayed in view")
        assert page.evaluate("document.activeElement.id") == "speech-text"
        following = {**asked, "reset": False, "lines": []}
        following["request"] = {**asked["request"], "turn": turn + 1}
        page.evaluate("(push) => renderState(push)", following)
        assert page.evaluate("app.turn") == turn + 1
        seen = page.evaluate(FOCUS_SEEN)
        assert seen["id"] == "speech-text" and seen["seen"], seen
    finally:
        context.close()
