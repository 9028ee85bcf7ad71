"""The rules text follows every switch and parameter of every bundled variant.

Each row flips one switch (a key of the file's ``[params]``) or one typed parameter (a
procedure's, a night step's, a rule's) and names the sentence that must change: the
phrase the default text says and the flipped text does not, and the phrase the flipped
text says instead. `marker` narrows both to the one line that contains it (a night
step's id, which the step's rule carries beside its name), so a phrase that another
step also uses cannot pass by accident.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from typing import Any

import pytest

from mafia_arena.rules import available_variants, load_variant
from mafia_arena.rules.loader import variant_path
from mafia_arena.rules.params import (
    VOTE_PARAMS,
    DiscussionParams,
    IntroductionsParams,
    KillParams,
)
from mafia_arena.views.rules_text import rules_text


@dataclass(frozen=True)
class Flip:
    variant: str
    switch: str
    value: Any
    before: str | None
    """What the default text says and the flipped one does not (None: nothing goes)."""
    after: str | None
    """What the flipped text says and the default one does not (None: nothing comes)."""
    players: int | None = 8
    marker: str = ""
    setup: tuple[tuple[str, Any], ...] = ()
    """Switches set in both texts (a parameter that only shows under another one)."""


DEAL_ORDER = [
    "grave_robbing",
    "extra_vote",
    "vote_cancellation",
    "immediate_imprisonment",
    "cancel_imprisonment",
    "echo",
    "pythia",
    "vote_exemption",
]
"""palermo.toml's `deal_order`."""


def swapped(a: str, b: str) -> list[str]:
    """`DEAL_ORDER` with `a` replaced by `b`, or the two exchanged where both are in it."""
    return [b if c == a else a if c == b else c for c in DEAL_ORDER]


FLIPS = [
    # ---------------------------------------------------------------- palermo [params]
    Flip("palermo", "moves", 3, "up to 2 moves", "up to 3 moves", players=16),
    # ---------------------------------------------------------------- palermo [palermo]
    Flip("palermo", "palermo.absences_consecutive", 3, "2 in a row", "3 in a row", players=16),
    Flip("palermo", "palermo.absences_total", 4, "3 in all", "4 in all", players=16),
    Flip("palermo", "palermo.max_rounds", 30, "after 40 rounds", "after 30 rounds", players=16),
    Flip(
        "palermo",
        "palermo.deal_first",
        "pythia",
        "The deal: Resurrection first",
        "The deal: Pythia's Oracle first",
        players=16,
        setup=(
            (
                "palermo.deal_order",
                swapped("pythia", "resurrection"),
            ),
        ),
    ),
    Flip(
        "palermo",
        "palermo.deal_order",
        swapped("grave_robbing", "extra_vote"),
        "then Grave Robbing, Extra Vote,",
        "then Extra Vote, Grave Robbing,",
        players=16,
    ),
    Flip(
        "palermo",
        "palermo.deal_unique",
        "echo",
        "then Failed Assassination to a good-camp player",
        "then Echo from Beyond to a good-camp player",
        players=16,
        setup=(
            (
                "palermo.deal_order",
                swapped("echo", "failed_assassination"),
            ),
        ),
    ),
    Flip("palermo", "palermo.vendetta.0.nights", 1, "nights 1 to 2.", "nights 1 to 1.", players=12),
    Flip(
        "palermo",
        "palermo.vendetta.0.max_players",
        12,
        "nights 1 to 2.",
        "nights 1 to 3.",
        players=13,
    ),
    Flip(
        "palermo",
        "palermo.vendetta_above_share",
        0.25,
        "at least 50% of the starting players",
        "at least 25% of the starting players",
        players=30,
    ),
    Flip(
        "palermo",
        "palermo.cards.resurrection.ratio",
        6,
        "(resurrection; one per 8 players",
        "(resurrection; one per 6 players",
        players=16,
    ),
    Flip(
        "palermo",
        "palermo.cards.extra_vote.copies",
        2,
        "(extra_vote; 1 in the game",
        "(extra_vote; 2 in the game",
        players=16,
    ),
    Flip(
        "palermo",
        "palermo.cards.echo.phases",
        ["morning"],
        "(echo; one per 8 players; playable in: afternoon)",
        "(echo; one per 8 players; playable in: morning)",
        players=16,
    ),
    # ---------------------------------------------------------------- dictator [rules.forum]
    Flip("dictator", "rules.forum.ticks", 4, "up to 6 times", "up to 4 times", players=18),
    Flip(
        "dictator",
        "rules.forum.private_messages",
        False,
        "write private messages",
        "There are no private messages",
        players=18,
    ),
    Flip("dictator", "rules.forum.newspaper", False, "Newspaper:", None, players=18),
    Flip(
        "dictator",
        "rules.forum.pseudonyms_per_edition",
        3,
        "at most 5 pseudonyms",
        "at most 3 pseudonyms",
        players=18,
    ),
    Flip("dictator", "rules.forum.testaments", False, "Testament:", None, players=18),
    Flip(
        "dictator",
        "rules.forum.testament_changes_per_round",
        2,
        "changed at most once per round",
        "changed at most twice per round",
        players=18,
    ),
    Flip(
        "dictator",
        "rules.forum.inactivity_warnings",
        2,
        "3 warnings disqualify",
        "2 warnings disqualify",
        players=18,
    ),
    # ---------------------------------------------------------------- simple [params]
    Flip("simple", "mafia", 3, "6 villager, 2 mafioso", "5 villager, 3 mafioso"),
    Flip("simple", "first_phase", "day", "starts with the night", "starts with the day"),
    Flip(
        "simple",
        "mafia_win",
        "sole_survivors",
        "mafia: wins when they are at least as many as all other living players",
        "mafia: wins when only they are left alive",
    ),
    Flip(
        "simple",
        "reveal_on_death",
        False,
        "their card is shown to everyone at once",
        "Dead players' cards stay hidden",
    ),
    # ---------------------------------------------------------------- standard [params]
    Flip(
        "standard",
        "mafia",
        1,
        "3 villager, 1 doctor, 1 detective, 2 mafioso",
        "4 villager, 1 doctor, 1 detective, 1 mafioso",
        players=7,
    ),
    Flip(
        "standard",
        "reveal_on_death",
        False,
        "their card is shown to everyone at once",
        "Dead players' cards stay hidden",
    ),
    Flip("standard", "discussion_rounds", 3, "2 rounds of discussion", "3 rounds of discussion"),
    Flip(
        "standard",
        "discussion_order",
        "random",
        None,
        "The speaking order is drawn at random each round.",
    ),
    Flip("standard", "discussion_order", "bidding", None, "every player bids 0 to 4 for the floor"),
    Flip("standard", "discussion_order", "parallel", None, "Everyone speaks at once each round"),
    Flip(
        "standard",
        "vote_intentions",
        True,
        None,
        "whom they would vote for now: a poll that is never counted or shown",
    ),
    Flip(
        "standard",
        "ballot",
        "sequential",
        "(nobody may abstain), all at once, the votes hidden until all are in, then published",
        "votes in turn, in seat order from the day's first speaker, each vote public",
    ),
    Flip("classic", "discussion_order", "random", None, "drawn at random each round"),
    Flip("classic", "discussion_order", "bidding", None, "bids 0 to 4 for the floor"),
    Flip("classic", "discussion_order", "parallel", None, "Everyone speaks at once each round"),
    Flip("classic", "vote_intentions", True, None, "a poll that is never counted or shown"),
    Flip(
        "classic",
        "ballot",
        "sequential",
        "(a nominee may vote for himself), all at once, the votes hidden until all are in",
        "everyone votes in turn, from the day's first speaker, each vote public",
    ),
    Flip("club", "discussion_order", "random", None, "drawn at random each round"),
    Flip("club", "discussion_order", "bidding", None, "bids 0 to 4 for the floor"),
    Flip("club", "discussion_order", "parallel", None, "Everyone speaks at once each round"),
    Flip("club", "vote_intentions", True, None, "a poll that is never counted or shown"),
    Flip(
        "club",
        "ballot",
        "simultaneous",
        "in the same order, each vote public as it is cast with the running total",
        "all at once, the votes hidden until all are in, then published with who voted for whom",
    ),
    Flip(
        "standard",
        "doctor_repeat",
        False,
        "The same player may be protected on consecutive nights",
        "Never the same player two nights in a row",
        marker="doctor_protect",
    ),
    Flip(
        "standard",
        "doctor_self",
        False,
        "Target: one player, themselves allowed",
        "Target: one player, not themselves",
        marker="doctor_protect",
    ),
    Flip(
        "standard",
        "mafia_chat_rounds",
        2,
        "They have no night talk",
        "talk in their private channel for 2 rounds",
        marker="mafia_kill",
    ),
    Flip(
        "standard",
        "vote_tie",
        "none",
        "a tie for the most votes is drawn at random among the tied",
        "a tie for the most votes means nobody is executed",
    ),
    Flip("standard", "abstain", True, "(nobody may abstain)", "(abstaining is allowed)"),
    # ---------------------------------------------------------------- classic [params]
    Flip(
        "classic",
        "alternative_row",
        True,
        "10 citizen, 1 detective, 4 mafioso",
        "8 citizen, 2 detective, 5 mafioso",
        players=15,
    ),
    Flip(
        "classic",
        "mafia",
        8,
        "15 citizen, 2 detective, 7 mafioso",
        "14 citizen, 2 detective, 8 mafioso",
        players=24,
    ),
    Flip(
        "classic", "mafia_rounds", 1, "3 rounds of picks", "1 round of picks", marker="mafia_kill"
    ),
    Flip(
        "classic",
        "detective_rounds",
        3,
        "2 rounds of picks",
        "3 rounds of picks",
        marker="detective_check",
    ),
    Flip("classic", "discussion_rounds", 2, "1 round of discussion", "2 rounds of discussion"),
    # ---------------------------------------------------------------- club [params]
    Flip("club", "discussion_rounds", 0, "1 round of discussion", "No discussion."),
    Flip(
        "club",
        "clan_rounds",
        2,
        "1 round of picks",
        "2 rounds of picks",
        marker="yakuza_kill",
        players=16,
    ),
    Flip(
        "club",
        "retaliation",
        "leader",
        "one member of each attacking team (drawn at random)",
        "one member of each attacking team (the team's leader if he took part",
        players=20,
    ),
    Flip(
        "club",
        "stalemate_cycles",
        5,
        "draw after 3 nights and days in a row",
        "draw after 5 nights and days in a row",
    ),
    # ---------------------------------------------------------------- procedure params
    Flip(
        "simple",
        "day.1.params.min_votes",
        2,
        "the most-voted player is executed;",
        "the most-voted player is executed, if they have at least 2 votes;",
    ),
    Flip(
        "simple",
        "day.1.params.tie",
        "none",
        "drawn at random among the tied",
        "a tie for the most votes means nobody is executed",
    ),
    Flip("simple", "day.1.params.abstain", True, "nobody may abstain", "abstaining is allowed"),
    Flip("simple", "day.1.params.ballot", "sequential", "all at once", "votes in turn"),
    Flip("standard", "day.1.params.order", "parallel", None, "Everyone speaks at once"),
    Flip("standard", "day.1.params.intentions", True, None, "a poll that is never counted"),
    Flip(
        "standard",
        "day.1.params.max_bid",
        9,
        "bids 0 to 4 for the floor",
        "bids 0 to 9 for the floor",
        setup=(("discussion_order", "bidding"),),
    ),
    Flip(
        "classic",
        "day.2.params.nominees",
        3,
        "names up to 2 other players",
        "names up to 3 other players",
    ),
    Flip(
        "classic",
        "day.2.params.rotate_first",
        False,
        "starting from the day's first speaker, who moves on each day",
        "always starting from the lowest living seat",
    ),
    Flip(
        "club",
        "day.3.params.reveal",
        False,
        "The executed player's card is shown at once",
        "The executed player's card stays hidden for now",
    ),
    Flip(
        "classic",
        "day.2.params.self_vote",
        False,
        "a nominee may vote for himself",
        "a nominee not for himself",
    ),
    Flip("club", "day.3.params.explain", False, "and may then say why", None),
    Flip("club", "explain_nominations", False, "and may then say why", None),
    Flip(
        "club",
        "day.1.params.theme",
        "your favourite food",
        "the job you would have in this town",
        'on the host\'s theme "your favourite food"',
    ),
    Flip(
        "club",
        "introduction_theme",
        "",
        'on the host\'s theme "the job you would have in this town"',
        "one round of introductions, one speech each",
    ),
    Flip(
        "classic",
        "mafia_chat_rounds",
        2,
        "talk in their private channel for 1 round",
        "talk in their private channel for 2 rounds",
        marker="mafia_kill",
    ),
    Flip(
        "classic",
        "detective_chat_rounds",
        0,
        "talk in their private channel for 1 round",
        None,
        marker="detective_check",
    ),
    Flip(
        "classic",
        "rules.recommended_min_players",
        10,
        "Recommended: at least 8 players",
        "Recommended: at least 10 players",
    ),
    Flip("club", "day.3.win_check", True, "The win is checked only at the end of the day.", None),
    # ---------------------------------------------------------------- night step params
    Flip(
        "classic",
        "night.0.params.describe",
        "Say how it happened",
        "describe the manner of death ('Describe the manner of death')",
        "describe the manner of death ('Say how it happened')",
    ),
    Flip(
        "classic",
        "night.0.params.describe_default",
        "lay still at dawn",
        "the death is read out as 'was found dead'",
        "the death is read out as 'lay still at dawn'",
    ),
    Flip(
        "club",
        "night.10.params.narrate_cards",
        [],
        "called aloud when a card of psychopath was dealt",
        None,
        marker="psychopath_kill",
    ),
    Flip(
        "club",
        "night.9.params.kind",
        "clan",
        None,
        "The kill counts as a clan attempt.",
        marker="maniac_kill",
    ),
    # ---------------------------------------------------------------- night step fields
    Flip(
        "standard",
        "night.0.chat_rounds",
        1,
        "no night talk",
        "private channel for 1 round.",
        marker="mafia_kill",
    ),
    Flip(
        "standard",
        "night.0.rounds",
        1,
        "2 rounds of picks",
        "1 round of picks",
        marker="mafia_kill",
    ),
    Flip(
        "standard",
        "night.0.default",
        "random",
        "Without an answer nothing happens",
        "Without an answer a random legal choice is made",
        marker="mafia_kill",
    ),
    Flip("standard", "night.1.optional", True, None, "They may decline.", marker="doctor_protect"),
    Flip(
        "standard",
        "night.2.from_night",
        2,
        None,
        "From night 2 on.",
        marker="detective_check",
    ),
    Flip(
        "standard",
        "night.2.observers",
        ["doctor"],
        None,
        "The doctor see the result.",
        marker="detective_check",
    ),
    Flip(
        "standard",
        "night.0.target.team",
        True,
        "not themselves or their own team",
        "Target: one player, not themselves.",
        marker="mafia_kill",
    ),
    Flip(
        "classic",
        "night.1.target.fellow_actors",
        True,
        "not themselves or a fellow detective",
        "Target: one player, not themselves.",
        marker="detective_check",
    ),
    Flip(
        "standard",
        "night.2.target.count",
        2,
        "Target: one player,",
        "Target: 2 players, all different",
        marker="detective_check",
    ),
    Flip(
        "club",
        "night.14.target.distinct",
        False,
        "2 players, all different",
        "2 players, the same one allowed twice",
        marker="journalist_compare",
    ),
    Flip(
        "standard",
        "night.2.limits.per_target",
        1,
        None,
        "Each player at most 1 time per game.",
        marker="detective_check",
    ),
    Flip(
        "standard",
        "night.2.limits.uses",
        3,
        None,
        "At most 3 uses per game.",
        marker="detective_check",
    ),
    Flip(
        "standard",
        "night.2.limits.nights",
        "even",
        None,
        "Only on even nights.",
        marker="detective_check",
    ),
    Flip(
        "standard",
        "night.0.group",
        False,
        "(mafia_kill; mafioso, together)",
        "The mafia's kill (mafia_kill; mafioso): choose",
        marker="mafia_kill",
    ),
    # ---------------------------------------------------------------- rules
    Flip("standard", "rules.max_rounds", "n", "after 9 rounds", "after 7 rounds", players=7),
    Flip("standard", "rules.first_phase", "day", "starts with the night", "starts with the day"),
    Flip("club", "rules.first_night_actions", True, "On night 1 nobody acts", None),
    Flip(
        "club",
        "rules.narrate_steps",
        False,
        "The host calls every night step",
        "Night steps are not announced.",
    ),
    Flip("club", "rules.disqualification", False, "The host may remove a player", None),
    Flip(
        "standard",
        "rules.stalemate_cycles",
        2,
        None,
        "draw after 2 nights and days in a row without a death",
        players=7,
    ),
    # ---------------------------------------------------------------- traits and roles
    Flip(
        "club",
        "roles.immortal.traits.night_immune",
        False,
        "Cannot die at night; only the day vote removes them",
        None,
        players=12,
    ),
    Flip(
        "club",
        "roles.commissar.traits.no_last_word",
        False,
        "Gives no last word at death.",
        None,
        marker="- commissar",
    ),
    Flip(
        "club",
        "roles.don.traits.leader",
        False,
        "the don's pick decides",
        "after the last round the most picked player is chosen",
        marker="(mafia_kill; don and mafia, together)",
    ),
    Flip(
        "standard",
        "roles.doctor.appears",
        "mafia",
        None,
        "A check shows them as mafia.",
        marker="- doctor",
    ),
    Flip(
        "standard",
        "roles.mafioso.knows_roles",
        [],
        "Knows from the start who holds: mafioso",
        None,
        marker="- mafioso",
    ),
]


def _section(text: str, marker: str) -> str:
    if not marker:
        return text
    lines = [line for line in text.splitlines() if marker in line]
    assert lines, f"no line with {marker!r}"
    return "\n".join(lines)


@pytest.mark.parametrize("flip", FLIPS, ids=[f"{f.variant}:{f.switch}={f.value}" for f in FLIPS])
def test_each_switch_changes_its_sentence(flip: Flip) -> None:
    assert flip.before is not None or flip.after is not None
    setup = dict(flip.setup)
    base = rules_text(load_variant(flip.variant, setup), flip.players)
    flipped = rules_text(
        load_variant(flip.variant, {**setup, flip.switch: flip.value}), flip.players
    )
    before, after = _section(base, flip.marker), _section(flipped, flip.marker)
    if flip.before is not None:
        assert flip.before in before, before
        assert flip.before not in after, after
    if flip.after is not None:
        assert flip.after in after, after
        assert flip.after not in before, before


def test_every_switch_of_every_variant_is_flipped() -> None:
    for name in available_variants():
        document = tomllib.loads(variant_path(name).read_text())
        flipped = {f.switch for f in FLIPS if f.variant == name}
        assert set(document.get("params", {})) <= flipped, name


def test_every_forum_setting_and_palermo_rule_is_flipped() -> None:
    """The forum game's channel settings and Palermo's own table (absences, deal, round
    cap, vendetta, each card's count and windows) change the text too."""
    flipped = {f.switch for f in FLIPS}
    forum = tomllib.loads(variant_path("dictator").read_text())["rules"]["forum"]
    assert {f"rules.forum.{key}" for key in forum} <= flipped
    table = tomllib.loads(variant_path("palermo").read_text())["palermo"]
    scalars = {key for key, value in table.items() if key not in ("cards", "vendetta", "moves")}
    assert {f"palermo.{key}" for key in scalars} <= flipped
    assert {"palermo.vendetta.0.nights", "palermo.vendetta.0.max_players"} <= flipped
    card_keys = {key.rsplit(".", 1)[-1] for key in flipped if key.startswith("palermo.cards.")}
    assert {"ratio", "copies", "phases"} <= card_keys


def test_every_typed_parameter_is_flipped() -> None:
    switched = {f.switch.rsplit(".", 1)[-1] for f in FLIPS if ".params." in f.switch}
    fields = {field for model in VOTE_PARAMS.values() for field in model.model_fields}
    fields |= set(IntroductionsParams.model_fields)
    fields |= set(DiscussionParams.model_fields)
    fields |= set(KillParams.model_fields)
    assert fields <= switched


def test_text_without_a_player_count_names_the_range() -> None:
    text = rules_text(load_variant("standard"))
    assert "Players: 5 to 30" in text
    assert "after n + 2 rounds" in text


HIDDEN = "all at once, the votes hidden until all are in, then published with who voted for whom"
IN_TURN = "each vote public as it is cast"

BALLOTS = [
    ("simple", {}, 6, [HIDDEN]),
    ("simple", {"day.1.params.ballot": "sequential"}, 6, [IN_TURN]),
    ("standard", {}, 8, [HIDDEN]),
    ("standard", {"ballot": "sequential"}, 8, [IN_TURN]),
    ("classic", {}, 8, ["each nomination public as it is made", HIDDEN]),
    ("classic", {"ballot": "sequential"}, 8, ["each nomination public as it is made", IN_TURN]),
    ("club", {}, 8, ["each name public as it is given", f"{IN_TURN} with the running total"]),
    ("club", {"ballot": "simultaneous"}, 8, ["each name public as it is given", HIDDEN]),
    ("palermo", {}, 12, ["each ballot and each change public as it is made", HIDDEN]),
    ("dictator", {}, 18, ["No ballot or count of an election or a revolution is ever published"]),
]
"""Each bundled variant's votes, under each ballot switch -> what its rules text must
say about when the ballots are seen (the voting module's behaviour)."""


@pytest.mark.parametrize(
    ("variant", "switches", "players", "said"),
    BALLOTS,
    ids=[f"{v}:{','.join(f'{k}={x}' for k, x in s.items()) or 'default'}" for v, s, *_ in BALLOTS],
)
def test_every_vote_says_when_its_ballots_are_seen(
    variant: str, switches: dict[str, Any], players: int, said: list[str]
) -> None:
    """A vote whose ballots are asked at once (`simultaneous_vote`, club's simultaneous
    round 2, Palermo's runoff) reads the same in every variant: hidden until all are in,
    then published with who voted for whom; ballots in turn are public as they are cast;
    the dictator's election and revolutions are never published. Neither way is said of
    a vote that is not cast so, and "at once" alone, which a seat could read as a secret
    ballot, is never said."""
    text = rules_text(load_variant(variant, switches), players)
    for phrase in said:
        assert phrase in text, phrase
    for way in (HIDDEN, IN_TURN):
        if not any(way in phrase for phrase in said):
            assert way not in text, way
    assert "votes at once" not in text
