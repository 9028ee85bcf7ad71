"""Speech: structured speech acts, their canonical text, and a claim extractor.

Depends only on the engine's `Choice` type, so the engine, the views, the agents and the metrics can
all use the same rendering and the same reading of what was said.
"""

from mafia_arena.speech.acts import render_act, speech_acts
from mafia_arena.speech.claims import Claim, extract_claims

__all__ = ["Claim", "extract_claims", "render_act", "speech_acts"]
