"""Speech: structured speech acts, their canonical text, and a claim extractor.

The acts and their sentences are the engine's (`engine.speech_acts`, re-exported here); the
claim reader depends on nothing, so the views, the agents and the metrics share one
rendering and one reading of what was said, and the engine never imports this package.
"""

from mafia_arena.engine.speech_acts import render_act, speech_acts
from mafia_arena.speech.claims import Claim, extract_claims

__all__ = ["Claim", "extract_claims", "render_act", "speech_acts"]
