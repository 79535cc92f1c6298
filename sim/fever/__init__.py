"""$ Fever: the slot-machine card game (rules: the Fever rules document)."""
