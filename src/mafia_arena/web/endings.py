"""Why a finished game ended, in words: `views.endings`, where the web's end screen and
replay share it with the terminal game and the command line's transcripts; kept
importable here under its earlier name."""

from __future__ import annotations

from mafia_arena.views.endings import end_reason, rule_words, says_nothing, why_won

__all__ = ["end_reason", "rule_words", "says_nothing", "why_won"]
