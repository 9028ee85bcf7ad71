"""A hand-built 7-player `standard` game whose every metric is worked out by hand.

Seats: P1 (0) and P2 (1) mafiosi; P3 (2) doctor; P4 (3) detective; P5-P7 (4-6) villagers.

    night 1  the detective checks P1: mafia.              P7 is killed.
    day 1    P1 claims detective (false), P3 claims doctor (true), P6 claims doctor
             (false), P4 states its true check of P1, P5 states a check it never made.
             beliefs: P4 {P1 .9, P2 .6, P3 .1, P5 .2, P6 .3}; P5 {P1 .3, P2 .5, P3 .5}
             intents: P5 -> P1, P3 -> P1
             vote: P1->P4 P2->P4 P3->P1 P4->P1 P5->P4 P6->P4   => P4 executed
    night 2  P6 is killed.
    day 2    nominations P3->P1, P5->P2, P1->P5; final vote P1->P5 P2->P1 P3->P1 P5->P1
             => P1 executed
    night 3  P5 is killed.  day 3: P2 and P3 left, parity: the mafia win.
"""

from __future__ import annotations

from typing import Any

from mafia_arena.engine.catalogue import fact_from_payload
from mafia_arena.engine.events import Event, Scope, Visibility
from mafia_arena.runner.log import GameLog

ROLES = ["mafioso", "mafioso", "doctor", "detective", "villager", "villager", "villager"]


class LogBuilder:
    def __init__(self) -> None:
        self.events: list[Event] = []
        self.day, self.phase = 0, "setup"

    def add(
        self,
        kind: str,
        payload: dict[str, Any],
        scope: Scope = "public",
        seats: tuple[int, ...] = (),
    ) -> None:
        self.events.append(
            Event(
                len(self.events),
                self.day,
                self.phase,
                fact_from_payload(kind, payload),
                Visibility(scope, frozenset(seats)),
            )
        )

    def at(self, day: int, phase: str) -> None:
        self.day, self.phase = day, phase
        self.add("phase", {"phase": phase, "number": day})

    def say(self, seat: int, text: str) -> None:
        self.add("speech", {"seat": seat, "text": text, "kind": "discussion"})

    def votes(self, votes: dict[int, int | None], kind: str = "vote") -> None:
        self.add(
            "votes", {"kind": kind, "votes": {str(v): t for v, t in votes.items()}, "tally": {}}
        )

    def death(self, seat: int, cause: str) -> None:
        self.add("death", {"seat": seat, "cause": cause, "role": ROLES[seat]})


def build_known_game() -> GameLog:
    b = LogBuilder()
    b.add(
        "setup",
        {
            "variant": "standard",
            "players": 7,
            "composition": {"villager": 3, "doctor": 1, "detective": 1, "mafioso": 2},
        },
    )
    for seat, role in enumerate(ROLES):
        b.add(
            "role",
            {"seat": seat, "role": role, "faction": "mafia" if role == "mafioso" else "town"},
            "seats",
            (seat,),
        )
    b.at(1, "night")
    b.add("decision", {"seat": 0, "kind": "night:mafia_kill", "choice": "target:6"}, "host")
    b.add(
        "decision",
        {"seat": 0, "kind": "night:mafia_kill", "choice": "target:6", "fallback": "timeout"},
        "host",
    )
    b.add(
        "night_result",
        {"step": "detective_check", "action": "check", "target": 0, "result": "mafia"},
        "seats",
        (3,),
    )
    b.at(1, "day")
    b.death(6, "night")
    b.say(0, "I claim to be the detective.")
    b.say(2, "I am the doctor.")
    b.say(5, "I am the doctor.")
    b.say(3, "My check: P1 is mafia.")
    b.say(4, "My check: P2 is innocent.")
    b.add("decision", {"seat": 2, "kind": "speak", "choice": "pass"}, "host")
    # stated beliefs and intents travel in the log's meta, dated by the host's position
    at = len(b.events) - 1
    beliefs = [
        {
            "seat": 3,
            "seq": at,
            "day": 1,
            "probs": {"0": 0.9, "1": 0.6, "2": 0.1, "4": 0.2, "5": 0.3},
        },
        {"seat": 4, "seq": at, "day": 1, "probs": {"0": 0.3, "1": 0.5, "2": 0.5}, "intent": 0},
        {"seat": 2, "seq": at, "day": 1, "probs": {}, "intent": 0},
    ]
    b.votes({0: 3, 1: 3, 2: 0, 3: 0, 4: 3, 5: 3})
    b.death(3, "execution")
    b.at(2, "night")
    b.at(2, "day")
    b.death(5, "night")
    b.add("nomination", {"seat": 2, "target": 0, "round": 1})
    b.add("nomination", {"seat": 4, "target": 1, "round": 1})
    b.add("nomination", {"seat": 0, "target": 4, "round": 1})
    b.votes({0: 4, 1: 0, 2: 0, 4: 0}, kind="final_vote")
    b.death(0, "execution")
    b.at(3, "night")
    b.at(3, "day")
    b.death(4, "night")
    b.add(
        "game_over",
        {
            "winner": "mafia",
            "winners": [0, 1],
            "reason": "",
            "roles": {str(s): r for s, r in enumerate(ROLES)},
            "factions": {
                str(s): "mafia" if r == "mafioso" else "town" for s, r in enumerate(ROLES)
            },
        },
    )
    stats = [{"reasks": 0, "retries": 0} for _ in ROLES]
    stats[0] = {"reasks": 2, "retries": 1}
    meta = {"agent_stats": stats, "beliefs": beliefs}
    return GameLog("standard", {}, 7, 1, b.events, ["x"] * 7, meta)
