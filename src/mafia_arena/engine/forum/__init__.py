"""The forum game: communication channels and the dictator variant's phase machine.

`channels` (private messages, newspaper ads under pseudonyms, testaments, thread
posts), `window` (the per-phase communication window, the forum's turn structure),
`forms` (the typed forms to the game master), `status` (status wording, investigations
and reveals), `dictator` (the phases and their resolution order). A phase-based
variant switches the channels on with `rules.forum` and a ``forum`` day step.
"""

from mafia_arena.engine.forum.dictator import play_forum

__all__ = ["play_forum"]
