"""The rules of a variant in plain English, generated from the validated variant alone.

What LLM and human players read is built from the same `Variant` object the engine
runs, switches already applied: the deck for this player count, each role's night
step with its targets, limits and defaults, the passive traits, when cards are shown,
each day step with its voting procedure's typed parameters, and the draw rules. Every
switch and parameter that changes play changes a sentence here; tests flip each one of
every bundled variant and assert the sentence (tests/rules/test_rules_text.py).

Night steps go by the variant's readable names (`NightStep.display`, "the mafia's
kill"): the numbered list that defines a step writes its id beside the name ("The
mafia's kill (mafia_kill; mafioso, together)"), so a name in a transcript and the id
of a request kind (``night:mafia_kill``) both lead to the step's rule; a step without
a name is written by its id alone, as before.

The variant's free-text description is left out (it summarises rules and cannot follow
a switch: classic's says "up to two" nominations whatever `nominees` is); role
descriptions are kept as card text, next to the generated sentences, never instead.
"""

from __future__ import annotations

from mafia_arena.rules import Variant
from mafia_arena.rules.composition import deck_counts
from mafia_arena.rules.expressions import evaluate
from mafia_arena.rules.params import (
    AccuseDefendParams,
    DiscussionParams,
    IntroductionsParams,
    KillParams,
    NominateFinalParams,
    PluralityParams,
    RoleTraits,
)
from mafia_arena.rules.spec import DayStep, NightStep
from mafia_arena.views.display_names import DisplayNames

__all__ = ["rules_text"]

_ACTIONS = {
    "kill": "choose a player to kill",
    "shoot": "may shoot a player, or decline",
    "protect": "protect a player from being killed tonight",
    "check": "learn whether a player appears as mafia",
    "arrest": "arrest a player: that player cannot act and nothing affects them tonight",
    "steal": "steal a player's action: that player sits out the rest of the night",
    "frame": "frame a player, who appears as mafia to tonight's checks",
    "copy": "copy another player's skill and use it at once",
    "defend": "protect a player from tomorrow's execution",
    "silence": "silence a player for tomorrow (cannot speak, vote or be voted against)",
    "compare": "learn whether two players are on the same team",
    "watch": "follow a player and learn who tried to kill them tonight",
    "check_or_kill": "either check a player or kill one",
}
_WIN = {
    "eliminated": "when no player of {factions} is alive",
    "parity": "when they are at least as many as all other living players",
    "sole_survivors": "when only they are left alive",
    "clan": "when no killer outside the team is alive and they are at least half the living",
    "solo": "when alive with no other killer and at most {others} other players left",
}


def rules_text(variant: Variant, players: int | None = None) -> str:
    """The rules of `variant` as players read them; with `players`, the deck and limits
    worked out for that table size (raises VariantError if the count is not playable)."""
    lines = [f"Game: {variant.title}."]  # the file's description is free text: left out
    lines += _players(variant, players)
    if variant.rules.flow == "dictator":
        from mafia_arena.views.forum_rules_text import forum_rules_text

        return forum_rules_text(variant, players, lines)
    lines += _teams(variant)
    lines += _roles(variant, players)
    if variant.palermo is not None:
        from mafia_arena.views.palermo_rules import palermo_lines

        return "\n".join([*lines, *palermo_lines(variant, players)])
    lines += _cards(variant)
    lines += _night(variant)
    lines += _day(variant)
    lines += _ending(variant, players)
    return "\n".join(lines)


# ------------------------------------------------------------------ who plays
def _player_range(variant: Variant) -> str:
    if variant.max_players is None:
        return f"{variant.min_players} or more"
    return f"{variant.min_players} to {variant.max_players}"


def _players(variant: Variant, players: int | None) -> list[str]:
    if players is None:
        roles = ", ".join(_dealt(variant))
        return [
            f"Players: {_player_range(variant)}; the deck depends on "
            f"the player count. Roles that can be dealt: {roles}.",
            *_recommended(variant),
        ]
    counts = deck_counts(variant, players)
    return [
        f"Players: {players} (P1..P{players}). Roles in play: "
        + ", ".join(f"{c} {r}" for r, c in counts.items())
        + ". Each player sees only their own card; the composition is public.",
        *_recommended(variant),
    ]


def _recommended(variant: Variant) -> list[str]:
    least = variant.rules.recommended_min_players
    if least is None:
        return []
    return [f"Recommended: at least {least} players (a smaller table is told so at the start)."]


def _dealt(variant: Variant) -> list[str]:
    comp = variant.composition
    rows = [*comp.table.values(), *comp.alternatives.values(), comp.formula]
    named = {role for row in rows for role in row}
    if comp.fill_role:
        named.add(comp.fill_role)
    return [role for role in variant.roles if role in named]


def _teams(variant: Variant) -> list[str]:
    lines = ["Teams and how they win:"]
    if variant.palermo is not None:  # camps win by the Palermo end conditions (section 9)
        return [*lines, *(f"- {n}: {f.description}" for n, f in variant.factions.items())]
    for name, faction in variant.factions.items():
        wins = " or ".join(
            _WIN[w.type].format(factions=", ".join(w.factions) or "any other team", others=w.others)
            for w in faction.win
        )
        lines.append(f"- {name}: wins {wins}.")
    return lines


# ------------------------------------------------------------------ roles
def _roles(variant: Variant, players: int | None) -> list[str]:
    dealt = list(deck_counts(variant, players)) if players is not None else _dealt(variant)
    reachable = [r for r in _reachable(variant, dealt) if r not in dealt]
    names = DisplayNames.of(variant)
    lines = ["Roles:"]
    lines += [_role_line(variant, role, names) for role in dealt]
    if reachable:
        lines.append("Roles a player can change into during the game (never dealt):")
        lines += [_role_line(variant, role, names) for role in reachable]
    return lines


def _reachable(variant: Variant, dealt: list[str]) -> list[str]:
    found: list[str] = []
    todo = list(dealt)
    while todo:
        traits = variant.roles[todo.pop(0)].typed_traits
        for role in (
            traits.succeeds,
            traits.activates_when_accused,
            *traits.converts_to.values(),
        ):
            if role is not None and role not in found and role not in dealt:
                found.append(role)
                todo.append(role)
    return found


def _role_line(variant: Variant, role: str, names: DisplayNames) -> str:
    """The role's card: its night steps by their names (`names`), defined by name and id
    in the night's numbered list."""
    spec = variant.roles[role]
    parts = [spec.description] if spec.description else []
    steps = [names.step(s.name) for s in variant.night if role in s.actors]
    watched = [names.step(s.name) for s in variant.night if role in s.observers]
    if steps:
        parts.append("Night step: " + ", ".join(steps) + ".")
    elif not spec.description:
        parts.append("No night action.")
    if watched:
        parts.append("Watches the result of: " + ", ".join(watched) + ".")
    if spec.knows_roles:
        parts.append("Knows from the start who holds: " + ", ".join(spec.knows_roles) + ".")
    faction_look = variant.factions[spec.faction].appears
    if spec.appears is not None and spec.appears != faction_look:
        parts.append(f"A check shows them as {spec.appears}.")
    parts += _traits(spec.typed_traits, variant)
    return f"- {role} ({spec.faction}): " + " ".join(parts)


def _traits(traits: RoleTraits, variant: Variant) -> list[str]:
    said: list[str] = []
    if traits.night_immune:
        said.append("Cannot die at night; only the day vote removes them.")
    if traits.retaliates:
        who = "drawn at random"
        if not isinstance(traits.retaliates, bool) and traits.retaliates.clan == "leader":
            who = "the team's leader if he took part, else drawn at random"
        said.append(
            "If killed at night, takes the attackers along: every lone attacker and one "
            f"member of each attacking team ({who})."
        )
    for faction, role in traits.converts_to.items():
        said.append(
            f"When every group killer of the {faction} team is dead, becomes the role {role}."
        )
    if traits.activates_when_accused:
        said.append(
            "If accused during a day and alive at its end, becomes the role "
            f"{traits.activates_when_accused}."
        )
    if traits.inherits is not None:
        causes = " or ".join(
            {"night": "at night", "execution": "by execution"}.get(c, f"by {c}")
            for c in traits.inherits.causes
        )
        others = "another role"
        if traits.inherits.except_:
            others += " (except " + ", ".join(traits.inherits.except_) + ")"
        said.append(
            f"The first time players with {others} die {causes}, takes over the role of "
            "one of them for good."
        )
    if traits.succeeds:
        said.append(f"When the {traits.succeeds} dies, becomes the {traits.succeeds}.")
    if traits.no_last_word:
        said.append("Gives no last word at death.")
    if traits.leader:
        said.append("Leads the team: their pick is the team's choice at night.")
    if traits.killer is True:
        said.append("Counts as a killer for the win rules.")
    elif traits.killer is False:
        said.append("Does not count as a killer for the win rules.")
    return said


# ------------------------------------------------------------------ cards
def _cards(variant: Variant) -> list[str]:
    rules = variant.rules
    vote = _vote_step(variant)
    executed_now = (
        vote.params.reveal
        if vote is not None and isinstance(vote.params, AccuseDefendParams)
        else rules.reveal_on_death
    )
    later = any(step.type == "last_words" for step in variant.day)
    if rules.reveal_on_death:
        text = "When a player dies, their card is shown to everyone at once."
    else:
        execution = (
            "An executed player's card is shown right after the vote"
            if executed_now
            else "An executed player's card stays hidden"
            + (" until the day's last words" if later else "")
        )
        night = (
            "night victims show their cards after the day's vote, with their last words"
            if later
            else "night victims' cards stay hidden"
        )
        text = f"{execution}; {night}."
        if not executed_now and not later:
            text = "Dead players' cards stay hidden."
    return [text + " Every card is shown when the game ends."]


def _vote_step(variant: Variant) -> DayStep | None:
    return next((step for step in variant.day if step.type == "vote"), None)


# ------------------------------------------------------------------ the night
def _night(variant: Variant) -> list[str]:
    rules = variant.rules
    lines = [f"The game starts with the {rules.first_phase}."]
    if not variant.night:
        return [*lines, "Nobody acts at night."]
    if not rules.first_night_actions:
        lines.append("On night 1 nobody acts: the roles only wake to meet the host.")
    if rules.narrate_steps:
        lines.append(
            "The host calls every night step of a dealt role aloud every night, even when "
            "its holder is dead or blocked."
        )
    else:
        lines.append("Night steps are not announced.")
    lines.append("Each night, in this order:")
    for i, step in enumerate(variant.night, 1):
        lines.append(f"{i}. {_night_step(variant, step)}")
    return lines


def _step_head(step: NightStep) -> str:
    """The step as its rule is headed: ``The mafia's kill (mafia_kill; mafioso,
    together)`` (the name opens the numbered line, so it starts with a capital), or
    ``mafia_kill (mafioso, together)`` for a step without a name."""
    who = " and ".join(step.actors) + (", together" if step.group else "")
    if not step.display or step.display == step.name:
        return f"{step.name} ({who})"
    return f"{step.display[:1].upper()}{step.display[1:]} ({step.name}; {who})"


def _night_step(variant: Variant, step: NightStep) -> str:
    action = _ACTIONS.get(step.action, step.action)
    parts = [f"{_step_head(step)}: {action}."]
    if step.from_night > 1:
        parts.append(f"From night {step.from_night} on.")
    if step.limits.nights != "all":
        parts.append(f"Only on {step.limits.nights} nights.")
    if step.group:
        parts.append(_group(variant, step))
    if step.observers:
        parts.append("The " + " and ".join(step.observers) + " see the result.")
    parts.append(_targets(step))
    parts += _limits(step)
    if step.optional and step.action != "shoot":
        parts.append("They may decline.")
    parts.append(
        "Without an answer a random legal choice is made."
        if step.default == "random"
        else "Without an answer nothing happens."
    )
    params = step.params
    if params.describe is not None:
        parts.append(
            f"Then one of them may describe the manner of death ({params.describe!r}); "
            "it is read out with the death."
            + (
                f" Without one, the death is read out as {params.describe_default!r}."
                if params.describe_default is not None
                else ""
            )
        )
    if params.narrate_cards:
        parts.append(
            "This step is called aloud when a card of "
            + ", ".join(params.narrate_cards)
            + " was dealt."
        )
    if isinstance(params, KillParams) and params.kind is not None:
        parts.append(f"The kill counts as a {params.kind} attempt.")
    return " ".join(parts)


def _group(variant: Variant, step: NightStep) -> str:
    rounds = f"{_many(step.rounds, 'round')} of picks"
    leaders = [r for r in step.actors if variant.roles[r].typed_traits.leader]
    if leaders:
        decide = f"the {' or '.join(leaders)}'s pick decides"
    else:
        decide = "after the last round the most picked player is chosen (ties drawn at random)"
    chat = (
        f"Before picking they talk in their private channel for {_many(step.chat_rounds, 'round')}."
        if step.chat_rounds
        else "They have no night talk, only their picks."
    )
    return f"{chat} {rounds.capitalize()}, each round's picks shown to the group; {decide}."


def _targets(step: NightStep) -> str:
    rule = step.target
    count = "one player" if rule.count == 1 else f"{rule.count} players"
    if rule.count > 1:
        count += ", all different" if rule.distinct else ", the same one allowed twice"
    exclusions = [] if rule.self_ else ["themselves"]
    if not rule.team:
        exclusions.append("their own team")
    if not rule.fellow_actors:
        exclusions.append("a fellow " + " or ".join(step.actors))
    text = f"Target: {count}"
    text += ", not " + " or ".join(exclusions) if exclusions else ", themselves allowed"
    return text + "."


def _limits(step: NightStep) -> list[str]:
    limits = step.limits
    said = []
    if limits.no_repeat:
        said.append("Never the same player two nights in a row.")
    elif step.action == "protect":
        said.append("The same player may be protected on consecutive nights.")
    if limits.per_target is not None:
        said.append(f"Each player at most {_many(limits.per_target, 'time')} per game.")
    if limits.uses is not None:
        said.append(f"At most {_many(limits.uses, 'use')} per game.")
    return said


# ------------------------------------------------------------------ the day
def _day(variant: Variant) -> list[str]:
    lines = ["Each day, in this order:"]
    for step in variant.day:
        text = _day_step(variant, step)
        if text:
            lines.append(f"- {text}")
    return lines


def _day_step(variant: Variant, step: DayStep) -> str:
    if step.type == "announce":
        cards = "with their cards" if variant.rules.reveal_on_death else "without their cards"
        return f"The host announces who died in the night, {cards}."
    if step.type == "introductions":
        theme = step.params.theme if isinstance(step.params, IntroductionsParams) else ""
        about = f' on the host\'s theme "{theme}"' if theme else ""
        return f"Day 1 only: one round of introductions{about}, one speech each."
    if step.type == "discussion":
        if step.rounds == 0:
            return "No discussion."
        protocol = step.params if isinstance(step.params, DiscussionParams) else None
        return _discussion(step.rounds, protocol)
    if step.type == "last_words":
        return (
            "Each player who died since the morning and whose card is still hidden shows it "
            "and gives a last word, in seat order."
        )
    if step.type == "end_day":
        return "The day ends: role changes of the day take effect, then the win is checked."
    return _vote(variant, step)


_ORDER = {
    "round_robin": "",
    "random": " The speaking order is drawn at random each round.",
    "parallel": (
        " Everyone speaks at once each round: the statements are written without seeing"
        " each other and published together."
    ),
}


def _discussion(rounds: int, protocol: DiscussionParams | None) -> str:
    text = f"{_many(rounds, 'round')} of discussion, one speech each per round."
    if protocol is None:
        return text
    if protocol.order == "bidding":
        text += (
            f" Before each speech every player bids 0 to {protocol.max_bid} for the floor;"
            " the highest bid speaks (a tie goes to a tied player the previous speech named,"
            " else by lot); a round has as many speeches as speakers, and a player may win"
            " the floor more than once."
        )
    else:
        text += _ORDER[protocol.order]
    if protocol.intentions:
        text += (
            " Before the first speech and after each speech, everyone is privately asked"
            " whom they would vote for now: a poll that is never counted or shown."
        )
    return text


HIDDEN_VOTES = (
    "all at once, the votes hidden until all are in, then published with who voted for whom"
)
"""How a simultaneous ballot (`engine.voting.common.simultaneous_vote`, club's round 2
under ``ballot = "simultaneous"``, Palermo's runoff) reads in every procedure: the
ballots are never secret, only hidden until the last is in, and the closing `votes`
names each voter's target. One phrase for all of them, so a seat reads the same ballot
the same way in every variant (`views.palermo_rules` uses it too)."""

VOTES_IN_TURN = "each vote public as it is cast"
"""How a sequential ballot (`engine.voting.common.sequential_vote`, club's round 2)
reads: every ballot is published at once, so later voters see the earlier ones."""


def _vote(variant: Variant, step: DayStep) -> str:
    params = step.params
    later = "" if step.win_check else " The win is checked only at the end of the day."
    if isinstance(params, PluralityParams):
        return _plurality(params) + later
    if isinstance(params, NominateFinalParams):
        return _nominate_final(params) + later
    if isinstance(params, AccuseDefendParams):
        return _accuse_defend(variant, params) + later
    return f"A vote ({step.procedure}).{later}"


def _plurality(params: PluralityParams) -> str:
    abstain = "abstaining is allowed" if params.abstain else "nobody may abstain"
    least = f", if they have at least {params.min_votes} votes" if params.min_votes > 1 else ""
    tie = (
        "a tie for the most votes is drawn at random among the tied"
        if params.tie == "random"
        else "a tie for the most votes means nobody is executed"
    )
    if params.ballot == "sequential":
        how = (
            "Vote: every living player who is not silenced votes in turn, in seat order from"
            f" the day's first speaker, {VOTES_IN_TURN}, for another such player ({abstain})"
        )
    else:
        how = (
            "Vote: every living player who is not silenced votes for another such player"
            f" ({abstain}), {HIDDEN_VOTES}"
        )
    return f"{how}; the most-voted player is executed{least}; {tie}."


def _nominate_final(params: NominateFinalParams) -> str:
    k = params.nominees
    first = (
        "starting from the day's first speaker, who moves on each day"
        if params.rotate_first
        else "always starting from the lowest living seat"
    )
    own = "a nominee may vote for himself" if params.self_vote else "a nominee not for himself"
    how = (
        f"everyone votes in turn, from the day's first speaker, {VOTES_IN_TURN}, for one of"
        f" the {k} nominees ({own})"
        if params.ballot == "sequential"
        else f"everyone votes for one of the {k} nominees ({own}), {HIDDEN_VOTES}"
    )
    return (
        f"Nominations: in turn ({first}), each player names up to {k} other players, "
        f"or passes, each nomination public as it is made. The {k} most named go to the "
        "final vote; a tie for the last places "
        "goes to a runoff nomination among the tied, and a runoff that repeats the same "
        "tie is decided by the most recently dead player. The nominees give final pleas; "
        f"then {how}; the nominee "
        "with the most votes is executed. A tied final vote is decided by the most recently dead "
        "player (drawn at random while nobody has died)."
    )


def _accuse_defend(variant: Variant, params: AccuseDefendParams) -> str:
    card = (
        "The executed player's card is shown at once, then they give a last word."
        if params.reveal
        else "The executed player's card stays hidden for now; they give a last word."
    )
    defended = any(s.action == "defend" for s in variant.night)
    protected = (
        " If the winner was protected for the day, the host says so and nobody is executed."
        if defended
        else ""
    )
    why = " and may then say why" if params.explain else ""
    ballots = (
        f"in the same order, {VOTES_IN_TURN} with the running total"
        if params.ballot == "sequential"
        else HIDDEN_VOTES
    )
    return (
        "Accusations: in turn from the day's first speaker, each player who is not "
        "silenced names one other player (each name public as it is given, with the running "
        f"total){why}. The most accused (with the second-most too when "
        "one player leads alone) give a defence speech; a lone accused is the vote winner. "
        f"Then each votes against one accused other than themselves, {ballots}; "
        "a tie gets one re-vote among the tied, and a second tie means nobody "
        f"is executed.{protected} {card}"
    )


# ------------------------------------------------------------------ the end
def _ending(variant: Variant, players: int | None) -> list[str]:
    rules = variant.rules
    limit = rules.max_rounds
    if players is not None:
        rounds = int(evaluate(str(limit), {"n": players}))
        lines = [f"The game is a draw if it is not over after {rounds} rounds."]
    else:
        lines = [f"The game is a draw if it is not over after {limit} rounds (n = players)."]
    if rules.stalemate_cycles is not None:
        lines.append(
            f"It is also a draw after {rules.stalemate_cycles} nights and days in a row "
            "without a death."
        )
    if rules.disqualification:
        lines.append(
            "The host may remove a player who breaks the rules: the card is shown, no last word."
        )
    return lines


def _many(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
