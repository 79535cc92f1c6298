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
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from sim.errors import ConfigError, shown
from sim.knobs import RuleKnobs
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

# Every knob: its default and the values it takes, for listings of the game.
KNOBS: dict[str, tuple[Any, str]] = {
    "players": (4, f"{E.MIN_PLAYERS} to {E.MAX_PLAYERS}"),
    "rounds": (4, f"1 to {E.MAX_ROUNDS}"),
    "dice_per_player": (8, f"coloured dice per player, 1 to {E.MAX_DICE}"),
    "casinos": (6, f"{E.MIN_CASINOS} to {E.MAX_CASINOS}; a die shows 1 to casinos"),
    "bills": (
        [list(b) for b in DEFAULT_BILLS],
        f"list of [value, count]: distinct values 1 to {E.MAX_BILL_VALUE:,} dollars, "
        f"at most {E.MAX_BILL_KINDS} values and {E.MAX_BILLS} bills",
    ),
    "casino_minimum": (50_000, "dollars each casino is filled to at the start of a round, at least 1"),
    "white_dice": ("auto", f"white dice per player, 0 (variant off) to {E.MAX_WHITE_DICE}, or 'auto' = 4/2/2/0 at 2/3/4/5 players"),
    "white_dice_extra_at_3": ("auto", "true, false or 'auto' = on at 3 players when white_dice > 0"),
    "tie_break": ("bills", "'bills' (largest bills first, then count), 'count' (most banknotes) or 'none' (shared win)"),
    "empty_pile": ("short", "'short' (casinos take what is left) or 'end' (the game ends before a round the pile cannot fill)"),
}


@dataclass(frozen=True)
class Rules(RuleKnobs):
    players: int = 4
    rounds: int = 4
    dice_per_player: int = 8
    casinos: int = 6
    bills: tuple[tuple[int, int], ...] = DEFAULT_BILLS
    casino_minimum: int = 50_000
    white_dice: int | str = "auto"
    white_dice_extra_at_3: bool | str = "auto"
    tie_break: str = "bills"
    empty_pile: str = "short"

    def __post_init__(self):
        object.__setattr__(self, "bills", _coerce_bills(self.bills))
        _validate(self)

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
    def total_money(self) -> int:
        return sum(value * count for value, count in self.bills)

    # --- conversions ---------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["bills"] = [list(b) for b in self.bills]
        return d

    def kernel_args(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The arrays the jitted core takes: (scalars, pile in ``bills`` order, values largest first)."""
        scalars = np.array(
            [
                self.players,
                self.rounds,
                self.dice_per_player,
                self.casinos,
                self.casino_minimum,
                self.n_white,
                self.n_extra_white,
                TIE_BREAKS[self.tie_break],
                EMPTY_PILE[self.empty_pile],
            ],
            dtype=np.int64,
        )
        return scalars, np.array(self.pile, dtype=np.int64), np.array(self.bill_values, dtype=np.int64)


# Index of each scalar in Rules.kernel_args()[0].
S_PLAYERS, S_ROUNDS, S_DICE, S_CASINOS, S_MINIMUM, S_WHITE, S_EXTRA_WHITE, S_TIE_BREAK, S_EMPTY_PILE = range(9)


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _coerce_bills(v: Any) -> Any:
    form = "a list of [value, count] integer pairs"
    if not isinstance(v, (list, tuple)) or not all(
        isinstance(b, (list, tuple)) and len(b) == 2 and all(_is_int(x) for x in b) for b in v
    ):
        raise ConfigError("bills", f"must be {form}, got {shown(v)}")
    return tuple((int(value), int(count)) for value, count in v)


def _int_in(name: str, v: Any, lo: int, hi: int) -> None:
    if not _is_int(v):
        raise ConfigError(name, f"must be an integer, got {shown(v)}")
    if not lo <= v <= hi:
        raise ConfigError(name, f"must be between {lo} and {hi}, got {v}")


def _choice(name: str, v: Any, options) -> None:
    if not isinstance(v, str) or v not in options:
        opts = " or ".join(repr(o) for o in options)
        raise ConfigError(name, f"must be {opts}, got {shown(v)}")


def _validate(r: Rules) -> None:
    _int_in("players", r.players, E.MIN_PLAYERS, E.MAX_PLAYERS)
    _int_in("rounds", r.rounds, 1, E.MAX_ROUNDS)
    _int_in("dice_per_player", r.dice_per_player, 1, E.MAX_DICE)
    _int_in("casinos", r.casinos, E.MIN_CASINOS, E.MAX_CASINOS)
    _int_in("casino_minimum", r.casino_minimum, 1, MAX_MINIMUM)
    if r.white_dice != "auto":
        if isinstance(r.white_dice, str):
            raise ConfigError("white_dice", f"must be a number or 'auto', got {shown(r.white_dice)}")
        _int_in("white_dice", r.white_dice, 0, E.MAX_WHITE_DICE)
    if r.white_dice_extra_at_3 != "auto":
        if not isinstance(r.white_dice_extra_at_3, bool):
            raise ConfigError(
                "white_dice_extra_at_3", f"must be true, false or 'auto', got {shown(r.white_dice_extra_at_3)}"
            )
        if r.white_dice_extra_at_3 and r.players != 3:
            raise ConfigError(
                "white_dice_extra_at_3", f"the extra white dice are a 3-player rule, but players is {r.players}"
            )
    _choice("tie_break", r.tie_break, tuple(TIE_BREAKS))
    _choice("empty_pile", r.empty_pile, tuple(EMPTY_PILE))

    values = [value for value, _ in r.bills]
    for i, (value, count) in enumerate(r.bills):
        _int_in(f"bills[{i}][0]", value, 1, E.MAX_BILL_VALUE)
        _int_in(f"bills[{i}][1]", count, 0, E.MAX_BILLS)
        if values.index(value) != i:
            raise ConfigError(f"bills[{i}]", f"lists the value {value} again (give each value once, with its count)")
    if not 1 <= len(r.bill_values) <= E.MAX_BILL_KINDS:
        raise ConfigError("bills", f"needs between 1 and {E.MAX_BILL_KINDS} values with a count above 0 "
                                   f"([value, count] pairs), got {len(r.bill_values)}")
    n_bills = sum(count for _, count in r.bills)
    if n_bills > E.MAX_BILLS:
        raise ConfigError("bills", f"holds {n_bills} bills, at most {E.MAX_BILLS}")
    if r.total_money > E.MAX_TOTAL_MONEY:
        raise ConfigError("bills", f"total {r.total_money:,} dollars, at most {E.MAX_TOTAL_MONEY:,}")
    if r.total_money < r.casinos * r.casino_minimum:
        raise ConfigError(
            "bills",
            f"total {r.total_money:,} dollars, less than {r.casinos} casinos x {r.casino_minimum:,}: "
            "the casinos can never all be filled",
        )
    # Summaries count money in steps of the bills' common divisor.
    steps = r.total_money // math.gcd(*r.bill_values)
    if steps > MAX_MONEY_STEPS:
        raise ConfigError(
            "bills",
            f"total {r.total_money:,} dollars is {steps:,} steps of the values' common divisor "
            f"{math.gcd(*r.bill_values):,}, at most {MAX_MONEY_STEPS:,}",
        )
    # A casino filled with the smallest bills holds the most of them.
    most = math.ceil(r.casino_minimum / min(r.bill_values))
    if most > E.MAX_CASINO_BILLS:
        raise ConfigError(
            "casino_minimum",
            f"{r.casino_minimum:,} dollars in bills of {min(r.bill_values):,} is {most} bills on one casino, "
            f"at most {E.MAX_CASINO_BILLS}",
        )
