"""Rule knobs of Las Vegas (the dice game): one validated, immutable object.

Every knob of the rules document is a field; the defaults are the rulebook's
game with the neutral (white) dice variant at 2-4 players. ``Rules.from_mapping``
reads the ``[rules]`` table of a config file and rejects unknown keys, wrong
types, out-of-range values and impossible combinations with a
:class:`~sim.errors.ConfigError` naming the key.

Decisions where the rules are silent or ambiguous (each a knob):

* ``tie_break``: the rules break a money tie by "the most big bills". The
  default ``"bills"`` compares the tied seats' bill lists sorted largest
  first, bill by bill, then the number of bills; ``"count"`` gives the win
  to the seat with the most banknotes; ``"none"`` shares it. Seats still
  tied share the win.
* ``white_dice_extra_at_3``: at 3 players the variant rolls 2 extra white
  dice onto the casinos at the start of each round; ``"auto"`` does so
  exactly when the variant is on (``white_dice`` > 0) at 3 players.
* ``empty_pile``: bills left on casinos go back under the pile, but bills
  won by players leave it, so with some bill lists the pile can run out
  while the casinos are filled. ``"short"`` (default) fills the casinos
  with what is left, in order, so later casinos may stay under the minimum
  or empty (an empty casino pays nothing); ``"end"`` ends the game before a
  round that cannot be filled, the rounds already played counting.
  Bills whose total cannot bring every casino to the minimum even once are
  rejected outright (``bills``).
"""

from __future__ import annotations

import math
import numpy as np

from sim.errors import ConfigError
from sim.knobs import Flag, Choice, Int, Knob, ListOf, OrAuto, Pair, RuleKnobs, declared, knob_table
from sim.records import kernel_struct
from sim.vegasdice import enums as E

# The 54 banknotes of the box: [value in dollars, count].
DEFAULT_BILLS = (
    (10_000, 6), (20_000, 8), (30_000, 8), (40_000, 6), (50_000, 6),
    (60_000, 5), (70_000, 5), (80_000, 5), (90_000, 5),
)
# White dice per player in the variant, by player count ("auto").
RULEBOOK_WHITE_DICE = {2: 4, 3: 2, 4: 2, 5: 0}
MAX_MINIMUM = 100_000_000
MAX_MONEY_STEPS = 2**24

TIE_BREAKS = {"bills": E.TIE_BREAK_BILLS, "count": E.TIE_BREAK_COUNT, "none": E.TIE_BREAK_NONE}
EMPTY_PILE = {"short": E.EMPTY_PILE_SHORT, "end": E.EMPTY_PILE_END}

KNOBS = knob_table(
    Knob("players", 4, Int(E.MIN_PLAYERS, E.MAX_PLAYERS), "players"),
    Knob("rounds", 4, Int(1, E.MAX_ROUNDS), "rounds"),
    Knob("dice_per_player", 8, Int(1, E.MAX_DICE), "dice per player", "coloured dice per player"),
    Knob("casinos", 6, Int(E.MIN_CASINOS, E.MAX_CASINOS), "casinos", "a die shows 1 to casinos"),
    Knob("bills", DEFAULT_BILLS,
         ListOf(Pair((Int(1, E.MAX_BILL_VALUE), Int(0, E.MAX_BILLS)), ("value", "count"),
                     "a [value, count] integer pair"),
                None, None, "bill {n}", "a list of [value, count] integer pairs"),
         "banknotes", f"distinct values in dollars, at most {E.MAX_BILL_KINDS} values and {E.MAX_BILLS} bills",
         # a bill's value moves by the dollars the bills are counted in (one dollar is no printed change), its count
         # by one bill
         step=lambda rules, path: rules.money_unit if path[-1:] == (0,) else 1),
    Knob("casino_minimum", 50_000, Int(1, MAX_MINIMUM), "casino minimum",
         "dollars each casino is filled to at the start of a round",
         step=lambda rules, path: min(rules.bill_values)),  # a casino fills bill by bill: a dollar is rarely a change
    Knob("white_dice", "auto", OrAuto(Int(0, E.MAX_WHITE_DICE), "4/2/2/0 at 2/3/4/5 players"), "white dice",
         "white dice per player; 0 turns the variant off", auto=lambda rules: rules.n_white),
    Knob("white_dice_extra_at_3", "auto", OrAuto(Flag(), "on at 3 players when white_dice > 0"),
         "extra white dice at 3 players", follows_players=True, applies=lambda rules: rules.players == 3,
         auto=lambda rules: rules.n_extra_white > 0),
    Knob("tie_break", "bills", Choice({"bills": "largest bills first, then count", "count": "most banknotes",
                                       "none": "shared win"}), "tie break"),
    Knob("empty_pile", "short", Choice({"short": "casinos take what is left",
                                        "end": "the game ends before a round the pile cannot fill"}),
         "an empty pile"),
)


@declared(KNOBS)
class Rules(RuleKnobs):
    def check_combinations(self) -> None:
        """The extra white dice at 3 players only; bills each value once, enough to fill the casinos."""
        if self.white_dice_extra_at_3 is True and self.players != 3:
            raise ConfigError(
                "white_dice_extra_at_3", f"the extra white dice are a 3-player rule, but players is {self.players}"
            )
        values = [value for value, _ in self.bills]
        for i, value in enumerate(values):
            if values.index(value) != i:
                raise ConfigError(f"bills[{i}]", f"lists the value {value} again (give each value once, with its count)")
        if not 1 <= len(self.bill_values) <= E.MAX_BILL_KINDS:
            raise ConfigError("bills", f"needs between 1 and {E.MAX_BILL_KINDS} values with a count above 0 "
                                       f"([value, count] pairs), got {len(self.bill_values)}")
        n_bills = sum(count for _, count in self.bills)
        if n_bills > E.MAX_BILLS:
            raise ConfigError("bills", f"holds {n_bills} bills, at most {E.MAX_BILLS}")
        if self.total_money > E.MAX_TOTAL_MONEY:
            raise ConfigError("bills", f"total {self.total_money:,} dollars, at most {E.MAX_TOTAL_MONEY:,}")
        if self.total_money < self.casinos * self.casino_minimum:
            raise ConfigError(
                "bills",
                f"total {self.total_money:,} dollars, less than {self.casinos} casinos x {self.casino_minimum:,}: "
                "the casinos can never all be filled",
            )
        # Summaries count money in steps of the bills' common divisor.
        steps = self.total_money // self.money_unit
        if steps > MAX_MONEY_STEPS:
            raise ConfigError(
                "bills",
                f"total {self.total_money:,} dollars is {steps:,} steps of the values' common divisor "
                f"{self.money_unit:,}, at most {MAX_MONEY_STEPS:,}",
            )
        # A casino filled with the smallest bills holds the most of them.
        most = math.ceil(self.casino_minimum / min(self.bill_values))
        if most > E.MAX_CASINO_BILLS:
            raise ConfigError(
                "casino_minimum",
                f"{self.casino_minimum:,} dollars in bills of {min(self.bill_values):,} is {most} bills on one casino, "
                f"at most {E.MAX_CASINO_BILLS}",
            )

    # --- derived -------------------------------------------------------
    @property
    def n_white(self) -> int:
        """White dice each player rolls with their own (0: variant off)."""
        if self.white_dice == "auto":
            return RULEBOOK_WHITE_DICE[self.players]
        return int(self.white_dice)

    @property
    def n_extra_white(self) -> int:
        """White dice rolled onto the casinos for the table at the start of each round."""
        on = self.white_dice_extra_at_3
        if on == "auto":
            on = self.players == 3 and self.n_white > 0
        return E.EXTRA_WHITE_DICE if on else 0

    @property
    def pile(self) -> tuple[int, ...]:
        """Every bill's value, in the order of ``bills`` (before the shuffle)."""
        return tuple(value for value, count in self.bills for _ in range(count))

    @property
    def bill_values(self) -> tuple[int, ...]:
        """The distinct bill values, largest first."""
        return tuple(sorted({value for value, count in self.bills if count > 0}, reverse=True))

    @property
    def money_unit(self) -> int:
        """The dollars every bill is a whole number of: the bill values' greatest common divisor."""
        return math.gcd(*self.bill_values)

    @property
    def total_money(self) -> int:
        return sum(value * count for value, count in self.bills)

    # --- conversions ---------------------------------------------------
    def kernel_rules(self) -> "KernelRules":
        """What the jitted core reads of the rules, by name: its numbers, the pile in ``bills`` order and the
        values largest first (``sim.batches``)."""
        return KernelRules(
            players=self.players,
            rounds=self.rounds,
            dice_per_player=self.dice_per_player,
            casinos=self.casinos,
            casino_minimum=self.casino_minimum,
            n_white=self.n_white,
            n_extra_white=self.n_extra_white,
            tie_break=TIE_BREAKS[self.tie_break],
            empty_pile=EMPTY_PILE[self.empty_pile],
            bills=np.array(self.pile, dtype=np.int64),
            values=np.array(self.bill_values, dtype=np.int64),
        )


KernelRules = kernel_struct(__name__, "KernelRules", (
    "players", "rounds", "dice_per_player", "casinos", "casino_minimum", "n_white", "n_extra_white", "tie_break",
    "empty_pile", "bills", "values",
))
