"""Typed model of a variant: roles, factions, night steps, day steps, win rules.

A variant is data. Roles are compositions of ability primitives (the night step they
act in, with an action name and parameters) plus traits (how a check sees them, whom
they know at the start, passive effects). The engine interprets these objects; adding a
role that recombines existing primitives needs no Python.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from mafia_arena.rules import vocabulary
from mafia_arena.rules.numbers import Count, refuse_loose_scalars
from mafia_arena.rules.palermo import PalermoSpec
from mafia_arena.rules.params import (
    NightParams,
    NoParams,
    RoleTraits,
    VoteParams,
    day_params_model,
    night_params_model,
)

MAX_ROUNDS = 1000
"""The most rounds a step (picks, night talk, a day's discussion) or a forum window may
count. Far above any rule set's need; a count in the billions (``--set
discussion_rounds=1000000000000``) made a game that never ended."""


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    strict_scalars = field_validator("*", mode="before")(classmethod(refuse_loose_scalars))


Appearance = Literal["mafia", "innocent"]
"""What a check reports (`Variant.appearance`): the engine, the views and the heuristic
know these two results only, so a misspelt ``appears = "mafai"`` is refused rather than
dealt as a third result no player can read."""


class WinRule(_Spec):
    """One way a faction wins, checked after every death.

    Types:
    - ``eliminated``: no living player belongs to any faction in `factions`
      (empty list = every other faction);
    - ``parity``: living members are at least the living non-members;
    - ``sole_survivors``: every living player is a member;
    - ``clan``: club rule: alive, no killer outside the faction alive, and at parity;
    - ``solo``: club rule: alive, no other killer alive, at most `others` others alive.
    """

    type: Literal["eliminated", "parity", "sole_survivors", "clan", "solo"]
    factions: tuple[str, ...] = ()
    others: int = Field(default=2, ge=0)


class FactionSpec(_Spec):
    """A side of the game. `side` groups factions for metrics (town / mafia / solo)."""

    side: Literal["town", "mafia", "solo"]
    win: tuple[WinRule, ...]
    appears: Appearance = "innocent"
    solo: bool = False
    description: str = ""
    title: str = ""
    """The party's name in announcements (dictator: "Bürger", "Mafia"); empty: the key."""
    status_line: str = ""
    """The party line of the status message (dictator 2.3: "Du gehörst zur Mafia.")."""


class RoleSpec(_Spec):
    """A role card: its faction and traits. Night actions live in `NightStep`s."""

    faction: str
    description: str = ""
    appears: Appearance | None = None
    knows_roles: tuple[str, ...] = ()
    unique: bool = False
    title: str = ""
    """The role's name in announced statuses ("Detektiv"); empty for a plain role, whose
    status is its party alone ("Bürger")."""
    display: str = ""
    """The role's readable name where its id is not a word a player reads (Palermo's
    ``known_a``: "Known Mafioso A"); empty: the id. The web page and the text view
    (`views.display_names`) write it, the latter with the id beside it on the line that
    tells a seat its own role; the rules text's role list, the events and the switches
    keep the id."""
    status_line: str = ""
    """The role's own line of the status message; ``{comrades}`` lists the known allies
    (dictator 2.3: "Du bist der Rufmörder. Deine Mitstreiter sind {comrades}.")."""
    party_line: bool = True
    """Is the holder told his party: the status message's party line and the faction of
    his dealt role (the question mark is told neither, dictator OP-D14)?"""
    told_as: str | None = None
    """The role the holder is told he has (a citizen with a dark past is told "citizen")."""
    traits: dict[str, Any] = Field(default_factory=dict)
    """Passive traits as the file wrote them, validated against `RoleTraits`."""

    @field_validator("traits")
    @classmethod
    def _known_traits(cls, value: dict[str, Any]) -> dict[str, Any]:
        RoleTraits.model_validate(value)
        return value

    @property
    def typed_traits(self) -> RoleTraits:
        """The traits as their typed model (defaults filled in)."""
        return RoleTraits.model_validate(self.traits)


class TargetRule(_Spec):
    """Who may be targeted by a night action.

    `self` allows the actor; `team=false` excludes the actor's faction; `fellow_actors=
    false` excludes everyone acting in the same step (two detectives never check each
    other); `count` targets are picked one after the other, distinct if `distinct`.
    """

    self_: bool = Field(default=False, alias="self")
    team: bool = True
    fellow_actors: bool = True
    count: int = Field(default=1, ge=1)
    distinct: bool = True


class Limits(_Spec):
    """Usage limits of an action; checked by the engine when offering choices."""

    no_repeat: bool = False
    per_target: int | None = Field(default=None, ge=0)
    uses: int | None = Field(default=None, ge=0)
    nights: Literal["all", "even", "odd"] = "all"


class NightStep(_Spec):
    """One step of the night, in the order the variant lists them.

    `actors` are role names; a `group` step is a joint decision of all its living,
    unblocked actors, combined by plurality over `rounds` rounds of picks (the picks of
    each round are shown to the group, so a group can converge; after the last round the
    plurality wins and ties are drawn with the game's RNG). `default` is what a timeout
    records: ``pass`` (no action; classic: no pick means no murder) or ``random``.
    """

    name: str
    actors: tuple[str, ...] = Field(min_length=1)
    """The roles that act; at least one, else the step would silently never run."""
    action: str
    group: bool = False
    rounds: int = Field(default=1, ge=1, le=MAX_ROUNDS)
    chat_rounds: int = Field(default=0, ge=0, le=MAX_ROUNDS)
    observers: tuple[str, ...] = ()
    optional: bool = False
    default: Literal["pass", "random"] = "pass"
    from_night: int = Field(default=1, ge=0)
    """The first night the step runs; 0 only in a forum game, whose Night 0 is the
    setup night (dictator.md 3.2: the boss's pointing, the question mark's copy)."""
    target: TargetRule = TargetRule()
    limits: Limits = Limits()
    params: NightParams = Field(default_factory=dict, validate_default=True)
    """Typed by the step's action (`rules.params.night_params_model`)."""
    label: str = ""
    """The instruction a request shows the actor ("choose tonight's victim")."""
    display: str = ""
    """The step's readable name ("the mafia's kill"), written to fit the text view's
    sentences ("Team picks for the mafia's kill", "You could not act tonight (the
    doctor's protection)"); empty: the id. The text view and the rules text write it
    (`views.display_names`), the rules text with the id beside it where it defines the
    step; the events, the request kinds (``night:mafia_kill``) and the switches keep
    the id, so a name changes no observation and no log."""

    @field_validator("params", mode="before")
    @classmethod
    def _typed_params(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, NightParams):
            return value
        return night_params_model(str(info.data.get("action", ""))).model_validate(value)


class DayStep(_Spec):
    """One step of the day: announce, introductions, discussion, vote, last_words."""

    type: Literal[
        "announce", "introductions", "discussion", "vote", "last_words", "end_day", "forum"
    ]
    """``forum``: a communication window (`engine.forum.window`): private messages,
    newspaper ads, testaments and thread posts, as `rules.forum` switches them on."""
    rounds: int = Field(default=1, ge=0, le=MAX_ROUNDS)
    procedure: str = ""
    params: VoteParams = Field(default_factory=dict, validate_default=True)
    """Typed by the procedure (`rules.params.VOTE_PARAMS`); a step other than a vote
    takes none."""
    win_check: bool = True
    """Check the win rules right after a vote; false defers it to an ``end_day`` step
    (club: the psychopath's activation comes before the day's win check)."""

    @field_validator("procedure")
    @classmethod
    def _known_procedure(cls, value: str, info: ValidationInfo) -> str:
        if info.data.get("type") != "vote":
            if value:
                raise PydanticCustomError("procedure", "only a vote step has a procedure")
            return value
        if value not in vocabulary.VOTING_PROCEDURES:
            known = ", ".join(sorted(vocabulary.VOTING_PROCEDURES))
            raise PydanticCustomError(
                "procedure",
                "unknown voting procedure {name}; known: {known}",
                {"name": repr(value), "known": known},
            )
        return value

    @field_validator("params", mode="before")
    @classmethod
    def _typed_params(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, BaseModel):
            return value
        model = day_params_model(info.data.get("type", ""), info.data.get("procedure", ""))
        if info.data.get("type") == "vote" and "procedure" not in info.data:
            return NoParams()  # the procedure's own error is reported first
        return model.model_validate(value)


class Composition(_Spec):
    """How many of each role at a given player count.

    Counts are integers, ``"rest"`` (fill the remaining seats) or expressions over `n`.
    `table` maps a player count to a row; `alternatives` holds optional second rows that
    the ``alternative_row`` switch selects; `formula` applies when no row matches.
    """

    table: dict[int, dict[str, Count]] = Field(default_factory=dict)
    alternatives: dict[int, dict[str, Count]] = Field(default_factory=dict)
    formula: dict[str, Count] = Field(default_factory=dict)
    bounds: dict[str, tuple[str, str]] = Field(default_factory=dict)
    fill_role: str | None = None


class ForumRules(_Spec):
    """The forum channels a variant switches on (`engine.forum`, dictator.md 7).

    A communication window gives every living seat up to `ticks` decisions per phase
    (messages, ads, a testament, posts, its role's forms) before it declares itself done.
    """

    ticks: int = Field(default=4, ge=1, le=MAX_ROUNDS)
    private_messages: bool = False
    """Private messages between players in the game, one-to-one and group (7.1)."""
    newspaper: bool = False
    """Anonymous ads under pseudonyms, one edition per phase end (7.4)."""
    pseudonyms_per_edition: int = Field(default=5, ge=1)
    testaments: bool = False
    """A testament, public or to chosen recipients, delivered on elimination (7.5)."""
    testament_changes_per_round: int = Field(default=1, ge=1)
    reveal_pseudonyms: bool = False
    """The host's opt-in (OP-D36): after the game, the replay and moderator views show
    who owned which pseudonym (ad notices, transfers). Off: ownership stays hidden."""
    inactivity_warnings: int | None = Field(default=None, ge=1)
    """Warnings for phases without a thread post before a hidden disqualification (8.5);
    None: no inactivity rule."""


class Rules(_Spec):
    """Global switches the engine reads directly."""

    flow: Literal["phases", "dictator"] = "phases"
    """``phases``: the variant's night and day steps (`engine.flow`); ``dictator``: the
    forum game with an elected dictator (`engine.forum.dictator`, docs/rules/dictator.md)."""
    forum: ForumRules = ForumRules()

    first_phase: Literal["night", "day"] = "night"
    reveal_on_death: bool = True
    max_rounds: Count = "n + 2"
    """The last round played (a whole number or a formula of n); a float or true is
    refused with the reason, not read as a string."""
    first_night_actions: bool = True
    stalemate_cycles: int | None = Field(default=None, ge=1)
    no_death_announcement: str = Field(default="Nobody died tonight.", min_length=1)
    """The morning's public line when the night killed nobody, in the variant's words
    (classic D1: "Nobody was murdered tonight.")."""
    narrate_steps: bool = False
    """Publicly narrate every night step of a role in the starting deck, every night,
    whether its holder is alive or blocked (club D13: a theft stays silent)."""
    recommended_min_players: int | None = Field(default=None, ge=0)
    """Below this many players the game still plays, with a public notice at setup
    (classic OP-C1: the source asks for at least 8 but its table starts at 7)."""
    disqualification: bool = False
    """May the host remove a player between decisions (`Game.disqualify`, club 3.6 and
    D34)? Off by default: a variant whose rules say nothing about removal refuses it
    rather than improvising a death the rules never describe."""


class Variant(_Spec):
    """A complete, validated rule set at its parameters (switches already applied)."""

    name: str
    title: str
    description: str = ""
    source: str = ""
    min_players: int = Field(ge=2)
    max_players: int | None = None
    """None: no upper limit (classic: "nach oben keine Spielerzahlbeschränkung")."""
    params: dict[str, Any] = Field(default_factory=dict)
    rules: Rules = Rules()
    factions: dict[str, FactionSpec]
    roles: dict[str, RoleSpec]
    composition: Composition
    night: tuple[NightStep, ...] = ()
    day: tuple[DayStep, ...]
    palermo: PalermoSpec | None = None
    """The forum-clock rules (cards, timed phases, windows) of the Palermo engine
    (`engine.palermo`); a variant with this table plays them instead of its night and
    day steps."""
    _file: str = PrivateAttr("")
    _digest: str = PrivateAttr("")

    @field_validator("max_players")
    @classmethod
    def _player_range(cls, value: int | None, info: ValidationInfo) -> int | None:
        low = info.data.get("min_players")
        if low is not None and value is not None and low > value:
            raise PydanticCustomError(
                "players",
                "max_players ({high}) is below min_players ({low})",
                {"low": low, "high": value},
            )
        return value

    @property
    def origin(self) -> str:
        """Where the variant came from, for error messages: its file, else its name."""
        return self._file or self.name

    @property
    def digest(self) -> str:
        """sha256 (16 hex digits) of the bytes of the file the variant was read from, as a
        tournament's manifest names it; "" for a variant built from a document in memory.
        A game log records it, so a replay can tell an edited variant file from a damaged
        log."""
        return self._digest

    def from_file(self, path: str, digest: str = "") -> Variant:
        """This variant, remembering the file it was read from (`origin`) and, when
        given, that file's content digest (`digest`)."""
        self._file = path
        self._digest = digest or self._digest
        return self

    def appearance(self, role: str) -> str:
        """What a check of a player holding `role` reports (without night effects)."""
        spec = self.roles[role]
        return spec.appears or self.factions[spec.faction].appears

    def side(self, faction: str) -> str:
        return self.factions[faction].side

    def role_names(self) -> tuple[tuple[str, str], ...]:
        """(readable name, role id) for every role with a name other than its id: its
        ``display`` and its ``title``. A player may claim a role by any of them ("I am
        the Citizen with a dark past"), so every claim reader passes them on
        (`speech.extract_claims`): the seats' folds, the metrics."""
        return tuple(
            (name, role)
            for role, spec in self.roles.items()
            for name in (spec.display, spec.title)
            if name and name != role
        )
