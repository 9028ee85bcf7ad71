"""The names a variant file may use for night actions, voting procedures and traits.

They are part of the file format: the loader rejects anything else with a clear error,
and the engine checks at import time that it implements exactly these names.
"""

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
VOTING_PROCEDURES = frozenset({"plurality", "nominate_final", "accuse_defend"})
ROLE_TRAITS = frozenset(
    {
        "night_immune",
        "retaliates",
        "converts_to",
        "activates_when_accused",
        "inherits",
        "succeeds",
        "no_last_word",
        "leader",
        "meets_team_first_night",
        "dies_for",
        "observes",
        "killer",
    }
)
