"""Rule knobs of High Card, declared once (``sim.knobs``): one checked, immutable ``Rules``."""

from __future__ import annotations

import numpy as np

from sim.errors import ConfigError
from sim.knobs import Choice, Int, Knob, RuleKnobs, declared, knob_table
from sim.records import kernel_struct

from lvsim_highcard import enums as E

TIES = {"nobody": E.TIES_NOBODY, "shared": E.TIES_SHARED}

KNOBS = knob_table(
    Knob("players", 3, Int(E.MIN_PLAYERS, E.MAX_PLAYERS), "players"),
    Knob("top", 10, Int(2, E.MAX_TOP), "highest card", "cards run from 1 to top"),
    Knob("copies", 4, Int(1, E.MAX_COPIES), "copies of each card"),
    Knob("hand", 5, Int(1, E.MAX_HAND), "cards dealt", "cards dealt to each player; players x hand <= the deck"),
    Knob("rounds", 5, Int(1, E.MAX_ROUNDS), "rounds", "one card played by each player a round; at most hand"),
    Knob("ties", "nobody", Choice({"nobody": "no point", "shared": "each tied player scores"}),
         "a tie for the highest card"),
)


@declared(KNOBS)
class Rules(RuleKnobs):
    def check_combinations(self):
        if self.players * self.hand > self.deck_size:
            raise ConfigError("hand", f"{self.players} players x {self.hand} cards is more than the deck's "
                                      f"{self.deck_size} ({self.top} values x {self.copies} copies)")
        if self.rounds > self.hand:
            raise ConfigError("rounds", f"{self.rounds} rounds need {self.rounds} cards in each hand, "
                                        f"but hand is {self.hand}")

    @property
    def deck_size(self) -> int:
        return self.top * self.copies

    @property
    def deck(self) -> tuple[int, ...]:
        """The deck before the shuffle: ``copies`` of 1, then of 2, ... up to ``top``."""
        return tuple(v for v in range(1, self.top + 1) for _ in range(self.copies))

    def kernel_rules(self) -> "KernelRules":
        """What the jitted core reads of the rules, by name: its numbers and the unshuffled deck."""
        return KernelRules(self.players, self.rounds, self.top, self.hand, TIES[self.ties], np.array(self.deck, dtype=np.int64))


KernelRules = kernel_struct(__name__, "KernelRules", ("players", "rounds", "top", "hand", "ties", "deck"))
