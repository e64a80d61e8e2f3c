"""tcecd.formats: event formats (the round-based pairing systems, the knockout cup).

Each format is pure: from the event's state it says which games to play next,
how players rank and what it publishes. ``tcecd.formats.knockout`` is the cup.
"""
