"""Policies declared once: a game lists its policies, and everything else is derived here.

A game's ``policies.py`` declares each policy as a :class:`PolicySpec` —
its name, the id its kernels dispatch on, a description, and its typed
parameters (:func:`whole`, :func:`fraction`, :func:`choice`,
:func:`base_policy`) with their defaults and domains — and gathers them
in a :class:`Policies`. From that one list come what the config reader,
the command line and the reference engine need: ``parse`` (a config's
``"lookahead:64"`` -> ``(id, params)``), ``parse_seats``, the syntax
(``lookahead[:N[:cabbages|win]]``) and the descriptions.

A parameter's error names the config field and the whole entry:
``policies.seats: 'montecarlo:0': samples per decision must be a whole
number from 1 to 100,000``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Mapping, Sequence

import numpy as np

from sim.errors import ConfigError, shown
from sim.seats import parse_seats, whole_number


class Refused(Exception):
    """A parameter's text is outside its domain; the message says what it must be."""


@dataclass(frozen=True)
class Param:
    """One parameter of a policy, written ``:TEXT`` after its name.

    ``symbol`` is how the syntax shows it (``N``, ``cabbages|win``);
    ``default`` is the text read when it is left out (None: it is
    required). ``read(text, parse)`` gives its values in the params row
    (one or more), or raises :class:`Refused`; ``parse`` parses another
    policy of the game for the same field. A ``rest`` parameter takes the
    rest of the entry, colons included (a base policy).
    """

    symbol: str
    default: str | None
    read: Callable[[str, Callable[[str], tuple[int, np.ndarray]]], Sequence[float]]
    rest: bool = False
    domain: str = ""  # what it may be, as a listing says it ("1 to 100,000"); "" when the symbol says it all

    @property
    def said(self) -> str:
        """``N from 1 to 100,000, default 64``: the parameter as a listing of the policies says it."""
        text = self.symbol + (f" {self.domain}" if self.domain else "")
        return text + ("" if self.default is None else f", default {self.default}")


def whole(symbol: str, what: str, lowest: int, highest: int, default: int | None = None,
          unit: str = "") -> Param:
    """A whole number from ``lowest`` to ``highest`` (``what`` must be a whole number[ of unit] from ...)."""
    number = f"a whole number{' of ' + unit if unit else ''}"

    def read(text: str, parse) -> Sequence[float]:
        if not whole_number(text) or not lowest <= int(text) <= highest:
            raise Refused(f"{what} must be {number} from {lowest:,} to {highest:,}")
        return (int(text),)

    return Param(symbol, None if default is None else str(default), read, domain=f"from {lowest:,} to {highest:,}")


def fraction(symbol: str, what: str, default: float | None = None, scale: int | None = None) -> Param:
    """A probability from 0 to 1; stored as is, or as ``round(p * scale)``."""

    def read(text: str, parse) -> Sequence[float]:
        try:
            p = float(text)
        except ValueError:
            p = float("nan")
        if not 0.0 <= p <= 1.0:
            raise Refused(f"{what} must be between 0 and 1")
        return (p if scale is None else round(p * scale),)

    return Param(symbol, None if default is None else str(default), read, domain="from 0 to 1")


def choice(what: str, values: Mapping[str, int], default: str) -> Param:
    """One word of ``values`` (word -> the number stored)."""
    words = list(values)

    def read(text: str, parse) -> Sequence[float]:
        if text not in values:
            raise Refused(f"{what} must be {' or '.join(repr(w) for w in words)}, got {shown(text)}")
        return (values[text],)

    return Param("|".join(words), default, read)


def base_policy(symbol: str, owner: str, owner_id: int, n_params: int) -> Param:
    """Another policy of the game, the rest of the entry: stored as its id, then its first ``n_params`` params.

    It cannot be ``owner`` (id ``owner_id``) itself; its own errors name it.
    """

    def read(text: str, parse) -> Sequence[float]:
        policy_id, params = parse(text)
        if policy_id == owner_id:
            raise Refused(f"the base of {owner} cannot itself be {owner}")
        return (policy_id, *params[:n_params])

    return Param(symbol, None, read, rest=True, domain=f"any other policy of the game than {owner}")


# The most games a run or duel plays with a reference-only seat: at a few seconds a game, about an hour.
MOST_REFERENCE_GAMES = 2_000

OPENSPIEL_MISSING = ("this policy needs OpenSpiel, which is not installed: pip install -e '.[openspiel]' "
                     "(the open-spiel package)")


def openspiel_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("pyspiel") is not None


# A search policy's simulations per decision: by default, and at the most.
DEFAULT_ISMCTS_SIMULATIONS = 64
MAX_ISMCTS_SIMULATIONS = 10_000


def search(name: str, policy_id: int, description: str, per: str, highest: int, default: int,
           *more: Param, fixed: tuple[float, ...] = ()) -> "PolicySpec":
    """A jitted search ``NAME[:N...]``: N samples (``per``: "samples per move") a decision, default
    ``default``, at most ``highest``, then the ``more`` parameters. Declared slow: a run plays it in small
    batches so that progress shows."""
    return PolicySpec(name, policy_id, description, params=(whole("N", per, 1, highest, default), *more),
                      fixed=fixed, slow=True)


def openspiel_search(name: str, policy_id: int, default: int = DEFAULT_ISMCTS_SIMULATIONS,
                     highest: int = MAX_ISMCTS_SIMULATIONS, sampled: str = "a fresh deal of the unseen cards",
                     until: str = "the round's end") -> "PolicySpec":
    """OpenSpiel's information-set Monte Carlo tree search (sim.openspiel.search) as a game's policy ``NAME[:N]``.

    ``N`` is its simulations per decision (``default`` when left out, at
    most ``highest``); the description says in the game's words what each
    simulation is played on (``sampled``) and how far (``until``: where the
    game's rooted state ends). Naming it without OpenSpiel installed says
    how to install it.
    """
    # One simulation only expands the root: OpenSpiel's search needs a second to visit a move and choose one.
    counted = whole("N", "simulations per decision", 2, highest, default)

    def read(text: str, parse) -> Sequence[float]:
        if not openspiel_installed():
            raise Refused(OPENSPIEL_MISSING)
        return counted.read(text, parse)

    return PolicySpec(
        name, policy_id,
        f"OpenSpiel's information-set Monte Carlo tree search: N simulations per decision, each on {sampled}, "
        f"one tree over what the seat knows, random play to {until}. Pure Python, played by the reference engine: "
        "hundreds of times a jitted search's cost.",
        params=(replace(counted, read=read),),
        reference_only=True,
        slow=True,
    )


@dataclass(frozen=True)
class PolicySpec:
    """One policy as a config names it.

    ``fixed`` are values stored after the parsed parameters; ``example``
    is shown when a required parameter is missing.
    """

    name: str
    policy_id: int
    description: str
    params: tuple[Param, ...] = ()
    fixed: tuple[float, ...] = ()
    example: str | None = None
    # A policy written in Python, not in the jitted core: a batch with such a seat is played by the
    # reference engine (sim.openspiel.reference), and no other policy may take it as its base.
    reference_only: bool = False
    slow: bool = False  # a search: a run plays it in small batches so that progress shows

    @property
    def syntax(self) -> str:
        """``lookahead[:N[:cabbages|win]]``: optional parameters in brackets, each inside the one before."""
        text, closing = self.name, ""
        for p in self.params:
            if p.default is None:
                text += f":{p.symbol}"
            else:
                text += f"[:{p.symbol}"
                closing += "]"
        return text + closing

    @property
    def listed(self) -> str:
        """The description, then each parameter's values and default (``N from 1 to 100,000, default 64``)."""
        if not self.params:
            return self.description
        return f"{self.description} Settings: {'; '.join(p.said for p in self.params)}."


class Policies:
    """A game's policies, declared once: parsing, seats, syntax and descriptions derive from them.

    ``n_params`` is the length of a seat's params row (the kernels' ``policy_params`` columns).
    ``decision_kinds`` (the game's ``enums.DECISION_KINDS``) and ``restricted_id`` declare its restricted
    policy (``sim.restricted``): a policy that makes some kinds of decision at random, never named in a config.
    """

    def __init__(self, specs: Sequence[PolicySpec], n_params: int, decision_kinds: Sequence[str] = (),
                 restricted_id: int | None = None):
        self.specs = {spec.name: spec for spec in specs}
        self.n_params = n_params
        self.decision_kinds = tuple(decision_kinds)
        self.restricted_id = restricted_id
        self.ids = {spec.name: spec.policy_id for spec in specs}
        self.syntax = {spec.name: spec.syntax for spec in specs}
        self.descriptions = {spec.name: spec.description for spec in specs}  # as a report names the seats
        self.listed = {spec.name: spec.listed for spec in specs}  # as lvsim games lists them, settings too
        self.reference_only_ids = frozenset(spec.policy_id for spec in specs if spec.reference_only)

    def needs_reference(self, policy_ids) -> bool:
        """Whether a seat of ``policy_ids`` plays a policy the jitted core does not have."""
        return any(int(i) in self.reference_only_ids for i in np.asarray(policy_ids).ravel())

    def parse(self, text: str, field: str = "policies.seats") -> tuple[int, np.ndarray]:
        """``"lookahead:64"`` -> (id, params). Raises ConfigError naming ``field``."""
        if not isinstance(text, str):
            raise ConfigError(field, f"must be a policy name, got {shown(text)}")
        name, *args = text.strip().split(":")
        if name not in self.specs:
            known = ", ".join(self.syntax[n] for n in sorted(self.syntax))
            raise ConfigError(field, f"unknown policy {shown(text)} (known: {known})")
        spec = self.specs[name]
        takes_rest = bool(spec.params) and spec.params[-1].rest
        if len(args) > len(spec.params) and not takes_rest:
            if not spec.params:
                raise ConfigError(field, f"{shown(text)}: {name} takes no parameters")
            raise ConfigError(field, f"{shown(text)}: expected {spec.syntax}")
        if len(args) < sum(p.default is None for p in spec.params):
            example = f", e.g. {spec.example!r}" if spec.example else ""
            raise ConfigError(field, f"{shown(text)}: expected {spec.syntax}{example}")
        values: list[float] = []
        for k, param in enumerate(spec.params):
            arg = (":".join(args[k:]) if param.rest else args[k]) if k < len(args) else param.default
            try:
                values += param.read(arg, lambda base: self._parse_base(base, field))
            except Refused as refused:
                raise ConfigError(field, f"{shown(text)}: {refused}") from None
        values += spec.fixed
        params = np.zeros(self.n_params, dtype=np.float64)
        params[: len(values)] = values
        return spec.policy_id, params

    def check_reference_games(self, policy_ids, games: int, field: str) -> None:
        """Refuse more than :data:`MOST_REFERENCE_GAMES` games when a seat plays a ``reference_only`` policy."""
        if self.needs_reference(policy_ids) and games > MOST_REFERENCE_GAMES:
            names = sorted(name for name, spec in self.specs.items() if spec.policy_id in
                           {int(i) for i in np.asarray(policy_ids).ravel()} and spec.reference_only)
            raise ConfigError(field, f"{games:,} games with {', '.join(names)} at the table: such a seat is played "
                                     f"by the reference engine, seconds a game, so at most {MOST_REFERENCE_GAMES:,} "
                                     f"games are played (bench/README.md, section ISMCTS, has the cost)")

    def _parse_base(self, text: str, field: str) -> tuple[int, np.ndarray]:
        policy_id, params = self.parse(text, field)
        if policy_id in self.reference_only_ids:
            raise Refused(f"{text.split(':')[0]} cannot be the base of another policy")
        return policy_id, params

    def parse_seats(self, seats: str | Sequence[str], players: int, field: str = "policies.seats"):
        """One name for every seat, or a list with one per seat -> (ids, params)."""
        return parse_seats(seats, players, self.parse, self.n_params, field)

    def exports(self):
        """What a game's policies module gives configs, the reference engine and tests:
        ``POLICY_IDS, POLICY_SYNTAX, POLICY_DESCRIPTIONS, parse_policy, parse_seats``."""
        return self.ids, self.syntax, self.descriptions, self.parse, self.parse_seats
