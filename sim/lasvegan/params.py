"""Rule knobs of Las Vegan: one validated, immutable object.

Every knob of ``shared rules`` is a field; the defaults are the rulebook's
game. ``Rules.from_mapping`` reads the ``[rules]`` table of a config file and
rejects unknown keys, wrong types, out-of-range values and impossible
combinations with a :class:`~sim.errors.ConfigError` naming the key.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from sim.errors import ConfigError, shown
from sim.knobs import RuleKnobs
from sim.lasvegan import enums as E

DEFAULT_MACHINES = (
    "suit:green", "suit:blue", "suit:red", "suit:purple",
    "value:1", "value:2", "value:3", "value:4",
    "value:5", "value:6", "value:8", "value:9",
)
DEFAULT_TOKENS = ((1, -1), (1, -2), (0, -3), (-1, -2))
DEFAULT_GOLDEN = (3, 4)
FACE_LIMIT = 20
CABBAGE_LIMIT = 10_000

RESERVE_MODES = {"finite": E.RESERVE_FINITE, "unlimited": E.RESERVE_UNLIMITED}
PAYOUT_ORDERS = {"next_leader": E.PAYOUT_NEXT_LEADER, "seat_zero": E.PAYOUT_SEAT_ZERO}
SET_ASIDE_FACES = ("hidden", "revealed")


# Every knob: its default and the values it takes, for listings of the game.
KNOBS: dict[str, tuple[Any, str]] = {
    "players": (4, f"{E.MIN_PLAYERS} to {E.MAX_PLAYERS}"),
    "rounds": (4, f"1 to {E.MAX_ROUNDS}"),
    "starting_cabbages": (15, f"cabbages each player starts with, 1 to {CABBAGE_LIMIT:,}"),
    "total_cabbages": (75, f"cabbages in the box (the reserve holds what is not dealt), 0 to {CABBAGE_LIMIT:,}"),
    "reserve": ("finite", "'finite' (gains the reserve cannot pay are lost) or 'unlimited'"),
    "end_on_elimination": (True, "true (the game ends after the round a player reaches 0) or false"),
    "set_aside": ("auto", f"cards set aside unseen each round, or 'auto' = {E.N_CARDS} mod players"),
    "set_aside_face": ("hidden", "'hidden' or 'revealed'"),
    "machines": (
        list(DEFAULT_MACHINES),
        f"list of stickers 'suit:<colour>' or 'value:<0-9>', 3 per round to {E.MAX_MACHINES}",
    ),
    "tokens": ([list(t) for t in DEFAULT_TOKENS], f"list of [face, face] pairs, 1 to {E.MAX_TOKENS}, "
               f"faces -{FACE_LIMIT} to {FACE_LIMIT}"),
    "golden_token": (list(DEFAULT_GOLDEN), f"[min face, max face], -{FACE_LIMIT} to {FACE_LIMIT}"),
    "payout_order": ("next_leader", "'next_leader' (clockwise from the next round's leader) or 'seat_zero'"),
}


def machine_code(sticker: str) -> int:
    """``"suit:red"`` -> 2, ``"value:5"`` -> 15; ValueError if malformed."""
    kind, _, arg = sticker.partition(":")
    if kind == "suit" and arg in E.SUIT_NAMES:
        return E.SUIT_NAMES.index(arg)
    if kind == "value" and arg.isdigit() and 0 <= int(arg) <= 9:
        return E.POINTS_BASE + int(arg)
    raise ValueError(
        f"unknown machine sticker {shown(sticker)} (expected 'suit:green|blue|red|purple' or 'value:0'..'value:9')"
    )


def machine_name(code: int) -> str:
    if code < E.POINTS_BASE:
        return f"suit:{E.SUIT_NAMES[code]}"
    return f"value:{code - E.POINTS_BASE}"


@dataclass(frozen=True)
class Rules(RuleKnobs):
    players: int = 4
    rounds: int = 4
    starting_cabbages: int = 15
    total_cabbages: int = 75
    reserve: str = "finite"
    end_on_elimination: bool = True
    set_aside: int | str = "auto"
    set_aside_face: str = "hidden"
    machines: tuple[str, ...] = DEFAULT_MACHINES
    tokens: tuple[tuple[int, int], ...] = DEFAULT_TOKENS
    golden_token: tuple[int, int] = DEFAULT_GOLDEN
    payout_order: str = "next_leader"

    def __post_init__(self):
        for key in ("machines", "tokens", "golden_token"):
            object.__setattr__(self, key, _coerce(key, key, getattr(self, key)))
        _validate(self)

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
    def starting_reserve(self) -> int:
        """Cabbages in the reserve at the start; -1 when unlimited."""
        if not self.finite_reserve:
            return -1
        return self.total_cabbages - self.starting_cabbages * self.players

    @property
    def machine_codes(self) -> tuple[int, ...]:
        return tuple(machine_code(m) for m in self.machines)

    # --- conversions ---------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["machines"] = list(self.machines)
        d["tokens"] = [list(t) for t in self.tokens]
        d["golden_token"] = list(self.golden_token)
        return d

    def kernel_args(self) -> tuple:
        """The arrays the jitted core takes: (scalars, machines, tokens, golden)."""
        scalars = np.array(
            [
                self.players,
                self.rounds,
                self.starting_cabbages,
                self.starting_reserve,
                RESERVE_MODES[self.reserve],
                int(self.end_on_elimination),
                self.n_set_aside,
                int(self.set_aside_face == "revealed"),
                PAYOUT_ORDERS[self.payout_order],
            ],
            dtype=np.int64,
        )
        machines = np.array(self.machine_codes, dtype=np.int64)
        tokens = np.array(self.tokens, dtype=np.int64).reshape(len(self.tokens), 2)
        golden = np.array(self.golden_token, dtype=np.int64)
        return scalars, machines, tokens, golden


# Index of each scalar in Rules.kernel_args()[0].
S_PLAYERS, S_ROUNDS, S_STARTING, S_RESERVE, S_RESERVE_MODE, S_END_ON_ELIM, \
    S_N_SET_ASIDE, S_SET_ASIDE_REVEALED, S_PAYOUT_ORDER = range(9)


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _coerce(name: str, key: str, v: Any) -> Any:
    """Turn TOML lists into the tuples the frozen dataclass stores."""
    if key == "machines":
        if not isinstance(v, (list, tuple)) or not all(isinstance(m, str) for m in v):
            raise ConfigError(name, f"must be a list of sticker strings, got {shown(v)}")
        return tuple(v)
    if key == "tokens":
        if not isinstance(v, (list, tuple)) or not all(
            isinstance(t, (list, tuple)) and len(t) == 2 and all(_is_int(x) for x in t) for t in v
        ):
            raise ConfigError(name, f"must be a list of [face, face] integer pairs, got {shown(v)}")
        return tuple((int(a), int(b)) for a, b in v)
    if key == "golden_token":
        if not isinstance(v, (list, tuple)) or len(v) != 2 or not all(_is_int(x) for x in v):
            raise ConfigError(name, f"must be a [face, face] integer pair, got {shown(v)}")
        return (int(v[0]), int(v[1]))
    return v


def _int_in(name: str, v: Any, lo: int, hi: int) -> None:
    if not _is_int(v):
        raise ConfigError(name, f"must be an integer, got {shown(v)}")
    if not lo <= v <= hi:
        raise ConfigError(name, f"must be between {lo} and {hi}, got {v}")


def _choice(name: str, v: Any, options) -> None:
    if v not in options:
        opts = " or ".join(repr(o) for o in options)
        raise ConfigError(name, f"must be {opts}, got {shown(v)}")


def _validate(r: Rules) -> None:
    _int_in("players", r.players, E.MIN_PLAYERS, E.MAX_PLAYERS)
    _int_in("rounds", r.rounds, 1, E.MAX_ROUNDS)
    _int_in("starting_cabbages", r.starting_cabbages, 1, CABBAGE_LIMIT)
    _int_in("total_cabbages", r.total_cabbages, 0, CABBAGE_LIMIT)
    _choice("reserve", r.reserve, tuple(RESERVE_MODES))
    if not isinstance(r.end_on_elimination, bool):
        raise ConfigError("end_on_elimination", f"must be true or false, got {shown(r.end_on_elimination)}")
    _choice("set_aside_face", r.set_aside_face, SET_ASIDE_FACES)
    _choice("payout_order", r.payout_order, tuple(PAYOUT_ORDERS))
    if r.set_aside != "auto":
        if isinstance(r.set_aside, str):
            raise ConfigError("set_aside", f"must be a number or 'auto', got {shown(r.set_aside)}")
        _int_in("set_aside", r.set_aside, 0, E.N_CARDS - r.players)
        if (E.N_CARDS - r.set_aside) % r.players:
            raise ConfigError(
                "set_aside",
                f"{E.N_CARDS} cards minus {r.set_aside} set aside do not divide evenly "
                f"among {r.players} players (use 'auto' or {E.N_CARDS % r.players} + a multiple of {r.players})",
            )
    if r.finite_reserve and r.starting_cabbages * r.players > r.total_cabbages:
        raise ConfigError(
            "total_cabbages",
            f"{r.players} players x {r.starting_cabbages} starting cabbages = "
            f"{r.players * r.starting_cabbages} dealt, more than the {r.total_cabbages} that exist",
        )
    if not isinstance(r.machines, tuple):
        raise ConfigError("machines", "must be a list of sticker strings")
    for i, m in enumerate(r.machines):
        try:
            machine_code(m)
        except ValueError as err:
            raise ConfigError(f"machines[{i}]", str(err)) from None
    need = E.MACHINES_PER_ROUND * r.rounds
    if not need <= len(r.machines) <= E.MAX_MACHINES:
        raise ConfigError(
            "machines",
            f"needs between {need} (3 per round x {r.rounds} rounds) and {E.MAX_MACHINES} machines, "
            f"got {len(r.machines)}",
        )
    if not 1 <= len(r.tokens) <= E.MAX_TOKENS:
        raise ConfigError("tokens", f"needs between 1 and {E.MAX_TOKENS} ordinary tokens, got {len(r.tokens)}")
    for i, pair in enumerate(r.tokens):
        for face in pair:
            _int_in(f"tokens[{i}]", face, -FACE_LIMIT, FACE_LIMIT)
    for face in r.golden_token:
        _int_in("golden_token", face, -FACE_LIMIT, FACE_LIMIT)
