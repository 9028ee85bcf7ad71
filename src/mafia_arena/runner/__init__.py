"""Play games with seated agents, record logs, replay them."""

from mafia_arena.runner.log import GameLog, replay
from mafia_arena.runner.match import MatchResult, play_match, play_match_sync

__all__ = ["GameLog", "MatchResult", "play_match", "play_match_sync", "replay"]
