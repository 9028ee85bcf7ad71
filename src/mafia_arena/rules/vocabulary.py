"""The names a variant file may use for night actions, voting procedures and traits.

They are part of the file format: the loader rejects anything else with a clear error,
and the engine checks at import time that it implements exactly these names.
"""

from mafia_arena.rules.params import VOTE_PARAMS, RoleTraits

NIGHT_ACTIONS = frozenset(
    {
        "kill",
        "protect",
        "check",
        "arrest",
        "steal",
        "frame",
        "copy",
        "defend",
        "silence",
        "compare",
        "watch",
        "check_or_kill",
        "shoot",
    }
)
FORUM_NIGHT_ACTIONS = frozenset(
    {"murder", "point", "mark", "passport", "protect", "query", "compare", "copy_status"}
)
"""The night forms of the ``dictator`` flow (`engine.forum.forms`), read by that flow
rather than by the night steps of `engine.night`."""
VOTING_PROCEDURES = frozenset(VOTE_PARAMS)
ROLE_TRAITS = frozenset(RoleTraits.model_fields)
"""Exactly the traits `engine.traits` and the night code implement (`rules.params`)."""
