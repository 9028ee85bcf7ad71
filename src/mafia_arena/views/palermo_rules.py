"""The Palermo part of the rules text: player states, the forum clock, the cards.

Generated from the variant's ``[palermo]`` table and the engine's capability table
(`engine.player_states`), so what LLM and human players read follows the switches
and the data the engine runs on: how many moves a phase allows, each card's deal rule,
timing windows and effect, the deal order, the vendetta window at this table size,
the absence limits and the round cap.
"""

from __future__ import annotations

from mafia_arena.engine.player_states import CAPABILITIES, Capability, PlayerState
from mafia_arena.rules import Variant
from mafia_arena.rules.palermo import PalermoSpec
from mafia_arena.views.rules_text import HIDDEN_VOTES

_PHASES = {
    "night_early": "night before midnight",
    "night_late": "night after midnight",
    "dead_time": "dead time",
    "morning": "morning",
    "afternoon": "afternoon",
    "vote": "the vote block (change window)",
}
_CAN = {
    Capability.POST: "post publicly",
    Capability.VOTE: "vote",
    Capability.VOTED_FOR: "be voted for",
    Capability.PLAY_CARDS: "play cards",
    Capability.ABILITIES: "use role abilities",
    Capability.RESURRECTABLE: "be resurrected",
    Capability.COUNTED: "count for the win",
}
_STATES = {
    (PlayerState.ACTIVE, False): "Active",
    (PlayerState.GHOST, False): "Ghost (role hidden; may return)",
    (PlayerState.GHOST, True): "Ghost while Echo from Beyond is in effect",
    (PlayerState.IMPRISONED, False): "Imprisoned (until the cancel window closes, then a ghost)",
    (PlayerState.OUT, False): "Permanently out (role revealed, unless a snitch took them)",
}


def palermo_lines(variant: Variant, players: int | None) -> list[str]:
    spec = variant.palermo
    assert spec is not None
    lines = [
        "The clock: the game opens with day 1; each later round is a night (before and "
        "after midnight, then dead time) and a day (morning, the noon assassination, "
        "afternoon, the 20:00 vote, the change window, the vote-end powers, the "
        "resolution, any runoff, last words).",
        f"In each timed phase you may make up to {spec.moves} moves (a vote, a card, a "
        "night action or a post), one at a time, or say you are done.",
        "Voting is mandatory for every Active player: a ballot may be cast from the start "
        "of the round and changed until 20:00, each ballot and each change public as it is "
        "made; in the change window each voter gets one "
        "more action. Not taking part is an absence: "
        f"{spec.absences_consecutive} in a row or {spec.absences_total} in all remove you "
        "permanently, with your role shown.",
        "Resolution: cancelled votes are void, then the Mayor's mark (his pick wins a tie), "
        "the Lawyer's defence (votes on his client are annulled), the Corrupt Cop's "
        "transfer (votes on one player move to another); then the ballots are published "
        "with the count. A tie without the mark goes to a runoff, voted "
        f"{HIDDEN_VOTES}; a tied runoff is decided by the Mayor's runoff vote, else by lot.",
        "Player states:",
    ]
    for key, name in _STATES.items():
        caps = CAPABILITIES[key]
        can = [word for cap, word in _CAN.items() if cap in caps]
        lines.append(f"- {name}: " + (", ".join(can) if can else "nothing") + ".")
    lines.append(_vendetta_line(spec, players))
    lines.append(
        "Intrigue cards (at most one each, private, used once; illegal plays are refused "
        "and the card kept):"
    )
    for name, card in spec.cards.items():
        deal = f"one per {card.ratio} players" if card.ratio else f"{card.copies} in the game"
        when = ", ".join(_PHASES[p] for p in card.phases)
        lines.append(f"- {card.title} ({name}; {deal}; playable in: {when}): {card.description}")
    title = {name: card.title for name, card in spec.cards.items()}
    lines.append(
        f"The deal: {title[spec.deal_first]} first (with two or more copies, one to the "
        f"mafia camp and one to the good camp), then {title[spec.deal_unique]} to a "
        "good-camp player other than the Rival Mafioso, then "
        + ", ".join(title[card] for card in spec.deal_order)
        + "; each copy to a random player without a card, so some players hold none."
    )
    lines.append(f"The game is a draw if it is not over after {spec.max_rounds} rounds.")
    return lines


def _vendetta_line(spec: PalermoSpec, players: int | None) -> str:
    """When the vendetta snitch is accepted: at this table size, or the whole rule."""
    share = f"{round(spec.vendetta_above_share * 100)}%"
    if players is None:
        windows = sorted(spec.vendetta, key=lambda w: w.max_players)
        table = ", ".join(f"nights 1 to {w.nights} up to {w.max_players} players" for w in windows)
        return (
            f"The vendetta snitch is accepted on {table}; at larger tables on nights "
            f"that start with at least {share} of the starting players Active."
        )
    nights = spec.vendetta_nights(players)
    if nights is None:
        return (
            "The vendetta snitch is accepted on nights that start with at least "
            f"{share} of the starting players Active."
        )
    return f"The vendetta snitch is accepted on nights 1 to {nights}."


_STATE_NAMES = {state.value: (state, False) for state in PlayerState}


def palermo_situation(
    variant: Variant, seat: int, states: tuple[str, ...], card: str | None, phase: str
) -> str:
    """This seat's turn in words: its state and what that state allows, the phase and
    what is open in it, and its own card with the windows it may be played in.

    Only the seat's own card is named (nobody learns another's card, 2.3), and every
    word comes from the variant's ``[palermo]`` table and the capability table, so a
    switch that moves a card's window changes what the player reads. Empty outside
    Palermo. The LLM player's turn template shows it (``$situation``).
    """
    spec = variant.palermo
    if spec is None:
        return ""
    state = states[seat] if seat < len(states) else PlayerState.ACTIVE.value
    key = _STATE_NAMES.get(state, (PlayerState.ACTIVE, False))
    caps = CAPABILITIES[key]
    can = [word for cap, word in _CAN.items() if cap in caps]
    lines = [
        f"Your state: {_STATES[key]}; you may " + (", ".join(can) if can else "do nothing") + "."
    ]
    window = "vote" if phase in ("change_window", "vote_end", "runoff") else phase
    if window in _PHASES:
        open_ = []
        if window != "vote" and Capability.VOTE in caps:
            open_.append("cast or change your ballot")
        if window in ("night_early", "night_late") and Capability.ABILITIES in caps:
            open_.append("submit your night action")
        if window != "vote" and Capability.POST in caps:
            open_.append("post")
        lines.append(
            f"Now: {_PHASES[window]}."
            + (" Open to you: " + ", ".join(open_) + "." if open_ else "")
        )
    if card is None or card not in spec.cards:
        lines.append("You hold no intrigue card.")
        return "\n".join(lines)
    held = spec.cards[card]
    when = ", ".join(_PHASES[p] for p in held.phases)
    # 6.9: Failed Assassination is the one card a ghost plays (today's victim), no other
    playable = (
        key[0] is PlayerState.GHOST
        if card == "failed_assassination"
        else Capability.PLAY_CARDS in caps
    )
    now = (
        "its window is open now"
        if window in held.phases and playable
        else "its window is not open now"
        if window in _PHASES
        else ""
    )
    lines.append(
        f"Your card: {held.title} (used once, then gone; playable in: {when})"
        + (f"; {now}" if now else "")
        + f". {held.description}"
    )
    return "\n".join(lines)
