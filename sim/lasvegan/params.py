"""Rule knobs of Las Vegan: one validated, immutable object.

Every knob of the rules document is declared once in ``KNOBS`` (default,
values, label); the defaults are the rulebook's game. ``Rules.from_mapping``
reads the ``[rules]`` table of a config file and rejects unknown keys, wrong
types, out-of-range values and impossible combinations with a
:class:`~sim.errors.ConfigError` naming the key.
"""

from __future__ import annotations

import numpy as np

from sim.errors import ConfigError, shown
from sim.knobs import Choice, Flag, Int, Knob, ListOf, OrAuto, Pair, RuleKnobs, declared, int_in, knob_table
from sim.lasvegan import enums as E
from sim.records import kernel_struct

DEFAULT_MACHINES = (
    "suit:green", "suit:blue", "suit:red", "suit:purple",
    "value:1", "value:2", "value:3", "value:4",
    "value:5", "value:6", "value:8", "value:9",
)
DEFAULT_TOKENS = ((1, -1), (1, -2), (0, -3), (-1, -2))
DEFAULT_GOLDEN = (3, 4)
DEFAULT_SEAT_CABBAGES = (0,) * E.MAX_PLAYERS
FACE_LIMIT = 20
CABBAGE_LIMIT = 10_000

RESERVE_MODES = {"finite": E.RESERVE_FINITE, "unlimited": E.RESERVE_UNLIMITED}
PAYOUT_ORDERS = {"next_leader": E.PAYOUT_NEXT_LEADER, "seat_zero": E.PAYOUT_SEAT_ZERO}


STICKERS = tuple(f"suit:{c}" for c in E.SUIT_NAMES) + tuple(f"value:{v}" for v in range(10))
FACE = Int(-FACE_LIMIT, FACE_LIMIT)

KNOBS = knob_table(
    Knob("players", 4, Int(E.MIN_PLAYERS, E.MAX_PLAYERS), "players"),
    Knob("rounds", 4, Int(1, E.MAX_ROUNDS), "rounds"),
    Knob("starting_cabbages", 15, Int(1, CABBAGE_LIMIT), "starting cabbages", "cabbages each player starts with"),
    Knob("seat_cabbages", DEFAULT_SEAT_CABBAGES,
         ListOf(Int(0, CABBAGE_LIMIT), 0, E.MAX_PLAYERS, "seat {i}'s extra cabbages",
                "a list of integers, one per seat from seat 0", "seats", fill=0),
         "extra cabbages by seat",
         "a variant beyond the rulebook: the cabbages each seat is dealt on top of the starting cabbages, seat 0 "
         "(the first round's leader) first, then clockwise; seats the list leaves out get none, and the entries of "
         "seats beyond the players change nothing",
         entry_applies=lambda rules, seat: seat < rules.players),
    Knob("total_cabbages", 75, Int(0, CABBAGE_LIMIT), "cabbages in the box",
         "the reserve holds what is not dealt"),
    Knob("reserve", "finite", Choice({"finite": "gains the reserve cannot pay are lost", "unlimited": ""}),
         "the reserve"),
    Knob("end_on_elimination", True, Flag(true="the game ends after the round a player reaches 0"),
         "end on elimination"),
    Knob("set_aside", "auto", OrAuto(Int(0, E.N_CARDS - E.MIN_PLAYERS), f"{E.N_CARDS} mod players"),
         "cards set aside", "cards set aside unseen each round; at most 40 minus the players, and the rest must "
         "divide evenly among the players", follows_players=True, auto=lambda rules: rules.n_set_aside),
    Knob("set_aside_face", "hidden", Choice({"hidden": "", "revealed": ""}), "set-aside cards' face",
         applies=lambda rules: rules.n_set_aside > 0),
    Knob("machines", DEFAULT_MACHINES,
         ListOf(Choice({s: "" for s in STICKERS}, summary="'suit:<colour>' or 'value:<0-9>'",
                       wrong="unknown machine sticker {value} (expected 'suit:green|blue|red|purple' or "
                             "'value:0'..'value:9')"),
                None, None, "machine {n}", "a list of sticker strings"),
         "machine stickers", f"the machines' pile; 3 per round to {E.MAX_MACHINES}"),
    Knob("tokens", DEFAULT_TOKENS,
         ListOf(Pair((FACE, FACE), ("face 1", "face 2"), "a [face, face] integer pair", "faces"), 1, E.MAX_TOKENS,
                "token {n}", "a list of [face, face] integer pairs", "ordinary tokens"),
         "casino tokens"),
    Knob("golden_token", DEFAULT_GOLDEN, Pair((FACE, FACE), ("golden token, face 1", "golden token, face 2"),
                                              "a [face, face] integer pair", "faces"), "golden token"),
    Knob("payout_order", "next_leader",
         Choice({"next_leader": "clockwise from the next round's leader", "seat_zero": ""}), "payout order"),
)


def machine_code(sticker: str) -> int:
    """``"suit:red"`` -> 2, ``"value:5"`` -> 15; ValueError if malformed."""
    kind, _, arg = sticker.partition(":")
    if kind == "suit" and arg in E.SUIT_NAMES:
        return E.SUIT_NAMES.index(arg)
    if kind == "value" and len(arg) == 1 and arg in "0123456789":  # as rules.machines spells them: not '05', '٥', '²'
        return E.POINTS_BASE + int(arg)
    raise ValueError(
        f"unknown machine sticker {shown(sticker)} (expected 'suit:green|blue|red|purple' or 'value:0'..'value:9')"
    )


def machine_name(code: int) -> str:
    if code < E.POINTS_BASE:
        return f"suit:{E.SUIT_NAMES[code]}"
    return f"value:{code - E.POINTS_BASE}"


@declared(KNOBS)
class Rules(RuleKnobs):
    def check_combinations(self):
        _check_combinations(self)

    # --- derived -------------------------------------------------------
    @property
    def n_set_aside(self) -> int:
        if self.set_aside == "auto":
            return E.N_CARDS % self.players
        return int(self.set_aside)

    @property
    def hand_size(self) -> int:
        return (E.N_CARDS - self.n_set_aside) // self.players

    @property
    def finite_reserve(self) -> bool:
        return self.reserve == "finite"

    @property
    def seat_starting(self) -> tuple[int, ...]:
        """Cabbages each seat of the table starts with: the starting cabbages and the seat's extra ones."""
        return tuple(self.starting_cabbages + self.seat_cabbages[s] for s in range(self.players))

    @property
    def cabbages_dealt(self) -> int:
        return sum(self.seat_starting)

    @property
    def starting_reserve(self) -> int:
        """Cabbages in the reserve at the start; -1 when unlimited."""
        if not self.finite_reserve:
            return -1
        return self.total_cabbages - self.cabbages_dealt

    @property
    def machine_codes(self) -> tuple[int, ...]:
        return tuple(machine_code(m) for m in self.machines)

    # --- conversions ---------------------------------------------------
    def kernel_rules(self) -> "KernelRules":
        """What the jitted core reads of the rules, by name: its numbers and arrays (``sim.batches``)."""
        return KernelRules(
            players=self.players,
            rounds=self.rounds,
            starting_cabbages=self.starting_cabbages,
            starting_reserve=self.starting_reserve,
            reserve_mode=RESERVE_MODES[self.reserve],
            end_on_elimination=int(self.end_on_elimination),
            n_set_aside=self.n_set_aside,
            set_aside_revealed=int(self.set_aside_face == "revealed"),
            payout_order=PAYOUT_ORDERS[self.payout_order],
            machines=np.array(self.machine_codes, dtype=np.int64),
            tokens=np.array(self.tokens, dtype=np.int64).reshape(len(self.tokens), 2),
            golden=np.array(self.golden_token, dtype=np.int64),
            seat_starting=np.array(self.seat_starting, dtype=np.int64),
        )


KernelRules = kernel_struct(__name__, "KernelRules", (
    "players", "rounds", "starting_cabbages", "starting_reserve", "reserve_mode", "end_on_elimination",
    "n_set_aside", "set_aside_revealed", "payout_order", "machines", "tokens", "golden", "seat_starting",
))


def _check_combinations(r: Rules) -> None:
    """What joins several knobs: cards set aside, cabbages dealt, machines for the rounds."""
    if r.set_aside != "auto":
        int_in("set_aside", r.set_aside, 0, E.N_CARDS - r.players)
        if (E.N_CARDS - r.set_aside) % r.players:
            raise ConfigError(
                "set_aside",
                f"{E.N_CARDS} cards minus {r.set_aside} set aside do not divide evenly "
                f"among {r.players} players (use 'auto' or {E.N_CARDS % r.players} + a multiple of {r.players})",
            )
    if r.finite_reserve and r.cabbages_dealt > r.total_cabbages:
        extra = r.cabbages_dealt - r.players * r.starting_cabbages
        raise ConfigError(
            "total_cabbages",
            f"{r.players} players x {r.starting_cabbages} starting cabbages"
            f"{f' + {extra} extra (seat_cabbages)' if extra else ''} = "
            f"{r.cabbages_dealt} dealt, more than the {r.total_cabbages} that exist",
        )
    need = E.MACHINES_PER_ROUND * r.rounds
    if not need <= len(r.machines) <= E.MAX_MACHINES:
        raise ConfigError(
            "machines",
            f"needs between {need} (3 per round x {r.rounds} rounds) and {E.MAX_MACHINES} machines, "
            f"got {len(r.machines)}",
        )
