"""Text views: a compact, append-only transcript of what one seat knows.

Player words (speech, a described manner of death) are always written as one JSON
string (:func:`quote_speech`): inside it a quotation mark is ``\\"`` and a line break is
``\\n``, so whatever a player types stays inside its own quotation on its own line and
can never close the quotation early or start a line that reads as the host's.

The transcript only grows (events are rendered in log order and never rewritten), so an
LLM prompt built from it keeps a stable prefix between turns and server-side prompt
caching works. The same rendering serves humans in the terminal.
"""

from __future__ import annotations

import json

from mafia_arena.engine.events import Event
from mafia_arena.views.knowledge import Knowledge
from mafia_arena.views.view import View


def name(seat: int | None) -> str:
    return "nobody" if seat is None else f"P{seat + 1}"


def quote_speech(text: str) -> str:
    """A player's words as one quoted, escaped string (see the module docstring)."""
    return json.dumps(text, ensure_ascii=False)


def choice_text(key: str) -> str:
    """``target:4`` → ``P5``; ``kill:2`` → ``kill P3``; speech acts by their key."""
    parts = key.split(":")
    if len(parts) >= 2 and parts[1].isdigit():
        who = name(int(parts[1]))
        return who if parts[0] == "target" else f"{parts[0]} {who}"
    return key


def render_event(event: Event, viewer: int | None = None) -> str | None:
    """One line for an event, or None for events that carry nothing to read."""
    p = event.payload
    kind = event.kind
    prefix = f"[{event.phase[0].upper()}{event.day}] " if event.day else ""
    if kind == "setup":
        comp = ", ".join(f"{c} {r}" for r, c in p["composition"].items())
        return f"Game of {p['variant']} with {p['players']} players: {comp}."
    if kind == "role":
        return f"You are {name(p['seat'])}; your role is {p['role']} ({p['faction']})."
    if kind == "allies":
        allies = ", ".join(f"{name(int(s))} ({r})" for s, r in p["allies"].items())
        return f"You know: {allies or 'nobody'}."
    if kind == "phase":
        return f"--- {p['phase'].capitalize()} {p['number']} ---"
    if kind == "death":
        how = {
            "night": "was killed in the night",
            "execution": "was executed",
            "disqualification": "leaves the game",
        }.get(p["cause"], f"died ({p['cause']})")
        text = f"{prefix}{name(p['seat'])} {how}"
        if "manner" in p:
            text += f": {quote_speech(p['manner'])}"
        return text + (f". Role: {p['role']}." if "role" in p else ".")
    if kind == "reveal":
        return f"{prefix}{name(p['seat'])}'s card: {p['role']}."
    if kind == "no_death":
        return f"{prefix}{p['text']}"
    if kind == "silenced":
        return f"{prefix}Silenced today: {', '.join(name(s) for s in p['seats'])}."
    if kind == "speech":
        where = "" if p["kind"] in ("discussion",) else f" ({p['kind']})"
        return f"{prefix}{name(p['seat'])}{where}: {quote_speech(p['text'])}"
    if kind == "nomination":
        return f"{prefix}{name(p['seat'])} nominates {name(p['target'])}."
    if kind == "nomination_tally":
        tally = ", ".join(f"{name(int(s))} {c}" for s, c in p["tally"].items())
        return f"{prefix}Nominations (round {p['round']}): {tally}."
    if kind == "ballot":
        again = " (re-vote)" if p.get("revote") else ""
        return f"{prefix}{name(p['seat'])} votes against {name(p['target'])}{again}."
    if kind in ("runoff", "last_dead_decision", "narration", "disqualified"):
        return f"{prefix}{p['text']}"
    if kind == "nominees":
        return (
            f"{prefix}Nominated for the final vote: "
            + " and ".join(name(s) for s in p["seats"])
            + "."
        )
    if kind == "votes":
        votes = ", ".join(f"{name(int(v))}→{name(t)}" for v, t in p["votes"].items())
        return f"{prefix}Votes ({p['kind']}): {votes}."
    if kind == "no_execution":
        return f"{prefix}Nobody is executed ({p['reason']})."
    if kind == "group_picks":
        picks = ", ".join(f"{name(int(s))}→{choice_text(c)}" for s, c in p["picks"].items())
        return f"{prefix}Team picks for {p['step']} (round {p['round']}): {picks}."
    if kind == "night_action":
        whose = "Your team's" if "seats" in p else "Your"
        return (
            f"{prefix}{whose} night action ({p['step'].replace('_', ' ')}): "
            f"{', '.join(choice_text(c) for c in p['choices'])}."
        )
    if kind == "night_result":
        target = p.get("target", p.get("targets"))
        if isinstance(target, list):
            target = " & ".join(name(t) for t in target)
        elif isinstance(target, int):
            target = name(target)
        result = p["result"]
        if isinstance(result, list):
            result = ", ".join(name(s) for s in result) or "nobody"
        return f"{prefix}Result of your {p.get('action', p.get('step'))} on {target}: {result}."
    if kind == "blocked":
        return f"{prefix}You could not act tonight ({p['step']})."
    if kind == "role_change":
        return f"{prefix}Your role is now {p['role']}."
    if kind == "protected":
        return f"{prefix}{p['text']}"
    if kind == "game_over":
        roles = ", ".join(f"{name(int(s))} {r}" for s, r in p["roles"].items())
        return f"Game over: {p['winner'] or 'draw'} wins. Roles: {roles}."
    return None


def render_transcript(knowledge: Knowledge) -> str:
    lines = (render_event(e, knowledge.seat) for e in knowledge.events)
    return "\n".join(line for line in lines if line)


def render_view(view: View) -> str:
    """The transcript followed by the current decision and its labelled choices."""
    text = render_transcript(view.knowledge)
    request = view.request
    if request is None:
        return text
    options = "\n".join(f"  [{i}] {label}" for i, label in enumerate(request.labels))
    extra = "\n  (or say anything in your own words)" if request.free_text else ""
    return f"{text}\n\nNOW ({name(view.seat)}): {request.prompt}\n{options}{extra}"
