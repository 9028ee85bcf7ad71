"""The night: steps in the variant's priority order, each applied at once; then dawn.

A step wakes the living holders of its roles. Blocked actors (arrested or robbed) are
privately shown crossed arms and make no choice. Individual actors choose at the same
time; a group step (a clan's kill, two detectives' joint check) collects picks from all
participants over `rounds` rounds, shows each round's picks to the group, and settles on
the plurality with a logged random tie-break. Legal targets follow the step's target
rules and usage limits, with a reason for every refusal.

Any step may first give its participants `chat_rounds` rounds of talk in the step's
private channel (standard's and classic's mafia, classic's two detectives): speeches
only those participants see. A lone participant has nobody to talk to and is not asked.
"""

from __future__ import annotations

from mafia_arena.engine.asking import ask
from mafia_arena.engine.catalogue import (
    Blocked,
    GroupPicks,
    Narration,
    NightAction,
    NightResult,
    PhaseStart,
)
from mafia_arena.engine.choices import PASS, Choice, Request
from mafia_arena.engine.discussion import channel_chat
from mafia_arena.engine.events import PUBLIC, private
from mafia_arena.engine.game import Flow, Game, seat_name
from mafia_arena.engine.state import NightState
from mafia_arena.rules.spec import NightStep

DAWN = "dawn"
"""The name under which `Game.step_marks` records the start of a night's dawn."""


def night(game: Game, number: int) -> Flow:
    """Run night `number`; the dying are recorded in `night.deaths` for the morning."""
    state = game.state
    state.phase = "night"
    state.day = number
    state.night = NightState(number)
    game.emit(PhaseStart("night", number), PUBLIC)
    for hook in game.hooks.night:
        hook(game, number)
    if number == 1 and not game.variant.rules.first_night_actions:
        if game.variant.rules.narrate_steps:
            introduce(game)
        return
    deck = {s.card for s in state.seats} if game.variant.rules.narrate_steps else set()
    for step in game.variant.night:
        if runs_tonight(step, number):
            game.step_marks.append((number, len(game.events), step.name))
            if deck:
                narrate(game, step, deck)
            yield from run_step(game, step, state.night)
    game.step_marks.append((number, len(game.events), DAWN))
    dawn(game, state.night)


def narrate(game: Game, step: NightStep, deck: set[str]) -> None:
    """The host calls a step aloud if one of its roles was dealt, alive or not (club D13).

    A step whose actors only exist after a change of role (an activated psychopath)
    names the dealt cards it is called for in ``params.narrate_cards``.
    """
    called = [r for r in (*step.actors, *step.observers, *step.params.narrate_cards) if r in deck]
    if called:
        game.emit(
            Narration(step.name, f"Night {game.state.day}: {_wake(list(dict.fromkeys(called)))}."),
            PUBLIC,
        )


def _wake(roles: list[str]) -> str:
    """ "the don and the mafia wake up", "the doctor wakes up"."""
    named = [f"the {role}" for role in roles]
    listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    return f"{listed} {'wakes' if len(named) == 1 else 'wake'} up"


def introduce(game: Game) -> None:
    """Night 1 without actions (club 3.1): the host wakes every dealt role to meet it.

    Roles are called in the night steps' order, then the dealt roles no step calls, in
    the variant's role order; a role wakes together with the dealt roles it knows from
    the start (a clan with its lawyer or framer, the commissar with his sergeant), and
    each role is called once. Only cards of the starting deck are named, which the setup
    already made public, so the calls reveal nothing about who holds them. A role with
    nothing at all to do never wakes (club 5.1, D37: the civilians).
    """
    deck = {s.card for s in game.state.seats}
    order = [r for step in game.variant.night for r in (*step.actors, *step.observers)]
    called: set[str] = set()
    for role in dict.fromkeys([*order, *game.variant.roles]):
        if role not in deck or role in called or sleeps(game, role, order):
            continue
        group = [
            r
            for r in dict.fromkeys((role, *game.variant.roles[role].knows_roles))
            if r in deck and r not in called
        ]
        called.update(group)
        game.emit(Narration("introductions", f"Night 1: {_wake(group)} to meet the host."), PUBLIC)


def sleeps(game: Game, role: str, night_roles: list[str]) -> bool:
    """A plain card (club's civilian): no night step calls it, it knows nobody from the
    start and has no trait (latent roles and the deputy have one), so it never wakes."""
    spec = game.variant.roles[role]
    named = {r for step in game.variant.night for r in step.params.narrate_cards}
    return (
        role not in night_roles and role not in named and not spec.knows_roles and not spec.traits
    )


def runs_tonight(step: NightStep, number: int) -> bool:
    """Whether `step` is on night `number`'s schedule (a public fact of the variant)."""
    if number < step.from_night:
        return False
    if step.limits.nights == "even":
        return number % 2 == 0
    if step.limits.nights == "odd":
        return number % 2 == 1
    return True


def actors_of(game: Game, step: NightStep) -> list[int]:
    """The living holders of the step's roles, except a seat whose role changed tonight
    (by a disqualification's triggers): a new role acts from the next night on."""
    holders = game.state.holders(set(step.actors))
    night = game.state.night
    if night is None or not night.changed:
        return holders
    return [s for s in holders if s not in night.changed]


def legal_targets(
    game: Game, step: NightStep, actor: int, actors: list[int], picked: list[int]
) -> list[int]:
    """Living targets allowed by the step's target rules and the actor's usage limits.

    Exactly the living seats `refusal` accepts, with its per-actor work (the usage
    record, the rule switches) done once rather than once per target: this runs for
    every actor of every night step. `tests/engine/test_legal_targets.py` holds the two
    to the same answers.
    """
    state = game.state
    rule = step.target
    limits = step.limits
    excluded: set[object] = set()
    if not rule.self_:
        excluded.add(actor)
    if not rule.fellow_actors:
        excluded.update(actors)
    if rule.distinct:
        excluded.update(picked)
    usage = state.usage.get(_usage_key(step, actor))
    if usage:
        if limits.no_repeat and usage.get("last_night") == state.day - 1:
            excluded.add(usage.get("last"))
        if limits.per_target is not None:
            excluded.update(t for t, c in usage.get("counts", {}).items() if c >= limits.per_target)
    if limits.per_target is not None and limits.per_target <= 0:
        return []  # every target has been picked at least 0 times
    living = state.living_seats()
    if not rule.team:
        seats = state.seats
        own = seats[actor].faction
        return [t for t in living if t not in excluded and seats[t].faction != own]
    return [t for t in living if t not in excluded]


def refusal(
    game: Game, step: NightStep, actor: int, actors: list[int], target: int, picked: list[int]
) -> str | None:
    """Why `actor` may not target `target` in `step` now, or None if it may."""
    state = game.state
    rule = step.target
    if not state.alive(target):
        return "dead players cannot be targeted"
    if target == actor and not rule.self_:
        return "you may not target yourself"
    if not rule.team and state.faction(target) == state.faction(actor):
        return "you may not target your own team"
    if not rule.fellow_actors and target in actors:
        return "you may not target someone acting with you"
    if rule.distinct and target in picked:
        return "already picked"
    usage = state.usage.get(_usage_key(step, actor), {})
    limits = step.limits
    if (
        limits.no_repeat
        and usage.get("last") == target
        and usage.get("last_night") == state.day - 1
    ):
        return "you may not pick the same player two nights in a row"
    if (
        limits.per_target is not None
        and usage.get("counts", {}).get(target, 0) >= limits.per_target
    ):
        return f"you may pick a player at most {limits.per_target} times"
    return None


def _usage_key(step: NightStep, actor: int) -> tuple[int, str]:
    return (-1 if step.group else actor, step.name)


def _record_usage(game: Game, step: NightStep, actor: int, targets: list[int]) -> None:
    usage = game.state.usage.setdefault(_usage_key(step, actor), {"counts": {}, "uses": 0})
    usage["uses"] += 1
    usage["last_night"] = game.state.day
    for target in targets:
        usage["last"] = target
        usage["counts"][target] = usage["counts"].get(target, 0) + 1


def _uses_left(game: Game, step: NightStep, actor: int) -> bool:
    if step.limits.uses is None:
        return True
    return game.state.usage.get(_usage_key(step, actor), {}).get("uses", 0) < step.limits.uses


def run_step(game: Game, step: NightStep, night: NightState) -> Flow:
    actors = actors_of(game, step)
    if not actors:
        return
    for actor in actors:
        if night.is_blocked(actor):
            game.emit(Blocked(step.name), private(actor, channel=step.name))
    participants = [a for a in actors if not night.is_blocked(a)]
    if step.observers:
        _cross_observers(game, step, night, watching=bool(participants))
    if not participants:
        return
    if step.chat_rounds and len(participants) > 1:
        yield from channel_chat(
            game,
            participants,
            step.chat_rounds,
            private(*participants, channel=step.name),
            f"Night {night.number}: talk with your team ({step.display or step.name})",
        )
    runner = getattr(game.hooks.actions[step.action], "run", None)
    if runner is not None:  # an action with its own sequence of decisions (copy)
        yield from runner(game, step, night, participants)
    elif step.group:
        yield from _group_step(game, step, night, participants)
    else:
        yield from _individual_step(game, step, night, participants)


def _cross_observers(game: Game, step: NightStep, night: NightState, *, watching: bool) -> None:
    """Observers see crossed arms when blocked themselves or when no actor acts."""
    for seat in game.state.holders(set(step.observers)):
        if night.is_blocked(seat) or not watching:
            game.emit(Blocked(step.name), private(seat, channel=step.name))


def step_request(
    game: Game, step: NightStep, actor: int, actors: list[int], picked: list[int], pick_no: int
) -> Request | None:
    action = game.hooks.actions[step.action]
    targets = legal_targets(game, step, actor, actors, picked)
    if not targets or not _uses_left(game, step, actor):
        return None
    optional = step.optional
    choices, labels = action.options(game, step, actor, tuple(targets), optional)
    prompt = _step_prompt(game, step, pick_no)
    return Request(
        actor,
        f"night:{step.name}",
        prompt,
        choices,
        labels,
        default="pass" if optional else step.default,
        info={"step": step.name, "action": step.action},
    )


def night_no(game: Game) -> int:
    return game.state.day


def _step_prompt(game: Game, step: NightStep, pick_no: int) -> str:
    """The prompt of a night step's `pick_no`-th pick tonight, built once per night and
    shared by every actor of the step (kept in `game.derived`, keyed by the night; a
    step by identity, as the game's variant holds it for the whole game)."""
    night = night_no(game)
    cached: tuple[int, dict[tuple[int, int], str]] | None = game.derived.get("night_prompts")
    if cached is None or cached[0] != night:
        cached = game.derived["night_prompts"] = (night, {})
    prompts = cached[1]
    key = (id(step), pick_no)
    prompt = prompts.get(key)
    if prompt is None:
        what = step.label or step.action
        prompt = prompts[key] = f"Night {night}: {what}" + (
            f" (pick {pick_no + 1} of {step.target.count})" if step.target.count > 1 else ""
        )
    return prompt


def _individual_step(game: Game, step: NightStep, night: NightState, actors: list[int]) -> Flow:
    picks: dict[int, list[Choice]] = {a: [] for a in actors}
    active = list(actors)
    for pick_no in range(step.target.count):
        requests = {}
        for actor in active:
            picked = [c.target for c in picks[actor] if c.target is not None]
            request = step_request(game, step, actor, actors, picked, pick_no)
            if request is not None:
                requests[actor] = request
        answers = yield from ask(game, requests)
        active = []
        for actor, decision in answers.items():
            if isinstance(decision, Choice) and decision != PASS:
                picks[actor].append(decision)
                active.append(actor)
    removed = game.state.disqualified
    for actor in actors:
        chosen = picks[actor]
        if len(chosen) < step.target.count:
            continue
        if removed and any(c.target in removed for c in chosen):
            continue  # an earlier pick named a player disqualified since: void
        _record_usage(game, step, actor, [c.target for c in chosen if c.target is not None])
        game.emit(
            NightAction(step.name, (actor,), tuple(c.key for c in chosen)),
            private(actor, channel=step.name),
        )
        game.hooks.actions[step.action].apply(game, night, step, (actor,), chosen)


def _group_step(game: Game, step: NightStep, night: NightState, participants: list[int]) -> Flow:
    channel = step.name
    members = private(*participants, channel=channel)
    final: dict[Choice, int] = {}
    for round_no in range(max(1, step.rounds)):
        if game.state.disqualified:  # a disqualified member leaves the group at once
            participants = [a for a in participants if a not in game.state.disqualified]
        requests = {}
        for actor in participants:
            request = step_request(game, step, actor, participants, [], 0)
            if request is not None:
                requests[actor] = request
        if not requests:
            return
        answers = yield from ask(game, requests)
        if game.state.disqualified:
            participants = [a for a in participants if a not in game.state.disqualified]
        picks = {
            seat: d for seat, d in sorted(answers.items()) if isinstance(d, Choice) and d != PASS
        }
        game.emit(
            GroupPicks(step.name, round_no + 1, {s: c.key for s, c in picks.items()}), members
        )
        final = {}  # the picks' tally (a `Counter`'s work without its two calls)
        for pick in picks.values():
            final[pick] = final.get(pick, 0) + 1
        if len(final) == 1 and len(picks) == len(participants):
            break
    if not final:
        return
    leaders = [s for s in picks if game.variant.roles[game.state.role(s)].traits.get("leader")]
    top = max(final.values())
    tied = sorted(c for c, v in final.items() if v == top)
    if leaders:  # the leader's pick decides the group's choice (club: don, sensei)
        choice = picks[leaders[0]]
    else:
        choice = tied[0] if len(tied) == 1 else game.draw(f"{step.name} tie", tied)
    assert choice.target is not None, "a group step picks a seat"
    _record_usage(game, step, participants[0], [choice.target])
    game.emit(NightAction(step.name, tuple(participants), (choice.key,), team=True), members)
    game.hooks.actions[step.action].apply(game, night, step, tuple(participants), [choice])
    describe = step.params.describe
    if describe and choice.verb in ("target", "kill"):
        yield from _describe(game, step, participants, choice, describe)


def _describe(
    game: Game, step: NightStep, participants: list[int], choice: Choice, prompt: str
) -> Flow:
    """A free-text flavour line from the group (classic: the manner of death).

    Every living participant may write it (classic 3.1 N3: any living mafioso), all
    asked at once; the first text in seat order is used. Without one (every member
    passed or timed out) the step's ``describe_default`` is used where the variant sets
    one (classic OP-C7: "was found dead"), else the death is announced without a manner.
    """
    target = choice.target
    assert target is not None, "a kill names its victim"
    requests = {
        seat: Request(
            seat,
            "describe",
            f"{prompt} ({seat_name(target)})",
            (PASS,),
            ("use the default text",),
            default="pass",
            free_text=True,
            max_chars=200,
        )
        for seat in participants
        if game.state.alive(seat)
    }
    answers = yield from ask(game, requests)
    texts = (getattr(answers.get(seat), "text", "").strip() for seat in sorted(answers))
    text = next((t for t in texts if t), "") or step.params.describe_default
    if text:
        game.state.seats[target].flags["manner"] = text


def dawn(game: Game, night: NightState) -> None:
    """Decide who dies tonight: attacked, not healed, not immune; then dawn hooks."""
    attacked = sorted({a.target for a in night.attempts})
    if game.state.disqualified:  # a target disqualified since the attack is gone already
        attacked = [t for t in attacked if t not in game.state.disqualified]
    dying = [t for t in attacked if t not in night.healed and not _immune(game, t)]
    for hook in game.hooks.dawn:
        dying = hook(game, night, dying)
    for watchers, target in night.watches:
        seen = tuple(sorted({s for a in night.attempts if a.target == target for s in a.attackers}))
        void = night.is_void(target)
        game.emit(
            NightResult(
                "watch", (target,), "no result" if void else "seen", None, None if void else seen
            ),
            private(*watchers, channel="watch"),
        )
    night.deaths = sorted(set(dying))


def _immune(game: Game, seat: int) -> bool:
    return bool(game.variant.roles[game.state.role(seat)].traits.get("night_immune"))


def group_label(seats: list[int]) -> str:
    return ", ".join(seat_name(s) for s in seats)
