"""Two worlds a seat cannot tell apart, played side by side: what the seat observes must match.

World A is a seeded game; world B deals the same cards except that the seats whose
roles the observer does not know (not itself, not an ally it was told) hold those
roles in another order — one the variant's own deal could give, so the observer, who
knows the rules, cannot rule world B out (in Palermo the intrigue cards stay with their
seats or move, and must fit the roles as the card deal requires: `deal_allows`).
Both worlds get the same decisions: a day decision by the
same seat, a night decision (or night chat, a describe) by the holder of the same card,
picked among the choices legal in both. The comparison stops at the first stream
entry that differs for a reason `legit` names precisely: the same kind at the same
position with only fields that follow from the swapped cards (a death's or reveal's
role, a check result, the deal at the end), a kind whose presence the variant's hidden
state decides (`PRESENCE`), a tie drawn at random, or a difference after the
decisions themselves parted; a mis-timed death, a spurious runoff or any other
difference — in the observer's event stream and its numbering, text, numeric
observation, action mask, `info`, reward, or in the number and order of env steps — is
a leak.

`observed` is the one place that says what a seat observes: the seat's own stream of
`SeatEvent`s (compared whole and by position: nothing is stripped), and what the env
derives from it.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Any

from mafia_arena import env as mafia_env
from mafia_arena.engine import PASS, Choice, Game, Request
from mafia_arena.engine.catalogue import (
    Allies,
    Ballot,
    Death,
    Fact,
    GameMasterNotice,
    Narration,
    Reveal,
    RoleChange,
    SpeechMade,
    StatusMessage,
    Trigger,
    Votes,
)
from mafia_arena.engine.events import SeatEvent
from mafia_arena.env.session import GameSession
from mafia_arena.rules import Variant, load_variant

PRIVATE_KINDS = ("night:", "night_chat", "describe", "vote_end")
"""Requests made to a seat because of its card: in world B the card's new holder gets them."""

CARD_FIELDS: dict[str, frozenset[str]] = {
    "death": frozenset({"role"}),
    "reveal": frozenset({"role"}),
    "status_shown": frozenset({"status"}),
    "night_result": frozenset({"result"}),
    "oracle": frozenset({"answer"}),
    "game_over": frozenset({"winners", "roles", "factions"}),
}
"""Every variant: kind -> the fields that name or follow from a swapped card, the only
ones in which the two worlds' entries at one stream position may differ: the card a
death or a reveal shows, the status the dictator's game shows (4.13), the result of the
observer's own check or Pythia question on a seat whose card moved, and at the end the
deal itself and the winning seats (the same camp's seats differ between the deals)."""

VARIANT_FIELDS: dict[str, dict[str, frozenset[str]]] = {
    "club": {
        # a converted werewolf, or a deputy who inherited a clan role, is introduced to
        # the clan's living members at the next night (4.8 d): the card moved
        "allies": frozenset({"allies"}),
    },
    "dictator": {
        # the question mark learns his copy on Day 2 (4.11): the copied seat's card moved
        "role_change": frozenset({"role", "faction"}),
    },
    "palermo": {
        # a state change's seat, state and text follow from hidden cards: an assassin
        # taken by the latent Rival Mafioso, a snitch's hit or miss, an imprisonment's
        # causes (the seat told the card's holder), an exit's role shown at the end
        "state": frozenset({"seat", "state", "text", "role", "card", "activated"}),
        "role_change": frozenset({"role", "faction"}),
    },
}
"""Per variant: more kinds whose fields the rules make depend on hidden cards."""

PRESENCE: dict[str, dict[str, str]] = {
    "dictator": {
        "role_change": "the question mark is told his copy on Day 2 only if he copied",
        "gm_notice": (
            "a random succession (4.6) draws among every informed member, a question "
            "mark's copy too, so the observer may be handed the authority in one world"
        ),
    },
    "palermo": {
        "state": "a snitch's, an assassination's or an imprisonment's effect (8, 5.1)",
        "role_change": "the activation's camp changes are told to those they move (5.1)",
        "oracle": "a Pythia answer (the card's holder asks)",
    },
}
"""Per variant: kinds whose very presence at a position follows from hidden cards (the
other world may hold another kind there, or no entry yet)."""


def _hides_exits(worlds: Worlds) -> bool:
    """Can an exit keep its card hidden in this setting (no reveal at death, a dictator
    deposed or disqualified, a Palermo ghost)? Only then may the end itself, its winner
    and reason, differ: with every card shown the table can count the sides."""
    rules = load_variant(worlds.variant, worlds.overrides).rules
    return not rules.reveal_on_death or worlds.variant in ("dictator", "palermo")


def _top(tally: Mapping[int, int]) -> set[int]:
    best = max(tally.values(), default=0)
    return {seat for seat, votes in tally.items() if votes == best}


def legit(worlds: Worlds, sa: Sequence[SeatEvent], sb: Sequence[SeatEvent], at: int) -> str | None:
    """Why the worlds' streams may differ first at position `at` (None: a leak).

    Same kind at the same position (the same day, phase, privacy and channel): only the
    fields `CARD_FIELDS` and `VARIANT_FIELDS` name may differ, with two exceptions
    given by the rules' randomness and the decisions: an execution drawn between the
    seats tied at the top of the last tally (the draws come from one generator whose
    position earlier hidden draws moved), and anything after the decisions themselves
    parted (`Worlds.diverged`: a card's holder was asked in one world only, say a
    mafioso dead unrevealed in the other). Different kinds (or no entry in one world):
    only a kind `PRESENCE` names for the variant, the end where exits hide cards, a
    Palermo runoff against the Mayor's tie-break, or any kind once decisions parted."""
    ea = sa[at] if at < len(sa) else None
    eb = sb[at] if at < len(sb) else None
    if worlds.diverged:
        return "the decisions parted: " + worlds.diverged
    if ea is not None and eb is not None and ea.kind == eb.kind:
        meta = [
            k for k in ("day", "phase", "private", "channel") if getattr(ea, k) != getattr(eb, k)
        ]
        if meta:
            return None
        fa, fb = ea.fact, eb.fact
        assert is_dataclass(fa)  # every catalogue kind is a dataclass
        diff = {f.name for f in fields(fa) if getattr(fa, f.name) != getattr(fb, f.name)}
        allowed = set(CARD_FIELDS.get(ea.kind, ()))
        allowed |= VARIANT_FIELDS.get(worlds.variant, {}).get(ea.kind, frozenset())
        if ea.kind == "game_over" and _hides_exits(worlds):
            allowed |= {"winner", "reason"}
        if diff <= allowed:
            return f"{ea.kind}: {sorted(diff)} follow from the swapped cards"
        if _copy_told(worlds, sa, at) and diff <= {"lines", "allies"}:
            return "the question mark's Day 2 status names the comrades of his copy (4.11)"
        if (
            isinstance(fa, GameMasterNotice)
            and isinstance(fb, GameMasterNotice)
            and fa.topic == fb.topic == "result"
            and diff == {"text"}
        ):
            # the forum's investigations answer in words (the detective's status, the
            # matchmaker's same or different party): the answer is the swapped cards'
            return "a forum investigation's answer follows from the swapped cards"
        if (
            isinstance(fa, Death)
            and isinstance(fb, Death)
            and diff <= {"seat", "role"}
            and worlds.variant == "club"
            and fa.cause == fb.cause == "night"
        ):
            return "a night's shots: who survives follows from the immortal's card"
        if isinstance(fa, Death) and isinstance(fb, Death) and fa.cause == "execution":
            tied = _last_tie(sa[:at])
            if diff <= {"seat", "role"} and {fa.seat, fb.seat} <= tied:
                return "an execution drawn among tied seats"
        return None
    if _immune_survived(worlds, ea, eb):
        return "a kill that the seat's card survives in the other world (IMMUNE)"
    if _own_change(worlds, ea, eb):
        return "the observer's own card changed its role on the dead's hidden cards"
    if _silent_successor(worlds, sa, sb, at):
        return (
            "the executed sergeant had inherited the commissar's place, whose role keeps "
            "no last word (club D22); the dead commissar's card shows in the same day close"
        )
    kinds = {e.kind for e in (ea, eb) if e is not None}
    present = PRESENCE.get(worlds.variant, {})
    if kinds & set(present):
        return "; ".join(present[k] for k in sorted(kinds & set(present)))
    if "game_over" in kinds and _hides_exits(worlds):
        return "the end, with cards hidden by exits"
    if worlds.variant == "palermo" and ea is not None and eb is not None:
        mayor = any(isinstance(e.fact, Narration) and e.fact.step == "mayor" for e in (ea, eb))
        if mayor and kinds == {"narration", "runoff"}:
            return "the Mayor's hidden vote broke the tie in one world (7.5)"
    return None


def cards_shown(
    worlds: Worlds, sa: Sequence[SeatEvent], sb: Sequence[SeatEvent], at: int
) -> frozenset[int]:
    """The permuted seats whose cards the legit difference at `at` turns on: the seat a
    death, a reveal or a status names, the targets of the observer's check, the allies
    an introduction names, the seat asked in one world only once the decisions parted.
    Naming a seat too many only narrows the next attempt's permutation; the end names
    none (nothing follows it)."""
    if worlds.diverged:
        seats = set() if worlds.asked_once is None else {worlds.asked_once}
    else:
        entries = [s[at] for s in (sa, sb) if at < len(s)]
        if any(e.kind == "game_over" for e in entries):
            return frozenset()
        seats = set()
        for entry in entries:
            seats |= _named_seats(entry.fact)
    return frozenset(seats & set(worlds.sigma))


def _named_seats(fact: Fact) -> set[int]:
    """The seats a fact names in its `seat`, `target` and `targets` fields, and the
    allies an introduction names (`Allies.allies`)."""
    seats = {v for v in (getattr(fact, "seat", None), getattr(fact, "target", None))}
    seats.update(getattr(fact, "targets", None) or ())
    if isinstance(fact, Allies):
        seats.update(fact.allies)
    return {s for s in seats if isinstance(s, int)}


IMMUNE: dict[str, tuple[str, str]] = {
    "club": ("night", "immortal"),  # a night's shot does not kill the immortal
    "dictator": ("murder", "terrorist"),  # the mafia's murder does not kill the terrorist
}
"""Per variant: the cause of death a card survives, and that card."""


def _immune_survived(worlds: Worlds, ea: SeatEvent | None, eb: SeatEvent | None) -> bool:
    """One world reports seat s killed (by the cause `IMMUNE` names) where the other
    reports something else, and in the other world s holds the card that survives that
    kill (club's immortal, dictator's terrorist): the survival is the card's public
    effect under the rules, not a leak."""
    immune = IMMUNE.get(worlds.variant)
    if immune is None:
        return False
    cause, card = immune
    for entry, other, world in ((ea, eb, 1), (eb, ea, 0)):
        fact = entry.fact if entry is not None else None
        if not (isinstance(fact, Death) and fact.cause == cause):
            continue
        unlike = other is None or not isinstance(other.fact, Death) or other.fact.seat != fact.seat
        if unlike and card in _held(worlds, world, fact.seat):
            return True
    return False


HIDDEN_TRIGGERS = ("converts_to", "inherits")
"""Traits whose role change reads other seats' hidden cards: the werewolf converts when
a clan's last killer is dead (club D18), the deputy inherits a night victim's role."""


def _copy_told(worlds: Worlds, stream: Sequence[SeatEvent], at: int) -> bool:
    """Whether entry `at` is the dictator's question mark being told his copy on Day 2
    (4.11): the status message and the comrades right after his own `RoleChange`. They
    name the mafia's seats, which the observer did not know until then, so they differ
    between deals that differ in hidden cards."""
    if worlds.variant != "dictator" or worlds.deal_a[worlds.observer] != "question_mark":
        return False
    entry = stream[at] if at < len(stream) else None
    if entry is None or not isinstance(entry.fact, StatusMessage | Allies):
        return False
    for back in stream[max(0, at - 2) : at]:
        fact = back.fact
        if isinstance(fact, RoleChange) and fact.seat == worlds.observer:
            return back.day == entry.day
    return False


def _own_change(worlds: Worlds, ea: SeatEvent | None, eb: SeatEvent | None) -> bool:
    """An entry in one world only that changes the observer's own role, where the
    observer's card has a trait of `HIDDEN_TRIGGERS`: the trigger reads the dead's cards,
    which the table sees only later (club shows them after the vote, D23), and the change
    is told to the changed seat alone. The observer learning it is its card's rule."""
    traits = (
        load_variant(worlds.variant, worlds.overrides).roles[worlds.deal_a[worlds.observer]].traits
    )
    if not any(trait in traits for trait in HIDDEN_TRIGGERS):
        return False
    for entry, other in ((ea, eb), (eb, ea)):
        fact = entry.fact if entry is not None else None
        if isinstance(fact, RoleChange) and fact.seat == worlds.observer:
            return other is None or not isinstance(other.fact, RoleChange)
    return False


def _held(worlds: Worlds, world: int, seat: int) -> set[str]:
    """The cards `seat` holds in world 0 (A) or 1 (B): the one dealt, and any role it
    copied (the dictator's question mark takes the copied card's immunities, 4.11), read
    from that world's game log where the run handed the games over (`Worlds.games`)."""
    held = {(worlds.deal_a, worlds.deal_b)[world][seat]}
    if worlds.games is not None:
        for event in worlds.games[world].events:
            fact = event.fact
            if isinstance(fact, Trigger) and fact.trait == "copy" and fact.seat == seat:
                held.add(fact.role or "")
    return held


def _silent_successor(
    worlds: Worlds, sa: Sequence[SeatEvent], sb: Sequence[SeatEvent], at: int
) -> bool:
    """Club: right after the same execution, one world goes on to the day close's
    reveals while the other asks (or heard) the executed player's last word. The role
    held at death decides (a sergeant who took over from a commissar killed in the
    night keeps silent, D22), and that commissar's card is turned up in the same close,
    so the silence tells nothing the table is not shown at once. Only an executed
    sergeant, and only a reveal against a last word or its pending request."""
    if worlds.variant != "club" or at == 0 or at > min(len(sa), len(sb)):
        return False
    da, db = sa[at - 1].fact, sb[at - 1].fact
    if not (isinstance(da, Death) and da == db and da.cause == "execution"):
        return False
    if da.role != "sergeant":
        return False
    sides = [s[at].fact if at < len(s) else None for s in (sa, sb)]
    reveal = [isinstance(f, Reveal) for f in sides]
    spoken = [
        f is None or (isinstance(f, SpeechMade) and f.kind == "last_word" and f.seat == da.seat)
        for f in sides
    ]
    return (reveal[0] and spoken[1]) or (reveal[1] and spoken[0])


def _last_tie(prefix: Sequence[SeatEvent]) -> set[int]:
    """The seats tied at the top of the last tally the observer saw (empty: none)."""
    for entry in reversed(prefix):
        fact = entry.fact
        if isinstance(fact, (Votes, Ballot)):
            top = _top(fact.tally)
            return top if len(top) > 1 else set()
    return set()


SETTINGS: list[tuple[str, dict[str, Any]]] = [
    ("simple", {}),
    ("simple", {"reveal_on_death": False}),
    ("simple", {"first_phase": "day", "mafia_win": "sole_survivors"}),
    ("standard", {}),
    ("standard", {"reveal_on_death": False}),
    (
        "standard",
        {
            "reveal_on_death": False,
            "mafia_chat_rounds": 1,
            "doctor_self": False,
            "doctor_repeat": False,
            "vote_tie": "none",
            "abstain": True,
        },
    ),
    ("classic", {}),
    ("classic", {"mafia_rounds": 1, "detective_rounds": 1}),
    ("club", {}),
    ("club", {"clan_rounds": 2, "retaliation": "leader"}),
    ("dictator", {}),
    ("palermo", {}),
    ("palermo", {"moves": 1}),
]
"""Every variant, with the switches that change what is hidden and how nights run."""


class Leak(AssertionError):
    """The two worlds differ in something the observer sees, before any legit reason."""


class Parted(Exception):
    """The worlds parted for a reason the rules give the observer: stop comparing.

    `keep`: the seats whose cards a next attempt should hold in place in world B
    (`refine`): a card the difference showed the observer (a death's or a reveal's card,
    its own check's result), or a card whose holder was asked in one world only. Empty
    where the parting names no card (a tie drawn at random, a kind whose presence is
    hidden)."""

    def __init__(self, where: str, keep: frozenset[int] = frozenset()) -> None:
        super().__init__(where)
        self.keep = keep


# --------------------------------------------------------------------------- observing
def stream(game: Game, seat: int) -> list[SeatEvent]:
    """The seat's whole event stream from the engine (what the runner and the web app
    read): its `SeatEvent`s, numbered by position."""
    return game.stream(seat).pull()


def observed(session: GameSession, seat: int) -> dict[str, Any]:
    """Everything `seat` observes through the env session now (see the module): its
    stream as the env shows it (`SeatEvent`s compared whole, by position), the numeric
    observation, the action mask, `info` and the text."""
    view = session.view(seat)
    obs = session.observe(seat)
    return {
        "stream": list(view.knowledge.events),
        "observation": obs["observation"].tobytes(),
        "mask": obs["action_mask"].tobytes(),
        "info": json.dumps(session.info(seat), sort_keys=True),
        "text": session.text(seat),
    }


def first_difference(sa: Sequence[SeatEvent], sb: Sequence[SeatEvent]) -> int | None:
    """The first position at which two streams differ (the shorter one's length if one
    is a prefix of the other), None if they are equal."""
    common = min(len(sa), len(sb))
    at = next((i for i in range(common) if sa[i] != sb[i]), None)
    return common if at is None and len(sa) != len(sb) else at


def describe(worlds: Worlds) -> str:
    """A case as a failure names it: setting, players, seed, observer, permutation."""
    return (
        f"{worlds.variant} {worlds.overrides} n={worlds.players} seed={worlds.seed} "
        f"observer=P{worlds.observer + 1} sigma={worlds.sigma}"
    )


def compare(a: dict[str, Any], b: dict[str, Any], where: str, worlds: Worlds) -> None:
    """Raise `Parted` at a legit difference (`legit`), `Leak` at any other."""
    if a == b:
        return
    sa, sb = a["stream"], b["stream"]
    at = first_difference(sa, sb)
    if at is not None:
        if legit(worlds, sa, sb, at) is not None:
            raise Parted(where, cards_shown(worlds, sa, sb, at))
        shown = [s[at] if at < len(s) else None for s in (sa, sb)]
        raise Leak(f"{where}: event stream differs at position {at}: {shown}")
    keys = [k for k in a if a[k] != b[k]]
    raise Leak(f"{where}: same events but {keys} differ")


# --------------------------------------------------------------------------- worlds
@dataclass
class Worlds:
    """The case: variant and switches, players, seed, observer, the two deals."""

    variant: str
    overrides: dict[str, Any]
    players: int
    seed: int
    observer: int
    deal_a: list[str]
    deal_b: list[str]
    sigma: dict[int, int]
    """Seat of a card in A -> seat of the same card's holder in B (the permuted seats)."""
    hands: dict[int, str] | None = None
    """Palermo: the intrigue cards of world A, held by the same seats in world B (a
    player's card is their own; only the roles are permuted) unless `hands_b` says
    otherwise."""
    hands_b: dict[int, str] | None = None
    """Palermo, where set: world B's cards, moved among the seats other than the
    observer (`move_cards`)."""
    diverged: str = ""
    """Set by `pair` when the decisions part: a request made in one world only (a card's
    holder dead unrevealed in the other), so the worlds are no longer played alike."""
    asked_once: int | None = None
    """The seat asked in one world only, where `diverged` is set."""
    kept: frozenset[int] = frozenset()
    """Seats whose cards `refine` held in place (each seat's card in B is its card in A)."""
    keep: frozenset[int] = frozenset()
    """Set by a run where the worlds parted: the seats a next attempt should hold in
    place (`Parted.keep`)."""
    games: tuple[Game, Game] | None = None
    """The two worlds' games, set by the run that plays them: `legit` reads what a card
    turned into (a question mark's copy) from their logs."""

    @property
    def options_a(self) -> dict[str, Any]:
        return {"deal": self.deal_a, "hands": self.hands}

    @property
    def options_b(self) -> dict[str, Any]:
        return {"deal": self.deal_b, "hands": self.hands if self.hands_b is None else self.hands_b}


def draw_worlds(
    variant: str, overrides: dict[str, Any], rng: random.Random, players: int | None = None
) -> Worlds | None:
    """A random case, or None if the observer knows every other role (or, in Palermo, no
    other order of those roles is one the intrigue-card deal could give, `deal_allows`)."""
    rules = load_variant(variant, overrides)
    low = max(rules.min_players, 5)
    high = min(rules.max_players or low + 9, low + 9)
    n = players or rng.randint(low, high)
    seed = rng.randrange(2**31)
    game = Game(rules, n, seed)
    deal = [s.card for s in game.state.seats]
    observer = rng.randrange(n)
    known = {observer}
    for entry in game.stream(observer).pull():
        if isinstance(entry.fact, Allies):
            known |= set(entry.fact.allies)
    unknown = [s for s in range(n) if s not in known]
    hands = None
    if rules.palermo is not None:
        from mafia_arena.engine.palermo.state import of

        hands = dict(of(game).cards)
    permuted = permute(deal, unknown, rng, hands_fit(rules, hands))
    if permuted is None:
        return None
    deal_b, sigma = permuted
    return Worlds(variant, overrides, n, seed, observer, deal, deal_b, sigma, hands)


PERMUTE_TRIES = 1000
"""Shuffles `permute` tries before it gives up on a deal that `allowed` accepts."""


def permute(
    deal: list[str],
    seats: list[int],
    rng: random.Random,
    allowed: Callable[[list[str]], bool] | None = None,
) -> tuple[list[str], dict[int, int]] | None:
    """World B's deal: the cards of `seats` shuffled until at least one seat's card
    changes (and `allowed` accepts the new deal), and sigma (seat of a card in `deal`
    -> its holder in B); None where the seats' cards are all alike or no shuffle was
    accepted."""
    if len({deal[s] for s in seats}) < 2:
        return None
    for _ in range(PERMUTE_TRIES):
        order = seats[:]
        rng.shuffle(order)
        if not any(deal[a] != deal[b] for a, b in zip(seats, order, strict=True)):
            continue
        deal_b = list(deal)
        sigma = {}
        for src, dst in zip(seats, order, strict=True):
            deal_b[dst] = deal[src]
            sigma[src] = dst
        if allowed is None or allowed(deal_b):
            return deal_b, sigma
    return None


def hands_fit(
    rules: Variant, hands: Mapping[int, str] | None
) -> Callable[[list[str]], bool] | None:
    """Palermo: a test that the intrigue cards `hands` fit a deal of roles; None
    elsewhere. Every seat keeps its card while the roles move, so world B must stay a
    world the card deal could give (`deal_allows`), or the observer, who knows the
    deal's rules, could rule it out."""
    if hands is None:
        return None
    return lambda deal: deal_allows(rules, deal, hands)


def deal_allows(rules: Variant, deal: Sequence[str], hands: Mapping[int, str]) -> bool:
    """Whether the intrigue-card deal (2.3, `engine.palermo.deal`) could give `hands` to
    the roles of `deal`: its unique card (Failed Assassination) to a good-camp player who
    is not the Rival Mafioso, and, where its first card (Resurrection) has two or more
    copies, one of them to each camp."""
    from mafia_arena.engine.palermo.roles import GOOD_CAMP, MAFIA_CAMP, RIVAL

    spec = rules.palermo
    assert spec is not None
    for seat, card in hands.items():
        role = deal[seat]
        if card == spec.deal_unique and (rules.roles[role].faction != GOOD_CAMP or role == RIVAL):
            return False
    first = [rules.roles[deal[s]].faction for s, card in hands.items() if card == spec.deal_first]
    return len(first) < 2 or (MAFIA_CAMP in first and GOOD_CAMP in first)


def move_cards(worlds: Worlds, rng: random.Random, fixed: frozenset[int] = frozenset()) -> bool:
    """Palermo: give world B other card holders than world A (`Worlds.hands_b`).

    Nobody learns another player's card (2.3), so the observer keeps its own card and
    every other seat's card (or none) may move, except the seats of `fixed`, which keep
    theirs (a refined attempt's kept seats, `refine`). The moves stay within a camp of
    world B's deal and every move is one the deal could give (`deal_allows`: Failed
    Assassination never goes to the Rival Mafioso, Resurrection stays in both camps),
    so world B's hands are ones the deal itself could give. Decisions are paired as before: a
    card play is made only where both worlds offer it to the same seat. False if no
    card could move (then `hands_b` stays unset)."""
    rules = load_variant(worlds.variant, worlds.overrides)
    assert worlds.hands is not None
    camp = [rules.roles[role].faction for role in worlds.deal_b]
    hands_b = dict(worlds.hands)
    for side in sorted(set(camp)):
        seats = [
            s
            for s in range(worlds.players)
            if camp[s] == side and s != worlds.observer and s not in fixed
        ]
        held = [worlds.hands.get(s) for s in seats]
        for _ in range(20):
            rng.shuffle(held)
            trial = dict(hands_b)
            for s, card in zip(seats, held, strict=True):
                if card is None:
                    trial.pop(s, None)
                else:
                    trial[s] = card
            if deal_allows(rules, worlds.deal_b, trial):
                hands_b = trial
                break
    if hands_b == worlds.hands:
        return False
    worlds.hands_b = hands_b
    return True


def partner(worlds: Worlds, seat: int, request: Request) -> int:
    """The seat of world B that gets the decision `seat` makes in world A."""
    return worlds.sigma.get(seat, seat) if request.kind.startswith(PRIVATE_KINDS) else seat


def fallback(request: Request) -> Choice:
    """A decision for a seat asked in one world only: pass if it may, else the first."""
    return PASS if PASS in request.choices else request.choices[0]


def steered(worlds: Worlds) -> frozenset[int]:
    """Palermo: the seats whose ballots the policy prefers, world A's mafia team.

    Random ballots seldom vote out every mafioso before the worlds part, so the Rival
    Mafioso's activation and the camp changes it brings would go untested. The policy
    may read world A's deal: whatever it picks is played in both worlds alike, and the
    observer must not tell the worlds apart whatever the decisions are."""
    if worlds.variant != "palermo":
        return frozenset()
    from mafia_arena.engine.palermo.roles import MAFIA_TEAM

    return frozenset(s for s, role in enumerate(worlds.deal_a) if role in MAFIA_TEAM)


def _policy(common: list[Choice], prefer: frozenset[int], rng: random.Random) -> Choice:
    """A uniform pick among the common choices, or, where `steered` gives seats, mostly
    a ballot on one of them, and mostly no Grave Robbing (its public reveal parts the
    worlds at once, before the later rules are reached).

    A dictator form's withdrawal is not drawn: it is offered by the seat's own standing
    form alone, and drawing it would move every later draw, so the numbered regression
    cases below would no longer reach the play they were found in."""
    common = [c for c in common if c.verb != "withdraw"] or common
    if not prefer:
        return rng.choice(common)
    aimed = [c for c in common if c.verb == "vote" and c.target in prefer]
    if aimed and rng.random() < 0.8:
        return rng.choice(aimed)
    kept = [c for c in common if c.verb != "grave_robbing"]
    return rng.choice(kept if kept and rng.random() < 0.8 else common)


def _part(worlds: Worlds, seat: int, request: Request, world: str) -> None:
    """Note that the decisions parted: `request` was made in one world only and could
    do something there (a request that can only pass changes nothing)."""
    if not worlds.diverged and request.choices != (PASS,):
        worlds.diverged = f"P{seat + 1} asked {request.kind} in {world} only"
        worlds.asked_once = seat


def pair(
    worlds: Worlds, pending_a: dict[int, Request], pending_b: dict[int, Request], rng: random.Random
) -> tuple[dict[int, Choice], dict[int, Choice]]:
    """The same decisions in both worlds, legal in both (`Parted` where none is).

    A card's request in world A is paired with its holder's in B (`partner`), or, where
    that seat is not asked the same now, with another holder of the same card asked the
    same (cards held twice are interchangeable: a team chat asks its members in seat
    order, so the first mafioso asked in A may be the second one's image in B)."""
    chosen_a: dict[int, Choice] = {}
    chosen_b: dict[int, Choice] = {}
    prefer = steered(worlds)
    twins: dict[int, int] = {}
    for seat, request in sorted(pending_a.items()):
        other = partner(worlds, seat, request)
        twin = pending_b.get(other)
        if twin is not None and twin.kind == request.kind:
            twins[seat] = other
    for seat, request in sorted(pending_a.items()):
        if seat in twins or not request.kind.startswith(PRIVATE_KINDS):
            continue
        taken = set(twins.values())
        same = [
            s
            for s, r in sorted(pending_b.items())
            if s not in taken and r.kind == request.kind and worlds.deal_b[s] == worlds.deal_a[seat]
        ]
        if same:
            twins[seat] = same[0]
    for seat, request in sorted(pending_a.items()):
        paired = twins.get(seat)
        if paired is None:
            chosen_a[seat] = fallback(request)
            _part(worlds, seat, request, "A")
            continue
        twin = pending_b[paired]
        common = [c for c in request.choices if c in set(twin.choices)]
        if not common:
            raise Parted("no decision is legal in both worlds")
        chosen_a[seat] = chosen_b[paired] = _policy(common, prefer, rng)
    for seat, request in pending_b.items():
        if seat not in chosen_b:
            chosen_b[seat] = fallback(request)
            _part(worlds, seat, request, "B")
    return chosen_a, chosen_b


def _game(session: GameSession) -> Game:
    """The session's game (every caller has reset the env first)."""
    game = session.game
    assert game is not None
    return game


def _engine_pending(session: GameSession) -> dict[int, Request]:
    game = _game(session)
    pending: dict[int, Request] = {}
    for s in session.pending_seats():
        request = game.request(s)
        assert request is not None  # a pending seat has a request waiting
        pending[s] = request
    return pending


# --------------------------------------------------------------------------- coverage
PALERMO_REACHED = (
    "night_ability",
    "card_in_hand",
    "card_play",
    "imprisonment",
    "imprisonment_final",
    "camp_change",
)
"""What a Palermo case should reach while its worlds are compared: a night ability, the
observer holding a card, a card played, an imprisonment and one becoming final (the
imprisonment causes a seat is told), and a camp change (the Rival Mafioso's
activation)."""
_NIGHT_ABILITIES = frozenset(
    {
        "assassination",
        "rival_assassination",
        "detective_investigation",
        "medium_investigation",
        "prostitute_block",
    }
)


def reached(worlds: Worlds, session: GameSession) -> set[str]:
    """Which of `PALERMO_REACHED` world A reached (its whole log is compared play: the
    worlds stop being played where they part)."""
    if worlds.variant != "palermo":
        return set()
    from mafia_arena.engine.catalogue import StateChanged
    from mafia_arena.engine.palermo.state import of

    game = _game(session)
    used = of(game).used
    out = set()
    if _NIGHT_ABILITIES & set(used):
        out.add("night_ability")
    if worlds.hands and worlds.observer in worlds.hands:
        out.add("card_in_hand")
    if any(k.startswith("card_") for k in used):
        out.add("card_play")
    for event in game.events:
        fact = event.fact
        if isinstance(fact, StateChanged) and fact.cause in ("imprisonment", "imprisonment_final"):
            out.add(fact.cause)
        elif isinstance(fact, RoleChange):
            out.add("camp_change")
    return out


# --------------------------------------------------------------------------- drivers
def start_parallel_pair(worlds: Worlds, policy_seed: int) -> tuple[list[Any], random.Random]:
    """World A's and world B's Parallel envs, reset to their deals, and the policy's RNG
    (`policy_seed`); the case's comparison state is cleared for a new play."""
    envs = [mafia_env.raw_parallel_env(worlds.variant, worlds.players, worlds.overrides)]
    envs.append(mafia_env.raw_parallel_env(worlds.variant, worlds.players, worlds.overrides))
    envs[0].reset(seed=worlds.seed, options=worlds.options_a)
    envs[1].reset(seed=worlds.seed, options=worlds.options_b)
    rng = random.Random(policy_seed)
    worlds.diverged, worlds.asked_once, worlds.keep = "", None, frozenset()
    worlds.games = (envs[0].session.current, envs[1].session.current)
    return envs, rng


def run_parallel(worlds: Worlds, policy_seed: int, seen: Counter[str] | None = None) -> int:
    """Both worlds through the Parallel env in lockstep; returns the steps compared.
    `seen` counts what the compared play reached (`reached`)."""
    envs, rng = start_parallel_pair(worlds, policy_seed)
    seat, agent = worlds.observer, f"player_{worlds.observer}"
    steps = 0
    try:
        while True:
            a, b = (observed(e.session, seat) for e in envs)
            compare(a, b, f"parallel step {steps}", worlds)
            if not envs[0].agents or not envs[1].agents:
                if envs[0].agents or envs[1].agents:
                    raise Leak(f"parallel step {steps}: one world ended, the other did not")
                break
            chosen_a, chosen_b = pair(
                worlds, _engine_pending(envs[0].session), _engine_pending(envs[1].session), rng
            )
            results = []
            for env, chosen in zip(envs, (chosen_a, chosen_b), strict=True):
                table = env.session.table
                actions = {f"player_{s}": 0 for s in range(worlds.players)}
                actions.update({f"player_{s}": table.id_of(c) for s, c in chosen.items()})
                results.append(env.step(actions))
            steps += 1
            (_, ra, ta, ua, _), (_, rb, tb, ub, _) = results
            for name, x, y in (("reward", ra, rb), ("termination", ta, tb), ("truncation", ua, ub)):
                if x.get(agent) != y.get(agent):
                    # legit only where the observer's events show why (the end)
                    a, b = (observed(e.session, seat) for e in envs)
                    compare(a, b, f"parallel step {steps}", worlds)
                    raise Leak(f"parallel step {steps}: {name} differs, events do not")
    except Parted as parted:
        worlds.keep = parted.keep
    _compare_engine_streams(worlds, [e.session for e in envs])
    if seen is not None:
        seen.update(reached(worlds, envs[0].session))
    return steps


AecTurn = Callable[[list[Any], int], None]
"""Called by `run_aec` before each step is taken, once the worlds compared equal: both
worlds' AEC envs (A's first) and the step's number. It may raise `Leak` or `Parted`."""


def run_aec(
    worlds: Worlds,
    policy_seed: int,
    seen: Counter[str] | None = None,
    on_turn: AecTurn | None = None,
) -> int:
    """Both worlds through the AEC env in lockstep; returns the steps compared.

    The agent selected at every step must be the same in both worlds (who is asked is
    visible to every seat), and so must the observer's observation at every step.
    `seen` counts what the compared play reached (`reached`); `on_turn` compares more
    at each step (an LLM player's prompts, `prompts.run_prompts_aec`).
    """
    envs = [mafia_env.raw_env(worlds.variant, worlds.players, worlds.overrides)]
    envs.append(mafia_env.raw_env(worlds.variant, worlds.players, worlds.overrides))
    envs[0].reset(seed=worlds.seed, options=worlds.options_a)
    envs[1].reset(seed=worlds.seed, options=worlds.options_b)
    rng = random.Random(policy_seed)
    worlds.diverged, worlds.asked_once, worlds.keep = "", None, frozenset()
    worlds.games = (envs[0].session.current, envs[1].session.current)
    seat = worlds.observer
    planned: list[dict[int, Choice]] = [{}, {}]
    steps = 0
    try:
        while True:
            a, b = (observed(e.session, seat) for e in envs)
            compare(a, b, f"aec step {steps}", worlds)
            over = [e.session.over for e in envs]
            if any(over):
                if not all(over):
                    raise Leak(f"aec step {steps}: one world ended, the other did not")
                break
            selected = [e.agent_selection for e in envs]
            if selected[0] != selected[1]:
                raise Leak(f"aec step {steps}: selected {selected[0]} vs {selected[1]}")
            if on_turn is not None:
                on_turn(envs, steps)
            mover = int(selected[0].rsplit("_", 1)[1])
            pendings = [_engine_pending(e.session) for e in envs]
            if any(
                mover in p and mover not in plan for p, plan in zip(pendings, planned, strict=True)
            ):
                chosen = pair(worlds, pendings[0], pendings[1], rng)
                for plan, c in zip(planned, chosen, strict=True):
                    for s, choice in c.items():
                        plan.setdefault(s, choice)
            for env, plan, pending in zip(envs, planned, pendings, strict=True):
                if mover in pending:
                    env.step(env.session.table.id_of(plan.pop(mover)))
                else:
                    env.step(0)
            steps += 1
    except Parted as parted:
        worlds.keep = parted.keep
    _compare_engine_streams(worlds, [e.session for e in envs])
    if seen is not None:
        seen.update(reached(worlds, envs[0].session))
    return steps


def _compare_engine_streams(worlds: Worlds, sessions: list[GameSession]) -> None:
    """The engine-level stream (what the runner and the web app read) must agree up to
    the first legit difference too."""
    sa, sb = (stream(_game(s), worlds.observer) for s in sessions)
    common = min(len(sa), len(sb))
    at = next((i for i in range(common) if sa[i] != sb[i]), None)
    if at is None:
        return
    if legit(worlds, sa, sb, at) is None:
        raise Leak(f"engine stream differs at position {at}: {sa[at]} vs {sb[at]}")


REFINEMENTS = 3
"""At most this many more attempts per case (`run_refined`)."""

SHOWING_KINDS = frozenset(
    {
        "death",
        "reveal",
        "status_shown",
        "night_result",
        "oracle",
        "state",
        "role_change",
        "allies",
    }
)
"""Stream entries that may show the observer a card (or follow from one)."""


def shown_in_a(worlds: Worlds, policy_seed: int) -> frozenset[int]:
    """The permuted seats named by a card-showing entry (`SHOWING_KINDS`) anywhere in
    the observer's stream of world A played alone to its end, with the decisions `pair`
    makes when world B asks the same (the same policy and seed): the seats a deal of
    world B must leave in place for the worlds to stay alike to the end, if B's play
    follows A's."""
    env = mafia_env.raw_parallel_env(worlds.variant, worlds.players, worlds.overrides)
    env.reset(seed=worlds.seed, options=worlds.options_a)
    rng = random.Random(policy_seed)
    prefer = steered(worlds)
    while env.agents:
        actions = {agent: 0 for agent in env.agents}
        for seat, request in sorted(_engine_pending(env.session).items()):
            choice = _policy(list(request.choices), prefer, rng)
            actions[f"player_{seat}"] = env.session.table.id_of(choice)
        env.step(actions)
    seats: set[int] = set()
    for entry in stream(_game(env.session), worlds.observer):
        if entry.kind in SHOWING_KINDS:
            seats |= _named_seats(entry.fact)
    return frozenset(seats & set(worlds.sigma))


def refine(worlds: Worlds, keep: frozenset[int]) -> Worlds | None:
    """The case again with world B dealt anew: the cards of `keep` and of the seats
    kept before stay with their seats, the other permuted seats' cards are permuted
    afresh. Where Palermo's intrigue cards moved (`hands_b`), they move afresh too,
    within the new deal's camps, and the kept seats keep their intrigue cards (or
    none) as well. None where nothing new would be kept or no two free cards differ."""
    kept = worlds.kept | keep
    if kept == worlds.kept:
        return None
    free = [s for s in sorted(worlds.sigma) if s not in kept]
    fit = hands_fit(load_variant(worlds.variant, worlds.overrides), worlds.hands)
    permuted = permute(
        worlds.deal_a, free, random.Random(f"refine:{worlds.seed}:{sorted(kept)}"), fit
    )
    if permuted is None:
        return None
    deal_b, moved = permuted
    sigma = {s: s for s in kept} | moved
    again = replace(worlds, deal_b=deal_b, sigma=sigma, kept=kept, keep=frozenset())
    if worlds.hands_b is not None:
        again.hands_b = None
        move_cards(again, random.Random(f"refine-cards:{worlds.seed}:{sorted(kept)}"), kept)
    return again


Runner = Callable[[Worlds, int, "Counter[str] | None"], int]


def run_refined(
    run: Runner, worlds: Worlds, policy_seed: int, seen: Counter[str] | None = None
) -> int:
    """`run` the case, then again where the worlds parted on a card shown to the observer.

    With cards shown at death, the first death parts the worlds: from then on the
    observer can tell them apart, so one run compares only the game's start. The next
    attempt deals world B again with every card that world A's whole game shows the
    observer held in place (`shown_in_a`), permuting only the cards that stay hidden to
    the end, so the comparison covers the whole game; where B's play strays from A's
    and the worlds part on another card, each further attempt keeps that card too
    (`refine`). Every attempt is a full comparison of its own; returns the steps
    compared in all of them."""
    steps = run(worlds, policy_seed, seen)
    if not worlds.keep:
        return steps
    current = refine(worlds, worlds.keep | shown_in_a(worlds, policy_seed))
    if current is None:  # every card is shown by the end: go one card at a time
        current = refine(worlds, worlds.keep)
    for _ in range(REFINEMENTS):
        if current is None:
            break
        try:
            steps += run(current, policy_seed, seen)
        except Leak as leak:
            raise Leak(
                f"{leak} (B dealt again: {current.deal_b}, kept {sorted(current.kept)})"
            ) from None
        current = refine(current, current.keep)
    return steps


def random_case(index: int) -> tuple[Worlds, int]:
    """Case `index` of the seeded sequence: a setting, players, a deal, an observer."""
    rng = random.Random(f"differential:{index}")
    while True:
        variant, overrides = SETTINGS[index % len(SETTINGS)]
        worlds = draw_worlds(variant, overrides, rng)
        if worlds is not None:
            return worlds, rng.randrange(2**31)


def card_case(index: int) -> tuple[Worlds, int] | None:
    """Card case `index` of its own seeded sequence: a Palermo case whose world B also
    moves the intrigue cards (`move_cards`), with its policy seed; None where the draw
    gives none (the observer knows every role, or no card could move)."""
    rng = random.Random(f"cards:{index}")
    worlds = draw_worlds("palermo", {}, rng)
    if worlds is None or not move_cards(worlds, rng):
        return None
    return worlds, rng.randrange(2**31)
