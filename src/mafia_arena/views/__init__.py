"""What one seat knows: derived only from the events visible to that seat."""

from mafia_arena.views.knowledge import Knowledge, KnowledgeFold
from mafia_arena.views.text import render_event, render_view
from mafia_arena.views.view import SeatTracker, View, view_of

__all__ = [
    "Knowledge",
    "KnowledgeFold",
    "SeatTracker",
    "View",
    "render_event",
    "render_view",
    "view_of",
]
