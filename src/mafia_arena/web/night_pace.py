"""The web night on the night clock: every slot of a night lasts a public span of time.

Why: by night who is asked is hidden. Driven prompt by prompt, a night would end as
soon as its actors had answered, so its length would tell every seat which power roles
are alive (a dead doctor's step takes no time) and how fast their holders are (a person
thinking, an LLM bot generating); and an actor's own turn would come earlier or later
with the fate of the steps before it. So the web driver runs each night on the
`NightClock` (`engine/night_clock.py`): the night is the plan's slots, in order, each
lasting `slot_seconds` — a function of the slot's part of its step (talk, pick,
describe) and of public facts only. A prompt opens at the start of its slot and must be
answered by its end; a slot ends at its time whether its prompt was answered at once,
at the last second or never asked. Dawn is shown after the last slot. The night's start,
its slots and its dawn are therefore the same in every deal a seat cannot tell apart.

How long a slot lasts (fixed when the night begins, from public facts):

- *patient* nights — a living seat is played by someone who may take their time (a
  person, or a bot that decides asynchronously, such as an LLM bot): every slot lasts
  its request's whole timer (`timer_for`), since any of them might be the slot's actor;
- otherwise every slot lasts `BOT_SLOT` times the bot pace (a paced bot answers within
  1.5 times it).

*Solo* nights — exactly one person sits at the table, alive and playing their own seat,
every other living seat is a scripted bot, and no spectator has opened the watch link —
run at the bot pace too, except the slot in which that person is asked: it lasts until
they answer (at most their timer). Why this leaks nothing: the only one who sees the
night's length is the person, and it depends on nothing but their own card and their
own speed; bots never read the clock. Without it a person alone with bots would wait
out every night's full timers (five minutes in 7-player `standard`) for steps they
take no part in. `Settings.solo_nights` turns it off.

Phases whose actors are public (a day's speeches and votes, a forum game's windows
where every living seat is asked) are not run on the clock: they end when every asked
seat has answered; by day the last call may shorten the last seat's timer (a forum
window has none: `web.driver._last_call`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mafia_arena.engine.night_clock import NightPlan
from mafia_arena.web.settings import timer_for

BOT_SLOT = 2.0
"""A slot of a night without patient players lasts this many times the bot pace."""
PART_KINDS = {"chat": "night_chat", "picks": "night:", "describe": "describe"}
"""The request kind whose timer a slot of each part lasts on a patient night."""


def slot_seconds(part: str, *, patient: bool, bot_delay: float, timer_scale: float) -> float:
    """How long one slot of a night lasts: a pure function of public facts."""
    if patient:
        return timer_for(PART_KINDS[part], timer_scale)
    return BOT_SLOT * bot_delay


@dataclass
class NightPace:
    """One night's slots on the server's clock: when each ends, and the dawn."""

    plan: NightPlan
    start: float
    """When the night's first slot began (the moment the night began, a public one)."""
    seconds: Callable[[str], float]
    """The length of a slot of a given part (`slot_seconds` with the night's facts)."""
    ends: list[float] = field(default_factory=list)
    solo: bool = False
    """A solo night (see the module): the person's own slot is held open by `hold` and
    ends when they answer (`close`); the dawn is not known in advance."""

    def end_of(self, slot: int) -> float:
        """When slot `slot` ends (a slot past the plan's budget lasts like its part)."""
        while len(self.ends) <= slot:
            previous = self.ends[-1] if self.ends else self.start
            self.ends.append(previous + self.seconds(self.plan.part_at(len(self.ends))))
        return self.ends[slot]

    @property
    def slot_end(self) -> float:
        """When the current slot ends."""
        return self.end_of(self.plan.slot)

    def hold(self, until: float) -> None:
        """Solo nights: the current slot lasts at least until `until` (the asked
        person's deadline); the later slots follow from its new end."""
        slot = self.plan.slot
        if self.end_of(slot) < until:
            self.ends[slot] = until
            del self.ends[slot + 1 :]

    def close(self, at: float) -> None:
        """Solo nights: everyone asked in the current slot has answered at `at`; the slot
        ends then, or at its bot-paced end if that comes first."""
        slot = self.plan.slot
        if at < self.end_of(slot):
            self.ends[slot] = max(at, self.ends[slot - 1] if slot else self.start)
            del self.ends[slot + 1 :]

    @property
    def countdown(self) -> float | None:
        """When the dawn comes, as pages are told it: unknown on a solo night (its
        person's own slot lasts as long as they take)."""
        return None if self.solo else self.dawn

    @property
    def dawn(self) -> float:
        """When the night's last slot ends: the dawn every page is shown."""
        last = max(self.plan.size, (self.plan.prompt_slot or 0) + 1) - 1
        return self.end_of(last) if last >= 0 else self.start
