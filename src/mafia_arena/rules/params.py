"""Typed parameters of voting procedures, night steps and role traits.

A variant file passes parameters to a voting procedure (``[[day]] params``), to a night
step (``[[night]] params``) and to a role's passive traits (``traits``). Each has its
own model here, so a misspelt key or value (``tie = "nnone"``) fails on load with the
file, the key and the reason instead of loading and silently changing the game. The
engine reads the typed fields, never a key by string.

Cross references (a role named inside a trait or a step parameter) are checked by the
loader once the whole variant is known (`rules.loader.check_references`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from mafia_arena.rules.numbers import refuse_loose_scalars


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    strict_scalars = field_validator("*", mode="before")(classmethod(refuse_loose_scalars))


# ------------------------------------------------------------------ voting procedures
class NoParams(_Params):
    """A day step that takes no parameters (announce, discussion, last words, ...)."""


class PluralityParams(_Params):
    """``plurality``: everyone votes at once, the most-voted player is executed."""

    abstain: bool = False
    """May a voter abstain?"""
    tie: Literal["random", "none"] = "random"
    """A tie at the top: ``random`` draws the executed player among the tied with the
    game's RNG, ``none`` executes nobody."""
    min_votes: int = Field(default=1, ge=1)
    """An execution needs at least this many votes for the top player."""
    ballot: Literal["simultaneous", "sequential"] = "simultaneous"
    """``simultaneous``: every voter decides at once, the ballots hidden until all are
    in, then published with who voted for whom (the closing ``votes`` event: the vote
    is never secret); ``sequential``: one voter after the other, from the day's first
    speaker, each ballot public as it is cast, so later voters see the earlier ones."""


class NominateFinalParams(_Params):
    """``nominate_final`` (classic 5.1–5.2): nominations, runoffs, a final vote."""

    nominees: int = Field(default=2, ge=2)
    """How many players go to the final vote (each voter names up to this many)."""
    rotate_first: bool = True
    """Does the first nominator move on each day (from the day's first speaker), or is it
    always the lowest living seat?"""
    self_vote: bool = True
    """May a nominee vote for himself in the final vote (classic 5.2.2: every voter picks
    either nominee)?"""
    ballot: Literal["simultaneous", "sequential"] = "simultaneous"
    """The final vote: ``simultaneous`` (classic 5.2, the show of hands, "per
    Handzeichen": everyone at once, hidden until all are in, then published with who
    voted for whom) or ``sequential`` (public, one voter at a time from the day's first
    speaker, each seeing the earlier ballots), as for ``plurality``."""


class AccuseDefendParams(_Params):
    """``accuse_defend`` (club 6): accusations, defence speeches, a second vote."""

    reveal: bool = True
    """Is the executed player's card shown right after the vote?"""
    explain: bool = False
    """After each round-1 accusation, may the accuser say why (club 6.2)? An optional
    public speech of kind ``explain``."""
    ballot: Literal["simultaneous", "sequential"] = "sequential"
    """Round 2 and its re-vote: ``sequential`` (club 6.5, each ballot public as cast, in
    order from the day's first speaker) or ``simultaneous`` (everyone at once, the
    ballots hidden until all are in, then published with who voted for whom: every vote
    is public, 6.1)."""


class DiscussionParams(_Params):
    """``discussion``: the day's talk, as one of the named discussion protocols."""

    order: Literal["round_robin", "random", "bidding", "parallel"] = "round_robin"
    """Who speaks when, each round: ``round_robin`` in seat order from the day's first
    speaker; ``random`` in an order drawn each round; ``bidding``: before each statement
    every speaker bids 0 to ``max_bid`` for the floor, the highest bid speaks (a tie goes
    to those the previous statement named, then by draw), as many statements as
    speakers; ``parallel``: everyone writes at once, all statements are published
    together."""
    max_bid: int = Field(default=4, ge=1)
    """The highest bid of the ``bidding`` order (bids are 0 … max_bid)."""
    intentions: bool = False
    """After each statement (and once before the first), ask every living player whom
    they would vote for now: synthetic votes, host-only, that never count, so metrics can
    attribute vote swings to single messages."""


class IntroductionsParams(_Params):
    """``introductions`` (club 3.2): Day 1's round of introductions."""

    theme: str = ""
    """The host's theme for the introductions, announced on Day 1 ("" = none)."""


VOTE_PARAMS: dict[str, type[_Params]] = {
    "plurality": PluralityParams,
    "nominate_final": NominateFinalParams,
    "accuse_defend": AccuseDefendParams,
}
"""The parameter model of each voting procedure, by the name a variant file uses."""

VoteParams = (
    PluralityParams
    | NominateFinalParams
    | AccuseDefendParams
    | IntroductionsParams
    | DiscussionParams
    | NoParams
)


def day_params_model(step_type: str, procedure: str) -> type[_Params]:
    """The parameter model of a day step: its procedure's for a vote, the introductions'
    and the discussion's own, none for the others."""
    if step_type == "introductions":
        return IntroductionsParams
    if step_type == "discussion":
        return DiscussionParams
    return VOTE_PARAMS.get(procedure, NoParams)


# ------------------------------------------------------------------ night steps
class NightParams(_Params):
    """Parameters every night step may take."""

    describe: str | None = None
    """Group steps only: after the group's pick, one member writes a free-text line with
    this prompt (classic: the manner of death), published with the death."""
    describe_default: str | None = Field(default=None, min_length=1)
    """With ``describe``: the text published with the death when no member writes one,
    by a pass or a timeout (classic OP-C7: the announcement still says how the victim
    died, "was found dead"). None: such a death is announced without a manner."""
    narrate_cards: tuple[str, ...] = ()
    """Dealt cards for which the host calls this step aloud, besides its actors (club: the
    activated psychopath's step is called for the psychopath card)."""


class KillParams(NightParams):
    """Parameters of the steps that make kill attempts (``kill``, ``shoot``,
    ``check_or_kill``)."""

    kind: Literal["clan", "individual"] | None = None
    """How the attempt counts for retaliation: a ``clan`` attempt costs the group one
    member, an ``individual`` one its attacker. Unset: ``clan`` for a group step,
    ``individual`` otherwise."""


KILLING_ACTIONS = frozenset({"kill", "shoot", "check_or_kill"})


def night_params_model(action: str) -> type[NightParams]:
    """The parameter model of a night step with `action`."""
    return KillParams if action in KILLING_ACTIONS else NightParams


def attempt_kind(params: NightParams, group: bool) -> Literal["clan", "individual"]:
    """The kind of a kill attempt made by a step with `params` (see `KillParams.kind`)."""
    if isinstance(params, KillParams) and params.kind is not None:
        return params.kind
    return "clan" if group else "individual"


def individual(params: NightParams) -> NightParams:
    """`params` for a borrowed skill: a copied kill is always an individual attempt."""
    if isinstance(params, KillParams):
        return params.model_copy(update={"kind": "individual"})
    return params


# ------------------------------------------------------------------ role traits
DEATH_CAUSES = ("night", "execution", "disqualification")
Cause = Literal["night", "execution", "disqualification"]


class Retaliation(_Params):
    """``retaliates = { clan = ... }``: who of an attacking clan dies with the retaliator."""

    clan: Literal["random", "leader"] = "random"


class Inheritance(_Params):
    """``inherits``: take over the role of one of the first players of another role to die."""

    causes: tuple[Cause, ...] = ("night",)
    except_: tuple[str, ...] = Field((), alias="except")


class RoleTraits(_Params):
    """The passive traits a role may carry (`engine.traits` implements each).

    Stored on `RoleSpec.traits` as the file wrote them; this model only validates.
    """

    night_immune: bool = False
    retaliates: bool | Retaliation = False
    converts_to: dict[str, str] = Field(default_factory=dict)
    """Faction → role: when that faction's group killers are all dead, become the role."""
    activates_when_accused: str | None = None
    inherits: Inheritance | None = None
    succeeds: str | None = None
    no_last_word: bool = False
    leader: bool = False
    killer: bool | None = None
    dark_past: bool = False
    """Dictator flow: looks mafia to investigations in Nights 1 and 2; passed on when
    murdered; shown as "had a dark past" on any other elimination (dictator.md 4.5)."""
    suicide_attack: bool = False
    """Dictator flow: may blow himself up with one other player by day (3.7)."""
    sees_investigations: bool = False
    """Dictator flow: learns each morning whom the investigators named (4.9)."""
    kill_authority: bool = False
    """Dictator flow: holds the single kill authority at the start (4.6)."""


def trait_roles(traits: RoleTraits) -> list[tuple[str, str]]:
    """(trait key, role name) for every role a trait names, for the reference check."""
    named: list[tuple[str, str]] = []
    if traits.succeeds is not None:
        named.append(("succeeds", traits.succeeds))
    if traits.activates_when_accused is not None:
        named.append(("activates_when_accused", traits.activates_when_accused))
    for faction, role in traits.converts_to.items():
        named.append((f"converts_to.{faction}", role))
    if traits.inherits is not None:
        named.extend(("inherits.except", role) for role in traits.inherits.except_)
    return named
