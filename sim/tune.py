"""Tuning the rules: the smallest change to a base config that meets a designer's targets.

A tune file sits beside the sweep files::

    base = "default.toml"                         # relative to this file
    [search]                                      # the knobs to vary and their domains
    "rules.tokens" = { faces = [-4, 3] }          # every face an integer in range
    "rules.golden_token[1]" = [4, 5, 6]           # explicit choices
    [targets]                                     # what a good game looks like
    elimination_rate = [0.40, 0.60]               # a range to land in
    mean_rounds = { near = 3.4 }                  # as close as possible
    skill_gap_greedy_vs_random = { min = 0.45 }
    [tune]
    players = [3, 4, 5]                           # every candidate is judged at each
    policies = ["expert"]                         # and under each policy at every seat
    budget = 60                                   # candidates to try
    games = 2000                                  # games per candidate, player count and policy, at first
    seed = 1

:func:`tune` searches with Optuna's TPE sampler (ask/tell, journal storage
in the tune's directory), every candidate played on the same deals (the
tune's seed: common random numbers, so candidates are compared on the same
games). The promising third of the candidates is played again with three
times the games, on the same deals, until ``finalists`` remain
(successive halving); the finalists and the base rules are then played on
a fresh seed, with more games until every target's 95% interval is
decided (or ``max_games``), so that a candidate that was merely lucky on
the search's deals is not the one recommended.

Candidates that meet every target are ranked by how little they change
the base rules (how many printed values differ, then by how much); the
others by their total shortfall from the targets, each scaled by its range.
Before the halving, the best candidates that meet the targets are
simplified: each changed value is put back towards the base's while the
targets stay met, since a sampler tends to change many values at once.

Every evaluation is a pure function of (rules, player count, policy,
games, seed) and is kept in the tune's ``state/`` directory as it
finishes; the sampler of each trial is seeded by the tune's seed and the
trial's number. A tune killed at any moment (Ctrl-C, ``kill -9``) and run
again with the same command continues where it stopped and ends with the
results an uninterrupted tune gives, on any number of threads or workers.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import re
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from sim.config import MAX_SEED, Config, config_from_mapping
from sim.errors import ConfigError, cut, shown
from sim.wording import knob_words, value_words
from sim.inputs import read_toml
from sim.runner import DEFAULT_OUT, IN_PROCESS, REPORTS_DIR, Cluster, _DefaultOut, default_out_dir, out_path

TUNE_FILE_KEYS = ("base", "search", "targets", "tune")
TUNE_KEYS = ("players", "policies", "budget", "games", "seed", "finalists", "max_games")
DOMAIN_KEYS = ("faces", "range", "choices")
TARGET_KEYS = ("min", "max", "near", "within", "scale", "relative")
# A skill-gap target stated against the fair share 1/players of each player count, and what it then bounds.
RELATIVE = {"above_fair": "the win share minus the fair share 1/players",
            "times_fair": "the win share times the players (1 is the fair share)"}
# Targets on these metrics read the estimate that is not biased upward by noise at small samples.
CORRECTED_COLUMNS = {"worst_seat_advantage": "worst_seat_advantage_corrected"}

DEFAULT_FINALISTS = 3
# Without max_games, the final replay of a finalist stops at this many times the search's games.
DEFAULT_MAX_GAMES_FACTOR = 27
# Successive halving keeps a third of the candidates and triples their games, on the same deals.
HALVING = 3
# The final replay multiplies the games by this until every target is decided.
FINAL_GROWTH = 4
MAX_BUDGET = 100_000
# A search proposing candidates it already tried stops after this many times the budget in trials.
MAX_TRIALS_FACTOR = 20
# The fresh seed of the final replay: far from the search's, the same for every tune of that seed.
FRESH_SEED_STEP = 1_000_000_007
# Summary values that describe the run rather than measure the game.
NOT_METRICS = ("game", "title", "players", "rounds", "games", "seed", "seconds", "games_per_second")
TIMING = ("seconds", "games_per_second")

STATE_DIR = "state"
JOURNAL_FILE = "journal.log"
EVALS_DIR = "evals"
DEFINITION_FILE = "definition.json"
LOCK_FILE = ".lock"
RESULT_FILE = "tune.json"
CANDIDATES_FILE = "candidates.parquet"
BEST_FILE = "best.toml"
REPORT_FILE = "tune.html"
BEST_RUN_DIR = "best"

_KEY = re.compile(r"^rules\.([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)$")


# --- the tune file ------------------------------------------------------------------------


@dataclass(frozen=True)
class Dimension:
    """One value the search sets: an integer leaf of a knob (``rules.tokens[2][1]``) or a knob's choice."""

    name: str  # as the search names it, e.g. "rules.tokens[2][1]"
    key: str  # the [search] key it comes from
    knob: str
    path: tuple[int, ...]
    base: Any
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] | None = None  # JSON texts of the values

    def values(self) -> list[Any]:
        if self.choices is not None:
            return [json.loads(c) for c in self.choices]
        return list(range(self.low, self.high + 1))


@dataclass(frozen=True)
class Target:
    """What a good game looks like on one metric: a range, a bound, or a value to be near.

    ``low``/``high`` bound the acceptable values (None: unbounded); a
    ``near`` target accepts ``near ± within``. ``scale`` turns a shortfall
    into ranges: a metric 0.05 below a range 0.20 wide falls 0.25 short.
    ``relative`` states a skill-gap target against the fair share of the
    player count (:data:`RELATIVE`): the bounds then apply to the win share
    minus ``1 / players`` or to the win share times ``players``.
    """

    metric: str
    low: float | None
    high: float | None
    scale: float
    near: float | None = None
    relative: str | None = None

    @property
    def column(self) -> str:
        """The summary column the target reads: the worst seat's advantage is read bias-corrected."""
        return CORRECTED_COLUMNS.get(self.metric, self.metric)

    @property
    def label(self) -> str:
        """The metric as every output names it: ``worst_seat_advantage (bias-corrected)``, ``… − 1/players``."""
        if self.relative == "above_fair":
            return f"{self.metric} \u2212 1/players"
        if self.relative == "times_fair":
            return f"{self.metric} \u00d7 players"
        if self.column != self.metric:
            return f"{self.metric} (bias-corrected)"
        return self.metric

    @property
    def spelled(self) -> str:
        if self.near is not None:
            return f"near {_g(self.near)} (± {_g((self.high - self.low) / 2)})"
        if self.low is not None and self.high is not None:
            return f"[{_g(self.low)}, {_g(self.high)}]"
        return f"at least {_g(self.low)}" if self.low is not None else f"at most {_g(self.high)}"

    def measure(self, row: Mapping[str, Any], players: int) -> tuple[float, float, float]:
        """The value the target judges and its 95% interval in an evaluation's row (nan when missing)."""
        x, lo, hi = (_nan(row.get(f"{self.column}{end}")) for end in ("", "_lo", "_hi"))
        if f"{self.column}_lo" not in row and self.column.endswith("_rate"):
            x, lo, hi = watched_value(row, self.column)  # a rate the summary gives no interval: Wilson's
        if self.relative == "above_fair":
            return x - 1 / players, lo - 1 / players, hi - 1 / players
        if self.relative == "times_fair":
            return x * players, lo * players, hi * players
        return x, lo, hi

    def judge(self, row: Mapping[str, Any], players: int) -> str:
        """The verdict on an evaluation's row. A metric whose interval the summary leaves undefined (a duel of
        too few deals to say) is undecided; a rate the summary gives no interval gets Wilson's over the games;
        any other metric without one is taken as measured."""
        x, lo, hi = self.measure(row, players)
        if f"{self.column}_lo" in row and (_missing(lo) or _missing(hi)):
            return "undecided"
        return self.verdict(x, lo, hi)

    def shortfall(self, x: float) -> float:
        """How far ``x`` falls outside the acceptable values, in units of ``scale``; inf when unknown."""
        if x is None or math.isnan(x):
            return math.inf
        below = self.low - x if self.low is not None and x < self.low else 0.0
        above = x - self.high if self.high is not None and x > self.high else 0.0
        return (below + above) / self.scale

    def distance(self, x: float) -> float:
        """How far from ``near`` (0 without one): ranks candidates that all meet the targets."""
        if self.near is None or x is None or math.isnan(x):
            return 0.0
        return abs(x - self.near) / self.scale

    def verdict(self, x: float, lo: float, hi: float) -> str:
        """``met`` if the whole 95% interval is acceptable, ``missed`` if none of it is, else ``undecided``."""
        if _missing(lo) or _missing(hi):
            if _missing(x):
                return "undecided"
            lo = hi = x  # a metric with no interval is taken as measured
        inside_low = self.low is None or lo >= self.low
        inside_high = self.high is None or hi <= self.high
        if inside_low and inside_high:
            return "met"
        if (self.low is not None and hi < self.low) or (self.high is not None and lo > self.high):
            return "missed"
        return "undecided"

    def as_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "low": self.low, "high": self.high, "near": self.near, "scale": self.scale,
                "relative": self.relative, "column": self.column, "label": self.label, "spelled": self.spelled}


@dataclass(frozen=True)
class Tune:
    """A validated tune: the base config, what to search, the targets, how to judge candidates."""

    name: str
    path: Path
    base_path: Path
    base: Config
    dims: tuple[Dimension, ...]
    targets: tuple[Target, ...]
    players: tuple[int, ...]
    policies: tuple[str, ...]
    budget: int
    games: int
    seed: int
    finalists: int
    max_games: int

    @property
    def game(self):
        return self.base.game_spec

    @property
    def settings(self) -> list[tuple[int, str]]:
        """Every (player count, policy) a candidate is judged at."""
        return [(p, policy) for p in self.players for policy in self.policies]

    @property
    def final_seed(self) -> int:
        return (self.seed + FRESH_SEED_STEP) % (MAX_SEED + 1)

    # What the time estimates (``sim.estimates``) ask of a tune, so that module needs none of this one.
    halving = HALVING
    final_growth = FINAL_GROWTH

    def evaluate(self, values: Mapping[str, Any], players: int, policy: str, games: int, seed: int):
        return evaluate(self, values, players, policy, games, seed)

    def domain_size(self) -> int:
        return domain_size(self)

    def report_settings(self) -> list[tuple[int, str]]:
        return report_settings(self)

    @staticmethod
    def setting_name(players: int, policy: str) -> str:
        return _setting(players, policy)

    def base_values(self) -> dict[str, Any]:
        return {d.name: d.base for d in self.dims}

    def rules_table(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The base config's ``[rules]`` with ``values`` (dimension name -> value) put in."""
        rules = copy.deepcopy(self.base.rules.to_dict())
        for d in self.dims:
            if d.name in values:
                _set_path(rules, d.knob, d.path, values[d.name])
        return rules

    def config(self, values: Mapping[str, Any], players: int | None = None, policy: str | None = None,
               games: int | None = None, seed: int | None = None, name: str | None = None) -> Config:
        """The base config with ``values`` put in, at ``players`` with ``policy`` at every seat."""
        data = self.base.to_dict()
        data["rules"] = self.rules_table(values)
        if players is not None:
            data["rules"]["players"] = players
            if data["rules"].get("set_aside") not in (None, "auto") and players != self.base.players:
                data["rules"]["set_aside"] = "auto"
        if policy is not None:
            data["policies"]["seats"] = policy
        run = data["run"]
        if games is not None:
            run.update(games=games, skill_gap_games=0, strength_games=0, strength_lookahead_games=0)
        if seed is not None:
            run["seed"] = seed
        return config_from_mapping(data, name=name or self.base.name)

    def changes(self, values: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Each searched knob (or token) whose printed values differ from the base's: what, from, to."""
        base_rules = self.base.rules.to_dict()
        rules = self.rules_table(values)
        out = []
        for knob in dict.fromkeys(d.knob for d in self.dims):
            was, now = base_rules[knob], rules[knob]
            if _is_list_of_lists(was) and _is_list_of_lists(now) and len(was) == len(now):
                for i, (a, b) in enumerate(zip(was, now)):
                    if a != b:
                        out.append(_change(f"{knob}[{i}]", a, b))
            elif was != now:
                out.append(_change(knob, was, now))
        return out

    def change_size(self, values: Mapping[str, Any]) -> tuple[int, float]:
        """(printed values that differ from the base's, by how much in all)."""
        changes = self.changes(values)
        return sum(c["values"] for c in changes), sum(c["amount"] for c in changes)

    def definition(self) -> dict[str, Any]:
        """What decides the tune's results: a tune directory is resumed only by a tune with the same."""
        base = self.base.to_dict()
        base["run"].pop("threads", None)
        return json.loads(json.dumps({
            "name": self.name,
            "base": base,
            "search": [{"name": d.name, "low": d.low, "high": d.high, "choices": d.choices} for d in self.dims],
            "targets": [t.as_dict() for t in self.targets],
            "players": list(self.players), "policies": list(self.policies), "budget": self.budget,
            "games": self.games, "seed": self.seed, "finalists": self.finalists, "max_games": self.max_games,
        }))


def _change(label: str, was: Any, now: Any) -> dict[str, Any]:
    a, b = _leaves(was), _leaves(now)
    n = max(len(a), len(b))
    values = sum(1 for i in range(n) if i >= len(a) or i >= len(b) or a[i] != b[i])
    amount = sum(abs(x - y) if _is_number(x) and _is_number(y) else 1
                 for x, y in zip(a, b) if x != y) + abs(len(a) - len(b))
    return {"what": label, "from": was, "to": now, "values": values, "amount": amount}


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _is_list_of_lists(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, list) for v in value)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _g(x: float) -> str:
    return f"{x:g}"


def _set_path(rules: dict[str, Any], knob: str, path: Sequence[int], value: Any) -> None:
    if not path:
        rules[knob] = copy.deepcopy(value)
        return
    holder = rules[knob]
    for i in path[:-1]:
        holder = holder[i]
    holder[path[-1]] = copy.deepcopy(value)


def load_tune(path: str | os.PathLike, *, budget: int | None = None, games: int | None = None,
              seed: int | None = None, threads: int | None = None) -> Tune:
    """Read and check the tune file at ``path``; the options override its ``[tune]`` values.

    Raises :class:`~sim.errors.ConfigError` with one line naming the key.
    Nothing is played.
    """
    path = Path(path)
    data = read_toml(path, lambda problem: ConfigError(str(path), problem), what="tune file")
    return tune_from_mapping(data, base_dir=path.parent, name=path.stem, path=path, budget=budget, games=games,
                             seed=seed, threads=threads)


def tune_from_mapping(data: Mapping[str, Any], *, base_dir: Path = Path("."), name: str = "tune",
                      path: Path | None = None, budget: int | None = None, games: int | None = None,
                      seed: int | None = None, threads: int | None = None) -> Tune:
    for key in data:
        if key not in TUNE_FILE_KEYS:
            what = "table" if isinstance(data[key], dict) else "key"
            raise ConfigError(key, f"unknown {what} (known: {', '.join(TUNE_FILE_KEYS)})")
    if "base" not in data:
        raise ConfigError("base", "missing (the config file the tune starts from, relative to the tune file)")
    if not isinstance(data["base"], str):
        raise ConfigError("base", f"must be the path of a config file, got {shown(data['base'])}")
    base_path = base_dir / data["base"]
    base_data = read_toml(base_path, lambda problem: ConfigError("base", f"{base_path}: {problem}"))
    try:
        base = config_from_mapping(base_data, name=name)
    except ConfigError as err:
        raise ConfigError(f"base {data['base']}", str(err)) from None
    if threads is not None:
        base = replace(base, threads=threads)
    game = base.game_spec

    settings = _tune_table(data.get("tune", {}), base, budget=budget, games=games, seed=seed)
    for key in ("search", "targets"):
        if key not in data:
            raise ConfigError(key, f"missing (a [{key}] table: " + (
                "the knobs to vary and their domains)" if key == "search" else "the metrics and what they should be)"))
        if not isinstance(data[key], dict):
            raise ConfigError(key, f"must be a table, got {shown(data[key])}")
    dims = _search(data["search"], base, game)
    tune = Tune(name=name, path=path or base_dir / f"{name}.toml", base_path=base_path, base=base, dims=dims,
                targets=(), **settings)
    for players in tune.players:  # the game takes each player count and policy
        for policy in tune.policies:
            try:
                tune.config({}, players, policy, games=1, seed=tune.seed)
            except ConfigError as err:
                where = "tune.players" if err.field.startswith("rules.") else "tune.policies"
                raise ConfigError(where, f"at {players} players with {shown(policy)}: {err}") from None
    _check_domains(tune)
    targets = _targets(data["targets"], tune)
    return replace(tune, targets=targets)


def _tune_table(table: Any, base: Config, *, budget, games, seed) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise ConfigError("tune", f"must be a table, got {shown(table)}")
    for key in table:
        if key not in TUNE_KEYS:
            raise ConfigError(f"tune.{key}", f"unknown key (known: {', '.join(TUNE_KEYS)})")
    game = base.game_spec
    players = table.get("players", [base.players])
    if isinstance(players, int) and not isinstance(players, bool):
        players = [players]
    if not isinstance(players, list) or not players:
        raise ConfigError("tune.players", f"must be a non-empty list of player counts, got {shown(players)}")
    for p in players:
        _int("tune.players", p, game.min_players, game.max_players)
    if len(set(players)) != len(players):
        raise ConfigError("tune.players", f"lists a player count more than once: {shown(players)}")
    policies = table.get("policies", [base.seat_policies[0]] if len(set(base.seat_policies)) == 1 else None)
    if isinstance(policies, str):
        policies = [policies]
    if not isinstance(policies, list) or not policies or not all(isinstance(p, str) for p in policies):
        raise ConfigError("tune.policies", f"must be a non-empty list of policy names, got {shown(policies)}")
    if len(set(policies)) != len(policies):
        raise ConfigError("tune.policies", f"lists a policy more than once: {shown(policies)}")
    # A value given on the command line is named by its option, not by the file's key.
    field = {key: f"tune.{key}" if value is None else f"--{key}"
             for key, value in (("budget", budget), ("games", games), ("seed", seed))}
    budget = table.get("budget", 100) if budget is None else budget
    _int(field["budget"], budget, 1, MAX_BUDGET)
    games = table.get("games", 2000) if games is None else games
    _int(field["games"], games, 2, 10**9)
    seed = table.get("seed", base.seed) if seed is None else seed
    _int(field["seed"], seed, 0, MAX_SEED)
    finalists = table.get("finalists", DEFAULT_FINALISTS)
    _int("tune.finalists", finalists, 1, MAX_BUDGET)
    max_games = table.get("max_games", DEFAULT_MAX_GAMES_FACTOR * games)
    if field["games"] == "--games" and _is_int(max_games) and max_games < games:
        raise ConfigError("tune.max_games", f"{max_games:,} is fewer than the {games:,} games per candidate of --games; "
                                            "give fewer --games or raise tune.max_games")
    _int("tune.max_games", max_games, games, 10**10)
    return {"players": tuple(players), "policies": tuple(policies), "budget": budget, "games": games, "seed": seed,
            "finalists": finalists, "max_games": max_games}


def _int(name: str, value: Any, low: int, high: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(name, f"must be an integer, got {shown(value)}")
    if not low <= value <= high:
        raise ConfigError(name, f"must be between {low:,} and {high:,}, got {value:,}")


def _search_keys(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"rules": {"tokens": {...}}}`` and ``{"rules.tokens": {...}}`` both as ``{"rules.tokens": {...}}``."""
    out = {}
    for key, value in table.items():
        full = f"{prefix}{key}"
        if isinstance(value, dict) and value and not set(value) & set(DOMAIN_KEYS) and full in ("rules",):
            out.update(_search_keys(value, f"{full}."))
        else:
            out[full] = value
    return out


def _search(table: Mapping[str, Any], base: Config, game) -> tuple[Dimension, ...]:
    entries = _search_keys(table)
    if not entries:
        raise ConfigError("search", "is empty: give the knobs to vary, e.g. \"rules.tokens\" = { faces = [-4, 3] }")
    knobs = tuple(k for k in game.Rules.__dataclass_fields__ if k != "players")
    base_rules = base.rules.to_dict()
    dims: list[Dimension] = []
    taken: dict[tuple, str] = {}
    for key, domain in entries.items():
        where = f'search."{key}"'
        match = _KEY.match(key)
        if match is None:
            raise ConfigError(where, f"not a knob of {game.title}: search keys are rules.<knob>, optionally with "
                                     f"[index] (knobs: {', '.join(knobs)})")
        knob = match.group(1)
        path = tuple(int(i) for i in re.findall(r"\[(\d+)\]", match.group(2)))
        if knob == "players":
            raise ConfigError(where, "cannot be searched: every candidate is judged at each of tune.players")
        if knob not in knobs:
            raise ConfigError(where, f"not a knob of {game.title} (knobs: {', '.join(knobs)})")
        value = base_rules[knob]
        for depth, i in enumerate(path):
            if not isinstance(value, list) or i >= len(value):
                size = f"has {len(value)} entries" if isinstance(value, list) else "is not a list"
                raise ConfigError(where, f"no such entry: rules.{knob}{''.join(f'[{j}]' for j in path[:depth])} "
                                         f"{size} in the base config")
            value = value[i]
        for (other_knob, other_path), other_key in taken.items():
            if other_knob == knob and (other_path[:len(path)] == path or path[:len(other_path)] == other_path):
                raise ConfigError(where, f"overlaps {other_key}: search each value once")
        taken[(knob, path)] = f'"{key}"'
        dims.extend(_dimensions(where, key, knob, path, value, domain))
    return tuple(dims)


def _dimensions(where: str, key: str, knob: str, path: tuple[int, ...], base_value: Any,
                domain: Any) -> list[Dimension]:
    if isinstance(domain, list):
        domain = {"choices": domain}
    if not isinstance(domain, dict):
        raise ConfigError(where, f"must be a list of values to try or a table such as {{ faces = [-4, 3] }}, "
                                 f"got {shown(domain)}")
    unknown = [k for k in domain if k not in DOMAIN_KEYS]
    if unknown or len(domain) != 1:
        raise ConfigError(where, f"give one of {', '.join(DOMAIN_KEYS)}, got {shown(sorted(domain))}")
    (kind, spec), = domain.items()
    if kind == "choices":
        if not isinstance(spec, list) or not spec:
            raise ConfigError(where, f"choices: must be a non-empty list of values, got {shown(spec)} (an empty "
                                     "domain)")
        texts = [json.dumps(v, sort_keys=True) for v in spec]
        if len(set(texts)) != len(texts):
            raise ConfigError(where, "choices: lists a value more than once")
        return [Dimension(key, key, knob, path, base_value, choices=tuple(texts))]
    if (not isinstance(spec, list) or len(spec) != 2 or not all(_is_int(x) for x in spec)):
        raise ConfigError(where, f"{kind}: must be [lowest, highest], two integers, got {shown(spec)}")
    low, high = spec
    if low > high:
        raise ConfigError(where, f"{kind} = [{low}, {high}] is empty: the lowest is above the highest")
    leaves = _integer_leaves(base_value)
    if leaves is None:
        raise ConfigError(where, f"{kind}: the base value {cut(json.dumps(base_value))} is not made of integers; "
                                 "give its choices instead (a list of values)")
    return [Dimension(key + "".join(f"[{i}]" for i in sub), key, knob, path + sub, v, low=low, high=high)
            for sub, v in leaves]


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _integer_leaves(value: Any, prefix: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], int]] | None:
    if _is_int(value):
        return [(prefix, value)]
    if isinstance(value, list) and value:
        out = []
        for i, v in enumerate(value):
            sub = _integer_leaves(v, prefix + (i,))
            if sub is None:
                return None
            out.extend(sub)
        return out
    return None


def _check_domains(tune: Tune) -> None:
    """Each end of each domain makes rules the game takes at every player count, else name the key."""
    for d in tune.dims:
        ends = d.values() if d.choices is not None else [d.low, d.high]
        for v in ends:
            for players in tune.players:
                try:
                    tune.config({d.name: v}, players, tune.policies[0], games=1, seed=tune.seed)
                except ConfigError as err:
                    raise ConfigError(f'search."{d.key}"', f"{d.name} = {cut(json.dumps(v))} is impossible at "
                                                           f"{players} players: {err}") from None


def metric_names(tune: Tune) -> list[str]:
    """The metrics a target may name: every summary metric the game gives at each player count, and its skill gap."""
    from analysis.sweep import metric_columns

    names = None
    for players in tune.players:
        columns = metric_columns(tune.config({}, players, tune.policies[0], games=1, seed=tune.seed))
        ok = [c for c in columns if c not in NOT_METRICS and not c.endswith(("_lo", "_hi"))
              and not c.startswith("policy_")]
        names = ok if names is None else [c for c in names if c in ok]
    names += [f"skill_gap_{d.name}" for d in tune.game.skill_gap_duels]
    return names


def _targets(table: Mapping[str, Any], tune: Tune) -> tuple[Target, ...]:
    if not table:
        raise ConfigError("targets", "is empty: give the metrics and what they should be, e.g. "
                                     "elimination_rate = [0.40, 0.60]")
    known = metric_names(tune)
    out = []
    for metric, spec in table.items():
        where = f"targets.{metric}"
        if metric not in known:
            import difflib

            close = difflib.get_close_matches(metric, known, n=3, cutoff=0.6)
            hint = f"did you mean {' or '.join(close)}? " if close else ""
            raise ConfigError(where, f"unknown metric ({hint}{tune.game.title} has {len(known)}, e.g. "
                                     f"{', '.join(known[:6])}; `lvsim tune --metrics` lists them)")
        out.append(_target(where, metric, spec))
    return tuple(out)


def _number(where: str, x: Any) -> float:
    if not _is_number(x) or not math.isfinite(x):
        raise ConfigError(where, f"must be a number, got {shown(x)}")
    return float(x)


def _target(where: str, metric: str, spec: Any) -> Target:
    if isinstance(spec, list):
        if len(spec) != 2:
            raise ConfigError(where, f"a range is [lowest, highest], got {shown(spec)}")
        low, high = (_number(where, x) for x in spec)
        if low > high:
            raise ConfigError(where, f"[{_g(low)}, {_g(high)}] is an empty range: the lowest is above the highest")
        scale = high - low
        return Target(metric, low, high, scale if scale > 0 else _default_scale(low))
    if not isinstance(spec, dict):
        raise ConfigError(where, f"must be a range [lowest, highest] or a table with min, max or near, got "
                                 f"{shown(spec)}")
    for key in spec:
        if key not in TARGET_KEYS:
            raise ConfigError(f"{where}.{key}", f"unknown key (known: {', '.join(TARGET_KEYS)})")
    relative = spec.get("relative")
    if relative is not None:
        if not metric.startswith("skill_gap_"):
            raise ConfigError(f"{where}.relative", "only a skill-gap target (skill_gap_...) is stated relative to "
                                                   "the fair share, which is one seat's 1/players")
        if relative not in RELATIVE:
            raise ConfigError(f"{where}.relative", "must be " + " or ".join(
                f'"{k}" ({v})' for k, v in RELATIVE.items()) + f", got {shown(relative)}")
    values = {k: _number(f"{where}.{k}", v) for k, v in spec.items() if k != "relative"}
    if "near" in values:
        if "min" in values or "max" in values:
            raise ConfigError(where, "give near, or min and/or max, not both")
        near = values["near"]
        within = values.get("within", _default_scale(near) / 2)
        if within <= 0:
            raise ConfigError(f"{where}.within", f"must be above 0, got {_g(within)}")
        return Target(metric, near - within, near + within, values.get("scale", within), near=near,
                      relative=relative)
    if "within" in values:
        raise ConfigError(f"{where}.within", "only applies to a near target")
    low, high = values.get("min"), values.get("max")
    if low is None and high is None:
        raise ConfigError(where, "give min, max or near")
    if low is not None and high is not None and low > high:
        raise ConfigError(where, f"min {_g(low)} is above max {_g(high)}: no value can meet it")
    scale = values.get("scale", high - low if low is not None and high is not None and high > low
                       else _default_scale(low if low is not None else high))
    if scale <= 0:
        raise ConfigError(f"{where}.scale", f"must be above 0, got {_g(scale)}")
    return Target(metric, low, high, scale, relative=relative)


def _default_scale(x: float) -> float:
    """A tenth of the value, or 0.01 near 0: what a shortfall from a bare bound is measured in."""
    return max(abs(x) / 10, 0.01)


# --- evaluating candidates -----------------------------------------------------------------


def evaluate(tune: Tune, values: Mapping[str, Any], players: int, policy: str, games: int, seed: int,
             cluster: Cluster = IN_PROCESS) -> dict[str, Any]:
    """The summary metrics of ``games`` games of the candidate ``values`` at ``players`` with ``policy`` everywhere.

    A pure function of its arguments (the cluster and threads aside): the
    row of plain values the candidates table holds, without timings.
    """
    from analysis.sweep import summary_row
    from sim.runner import GamesPlayed

    config = tune.config(values, players, policy, games=games, seed=seed)
    with GamesPlayed(config) as played:
        played.play(0, games, cluster)
    summary = played.summary()
    duels = skill_duels(tune)
    if duels:
        summary["skill_gap"] = {d.name: _duel(tune, d, config, games) for d in duels}
    row = {k: v for k, v in summary_row(summary).items() if k not in TIMING}
    return json.loads(json.dumps(row, default=_plain))


def skill_duels(tune: Tune) -> list:
    """The game's skill-gap duels that a target names: only those are played."""
    wanted = {t.metric.removeprefix("skill_gap_") for t in tune.targets if t.metric.startswith("skill_gap_")}
    return [d for d in tune.game.skill_gap_duels if d.name in wanted]


def _duel(tune: Tune, d, config: Config, games: int) -> dict[str, Any]:
    """One skill-gap duel on about ``games`` games: ``games / players`` deals, each played from every seat."""
    from sim.duel import duel

    players = config.players
    result = duel(tune.game, config.rules, [d.policy] + [d.against] * (players - 1), max(2, games // players),
                  config.seed, threads=config.threads, field="skill_gap")
    entry = result["policies"][d.policy]
    return {"policy": d.policy, "against": d.against, "games": result["games"],
            **{k: entry[k] for k in ("win_share", "win_share_ci", "fair_share")}}


def _plain(x: Any) -> Any:
    import numpy as np

    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    raise TypeError(f"cannot store {x!r}")


@dataclass
class Judged:
    """A candidate's evaluations at one number of games and one seed, and how they meet the targets."""

    trial: int
    values: dict[str, Any]
    games: int
    seed: int
    stage: str
    rows: dict[tuple[int, str], dict[str, Any]] = field(default_factory=dict)
    invalid: str | None = None  # why the game refuses these rules, if it does

    def shortfall(self, tune: Tune) -> float:
        if self.invalid is not None:
            return math.inf
        return sum(t.shortfall(t.measure(row, p)[0]) for (p, _), row in self.rows.items() for t in tune.targets)

    def distance(self, tune: Tune) -> float:
        return sum(t.distance(t.measure(row, p)[0]) for (p, _), row in self.rows.items() for t in tune.targets)

    def met(self, tune: Tune) -> bool:
        return self.shortfall(tune) == 0

    def verdicts(self, tune: Tune) -> dict[str, dict[str, str]]:
        """Per target, per setting ("4 players, expert"): met, missed or undecided on the 95% interval."""
        out = {}
        for t in tune.targets:
            out[t.metric] = {
                _setting(p, pol): t.judge(row, p)
                for (p, pol), row in self.rows.items()
            }
        return out

    def verdict(self, tune: Tune) -> dict[str, str]:
        """Per target over every setting: missed if missed anywhere, met if met everywhere, else undecided."""
        out = {}
        for metric, by_setting in self.verdicts(tune).items():
            seen = set(by_setting.values())
            out[metric] = "missed" if "missed" in seen else ("met" if seen == {"met"} else "undecided")
        return out

    def rank_key(self, tune: Tune, decided: bool = False) -> tuple:
        """Targets met first, by the smallest change; then the least shortfall. ``decided``: met on the intervals."""
        if self.invalid is not None:
            return (2, self.trial)
        met = (set(self.verdict(tune).values()) == {"met"}) if decided else self.met(tune)
        n, amount = tune.change_size(self.values)
        if met:
            return (0, n, amount, self.distance(tune), self.trial)
        return (1, self.shortfall(tune), n, amount, self.trial)


def _nan(x: Any) -> float:
    return math.nan if x is None else float(x)


def _setting(players: int, policy: str) -> str:
    return f"{players} players, {policy}"


def search_score(tune: Tune, judged: Judged) -> float:
    """What the sampler minimises: the rank key as one number (met: the change; not met: 1,000 + shortfall)."""
    if judged.invalid is not None:
        return 1e12
    if judged.met(tune):
        n, amount = tune.change_size(judged.values)
        return n + amount / 10_000
    return 1_000 + min(judged.shortfall(tune), 1e9)


class _Evaluations:
    """Every evaluation of the tune so far, one JSON file each, written as it finishes."""

    def __init__(self, tune: Tune, directory: Path, cluster: Cluster, on_play=None):
        self.tune, self.dir, self.cluster = tune, directory, cluster
        self.dir.mkdir(parents=True, exist_ok=True)
        self.on_play = on_play
        self.played_games = 0
        self.reused = 0

    def judge(self, trial: int, values: Mapping[str, Any], games: int, seed: int, stage: str) -> Judged:
        judged = Judged(trial, dict(values), games, seed, stage)
        try:
            for players, policy in self.tune.settings:
                self.tune.config(values, players, policy, games=games, seed=seed)
        except ConfigError as err:
            judged.invalid = str(err)
            return judged
        for players, policy in self.tune.settings:
            judged.rows[(players, policy)] = self.row(values, players, policy, games, seed)
        return judged

    def row(self, values: Mapping[str, Any], players: int, policy: str, games: int, seed: int) -> dict[str, Any]:
        rules = self.tune.rules_table(values)
        key = json.dumps({"rules": rules, "players": players, "policy": policy, "games": games, "seed": seed},
                         sort_keys=True)
        path = self.dir / f"{hashlib.sha256(key.encode()).hexdigest()[:24]}.json"
        if path.is_file():
            try:
                stored = json.loads(path.read_text(encoding="utf-8"))
                if stored["key"] == key:
                    self.reused += 1
                    return stored["row"]
            except (OSError, ValueError, KeyError):
                pass  # a file a killed tune could not finish: play it again
        row = evaluate(self.tune, values, players, policy, games, seed, self.cluster)
        self.played_games += games
        _write_atomically(path, json.dumps({"key": key, "row": row}))
        if self.on_play is not None:
            self.on_play(games)
        return row


# --- the search ------------------------------------------------------------------------------


class _NoLock:
    """The journal's lock: the tune directory is locked as a whole (one tune at a time), so none is needed here."""

    def acquire(self) -> bool:
        return True

    def release(self) -> None:
        pass


def _study(tune: Tune, state: Path):
    import optuna
    from optuna.storages.journal import JournalFileBackend, JournalStorage
    from optuna.storages.journal._file import BaseJournalFileLock

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    lock = type("DirectoryLock", (_NoLock, BaseJournalFileLock), {})()
    storage = JournalStorage(JournalFileBackend(str(state / JOURNAL_FILE), lock_obj=lock))
    return optuna.create_study(study_name=tune.name, storage=storage, direction="minimize",
                               sampler=_sampler(tune, 0, 0), load_if_exists=True)


def _sampler(tune: Tune, trial: int, dim: int):
    """TPE seeded by the tune's seed, the trial and the dimension: each value a pure function of the trials before."""
    import warnings

    import optuna

    digest = hashlib.sha256(f"{tune.seed}/{trial}/{dim}".encode()).digest()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return optuna.samplers.TPESampler(seed=int.from_bytes(digest[:4], "little"),
                                          n_startup_trials=min(10, max(3, tune.budget // 4)))


def _suggest(study, trial, tune: Tune) -> dict[str, Any]:
    """The trial's values: those already stored (a resumed trial) as they are, the rest sampled."""
    values = {}
    for i, d in enumerate(tune.dims):
        study.sampler = _sampler(tune, trial.number, i)
        if d.choices is not None:
            values[d.name] = json.loads(trial.suggest_categorical(d.name, list(d.choices)))
        else:
            values[d.name] = trial.suggest_int(d.name, d.low, d.high)
    return values


def _search_phase(tune: Tune, study, evals: _Evaluations, bar) -> list[Judged]:
    """Ask, play and tell until the budget of trials is spent; trial 0 is the base rules."""
    import optuna
    from optuna.trial import TrialState

    judged: list[Judged] = []
    base = {d.name: (json.dumps(d.base, sort_keys=True) if d.choices is not None else d.base) for d in tune.dims}
    in_domain = all(base[d.name] in d.choices if d.choices is not None else d.low <= d.base <= d.high
                    for d in tune.dims)
    if in_domain and not study.get_trials(deepcopy=False):
        study.enqueue_trial(base)  # the first candidate is the base rules: the sampler starts from them
    # The budget counts distinct candidates: a sampler that proposes one again is told its result again
    # (played once, kept), up to a limit on trials for a domain smaller than the budget.
    wanted = min(tune.budget, domain_size(tune))
    seen: set[str] = set()
    number = 0
    while len(seen) < wanted and number < MAX_TRIALS_FACTOR * tune.budget:
        trials = study.get_trials(deepcopy=False)
        if number < len(trials):
            frozen = trials[number]
            if frozen.state == TrialState.COMPLETE:
                values = _values_of(tune, frozen.params)
                result = evals.judge(number, values, tune.games, tune.seed, "search")
                judged.append(result)
                _bar_step(bar, tune, judged, seen)
                number += 1
                continue
            if frozen.state == TrialState.RUNNING:
                trial = optuna.trial.Trial(study, frozen._trial_id)  # asked, not told: a tune stopped here
            else:
                trial = study.ask()  # the base rules, enqueued
        else:
            trial = study.ask()
        values = _suggest(study, trial, tune)
        result = evals.judge(trial.number, values, tune.games, tune.seed, "search")
        study.tell(trial, search_score(tune, result))
        judged.append(result)
        _bar_step(bar, tune, judged, seen)
        number += 1
    return judged


def domain_size(tune: Tune) -> int:
    """How many distinct candidates the search domain holds."""
    return math.prod(len(d.choices) if d.choices is not None else d.high - d.low + 1 for d in tune.dims)


def _values_of(tune: Tune, params: Mapping[str, Any]) -> dict[str, Any]:
    return {d.name: json.loads(params[d.name]) if d.choices is not None else params[d.name] for d in tune.dims}


def _bar_step(bar, tune: Tune, judged: list[Judged], seen: set[str]) -> None:
    key = json.dumps(judged[-1].values, sort_keys=True)
    if key in seen:
        return
    seen.add(key)
    if bar is None:
        return
    best = min(judged, key=lambda j: j.rank_key(tune))
    bar.set_postfix_str(f"best #{best.trial}: {describe(tune, best.values, short=True)}", refresh=False)
    bar.update(1)


def _distinct(judged: Iterable[Judged]) -> list[Judged]:
    seen, out = set(), []
    for j in judged:
        key = json.dumps(j.values, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(j)
    return out


def _simplify(tune: Tune, ranked: list[Judged], evals: _Evaluations, first_trial: int, bar) -> list[Judged]:
    """The best candidates meeting the targets, their changed values put back towards the base's while they still do.

    A sampler lands on candidates that meet the targets by changing many
    values at once; a designer wants to reprint as few as possible. For
    each of the ``finalists`` best such candidates, each changed value is
    put back to the base's (or, an integer, one step towards it) and kept
    there if the targets are still met on the same deals, until no value
    can move. Deterministic: the values are tried in the search's order.
    """
    known = {json.dumps(j.values, sort_keys=True): j for j in ranked}
    out: list[Judged] = []
    trial = first_trial
    for current in [j for j in ranked if j.met(tune)][:tune.finalists]:
        moved = True
        while moved:
            moved = False
            for d in tune.dims:
                value = current.values[d.name]
                if value == d.base:
                    continue
                tries = [d.base]
                if d.choices is None and abs(value - d.base) > 1:
                    tries.append(value + (1 if d.base > value else -1))
                for v in tries:
                    values = {**current.values, d.name: v}
                    key = json.dumps(values, sort_keys=True)
                    if key not in known:
                        known[key] = evals.judge(trial, values, tune.games, tune.seed, "simplify")
                        out.append(known[key])
                        trial += 1
                        if bar is not None:
                            bar.update(1)
                    if known[key].invalid is None and known[key].met(tune):
                        current, moved = known[key], True
                        break
                if moved:
                    break
    return out


def _halving(tune: Tune, ranked: list[Judged], evals: _Evaluations, bar) -> tuple[list[Judged], list[Judged]]:
    """Keep the best third, triple their games on the same deals, until ``finalists`` remain; every rung's results."""
    rungs: list[Judged] = []
    games = tune.games
    while len(ranked) > tune.finalists and games * HALVING <= tune.max_games:
        keep = max(tune.finalists, math.ceil(len(ranked) / HALVING))
        games *= HALVING
        promoted = [evals.judge(j.trial, j.values, games, tune.seed, f"games x{games // tune.games}")
                    for j in ranked[:keep]]
        if bar is not None:
            bar.update(len(promoted))
        rungs += promoted
        ranked = sorted(promoted, key=lambda j: j.rank_key(tune))
    return ranked[:tune.finalists], rungs


def _final(tune: Tune, candidates: list[Judged], evals: _Evaluations, bar) -> list[Judged]:
    """Each candidate on the fresh seed, its games growing until every target is decided or ``max_games``."""
    out = []
    for c in candidates:
        games = max(c.games, tune.games)
        while True:
            judged = evals.judge(c.trial, c.values, games, tune.final_seed, "final")
            undecided = "undecided" in judged.verdict(tune).values()
            if not undecided or games >= tune.max_games:
                break
            games = min(tune.max_games, games * FINAL_GROWTH)
        out.append(judged)
        if bar is not None:
            bar.update(1)
    return out


# --- what the tune says ------------------------------------------------------------------------


def describe(tune: Tune, values: Mapping[str, Any], short: bool = False) -> str:
    """The change in words: ``change tokens[2] from [0, -3] to [0, -2]``, or ``keep the base rules``."""
    changes = tune.changes(values)
    if not changes:
        return "base rules" if short else "keep the base rules"
    parts = [f"{_what(c['what'])} {_spell(c['from'])}→{_spell(c['to'])}" if short
             else f"{_what(c['what'])} from {_spell(c['from'])} to {_spell(c['to'])}" for c in changes]
    return ", ".join(parts) if short else "change " + ", ".join(parts)


def all_met(tune: Tune, judged: Judged) -> bool:
    """Every target met at every setting on the 95% interval: the only case in which the tune says "meet"."""
    return set(judged.verdict(tune).values()) == {"met"}


def shortfall_words(tune: Tune, judged: Judged) -> str:
    """Which targets are missed or undecided, and where: ``elimination_rate missed (3 players, greedy), …``.

    ``every target met`` when none is.
    """
    verdicts = judged.verdicts(tune)
    parts = []
    for t in tune.targets:
        by_setting = verdicts[t.metric]
        for word in ("missed", "undecided"):
            where = [s for s, v in by_setting.items() if v == word]
            if where:
                places = "every setting" if len(where) == len(by_setting) > 1 else "; ".join(where)
                parts.append(f"{t.label} {word} ({places})")
    return ", ".join(parts) if parts else "every target met"


def headline_parts(tune: Tune, judged: Judged) -> tuple[str, str, str]:
    """The tune's answer in one sentence, as (before, the change, after): the terminal, tune.json and
    tune.html say the same words.

    "Recommendation" and "meet" only when every target is met at every
    setting on the fresh seed; otherwise the closest candidate and what it
    misses or leaves undecided.
    """
    sentence = describe(tune, judged.values)
    if all_met(tune, judged):
        after = (". They meet every target on a fresh seed." if not tune.changes(judged.values) else
                 ". Every target is met on a fresh seed.")
        return "Recommendation: ", sentence, after
    return ("No candidate tried meets every target on a fresh seed. Closest: ", sentence,
            f". Short of the targets: {shortfall_words(tune, judged)}.")


def headline(tune: Tune, judged: Judged) -> str:
    return "".join(headline_parts(tune, judged))


# An untargeted seat advantage counts as much worse than the base rules' when it grows by this much.
SEAT_MARGIN = 0.02


def watched_metrics(tune: Tune) -> dict[str, tuple[str, float, bool]]:
    """Untargeted metrics a tune watches for harm: metric -> (what it measures, the rise that is much worse,
    whether its size is what matters). The game's rule holes (``Game.rule_holes``) and the seats' advantages."""
    watched = {m: (meaning, _hole_margin(), False) for m, meaning in tune.game.rule_holes.items()}
    watched["first_player_advantage"] = ("the first seat's distance from its fair share", SEAT_MARGIN, True)
    watched["worst_seat_advantage_corrected"] = ("the worst seat's distance from its fair share, bias-corrected",
                                                 SEAT_MARGIN, False)
    targeted = {t.metric for t in tune.targets} | {t.column for t in tune.targets}
    return {m: v for m, v in watched.items() if m not in targeted}


def _hole_margin() -> float:
    from analysis.sweep import HOLE_MARGIN

    return HOLE_MARGIN


def watched_value(row: Mapping[str, Any], metric: str) -> tuple[float, float, float]:
    """A watched metric and its 95% interval in an evaluation's row.

    A rule-hole rate has no interval in the summary: it gets a Wilson
    interval counting each game once (a rate per round counts a game's
    rounds as one observation, which a rate that rounds of the same game
    share does not make narrower than it is).
    """
    x, lo, hi = (_nan(row.get(f"{metric}{end}")) for end in ("", "_lo", "_hi"))
    if math.isnan(x) or not (math.isnan(lo) or math.isnan(hi)):
        return x, lo, hi
    from analysis.stats import wilson_interval

    games = int(row.get("games") or 0)
    if games <= 0 or not 0 <= x <= 1:
        return x, math.nan, math.nan
    lo, hi = wilson_interval(x * games, games)
    return x, lo, hi


def side_effects(tune: Tune, best: Judged, base: Judged) -> list[dict[str, Any]]:
    """Untargeted metrics that got much worse with ``best`` than with the base rules, setting by setting.

    Much worse: at least the metric's margin worse (a rule-hole rate also
    at least twice the base's), with the two 95% intervals apart. Both are
    on the fresh seed's deals, the same for both.
    """
    out = []
    if not tune.changes(best.values):
        return out
    for metric, (meaning, margin, size) in watched_metrics(tune).items():
        for key, row in best.rows.items():
            was_row = base.rows.get(key)
            if was_row is None:
                continue
            now, was = watched_value(row, metric), watched_value(was_row, metric)
            if any(math.isnan(v) for v in (*now, *was)):
                continue
            if size:  # a signed advantage: its distance from 0
                now, was = _size(now), _size(was)
            worse = now[0] >= was[0] + margin and now[1] > was[2]
            if metric in tune.game.rule_holes:
                worse = worse and now[0] >= 2 * was[0]
            if worse:
                out.append({"metric": metric, "meaning": meaning, "setting": _setting(*key),
                            "value": list(now), "base": list(was)})
    return out


def _size(measured: tuple[float, float, float]) -> tuple[float, float, float]:
    """A signed value's distance from 0, and how far from 0 its interval lies at the least and at the most."""
    x, lo, hi = measured
    nearest = 0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))
    return abs(x), nearest, max(abs(lo), abs(hi))


def side_effect_words(tune: Tune, effects: Sequence[Mapping[str, Any]] | None) -> str:
    """The side effects as a sentence; which metrics were watched when none got much worse; None: the
    recommended rules are the base rules."""
    if effects is None:
        return "Side effects: none, since these are the base rules."
    if not effects:
        watched = ", ".join(watched_metrics(tune))
        return (f"Side effects: no untargeted metric watched ({watched}) got much worse than with the base rules "
                "on the fresh seed.") if watched else ""
    parts = []
    for metric in dict.fromkeys(e["metric"] for e in effects):
        mine = [e for e in effects if e["metric"] == metric]
        where = "; ".join(f"{_pct_ci(e['value'])} against {_pct_ci(e['base'])} at {e['setting']}" for e in mine)
        parts.append(f"{metric} ({mine[0]['meaning']}): {where}")
    return ("Side effects, untargeted and much worse than with the base rules (95% intervals, these rules against "
            "the base rules): " + "; and ".join(parts) + ".")


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%".replace("-", "\u2212")


def policies_apart(tune: Tune, judged: Judged) -> list[dict[str, Any]]:
    """Targets on which the policies of the tune pull apart under ``judged``'s rules, player count by count.

    Apart: the highest and the lowest policy's 95% intervals do not
    overlap and lie at least the target's scale (its range's width) apart,
    so that rules right for one kind of player are not for another.
    """
    out = []
    if len(tune.policies) < 2:
        return out
    for t in tune.targets:
        for players in tune.players:
            measured = {pol: t.measure(judged.rows[(players, pol)], players) for pol in tune.policies
                        if (players, pol) in judged.rows}
            measured = {pol: m for pol, m in measured.items() if not any(math.isnan(v) for v in m)}
            if len(measured) < 2:
                continue
            high = max(measured, key=lambda pol: measured[pol][0])
            low = min(measured, key=lambda pol: measured[pol][0])
            (x_hi, lo_hi, _), (x_lo, _, hi_lo) = measured[high], measured[low]
            if lo_hi > hi_lo and x_hi - x_lo >= t.scale:
                out.append({"metric": t.metric, "label": t.label, "players": players, "high": high, "low": low,
                            "by_policy": {pol: list(m) for pol, m in measured.items()}})
    return out


def policies_apart_words(apart: Sequence[Mapping[str, Any]]) -> str:
    """One sentence for the policies pulling apart (empty when they do not)."""
    if not apart:
        return ""
    parts = []
    for a in apart:
        hi, lo = a["by_policy"][a["high"]], a["by_policy"][a["low"]]
        parts.append(f"{a['label']} is {_g3(hi[0])} [{_g3(hi[1])}, {_g3(hi[2])}] with {a['high']} at every seat "
                     f"but {_g3(lo[0])} [{_g3(lo[1])}, {_g3(lo[2])}] with {a['low']} at {a['players']} players")
    return ("The policies pull apart under these rules: " + "; ".join(parts)
            + ". Rules right for one kind of player are not right for the other; the verdicts above hold for each "
              "policy separately.")


def _g3(x: float) -> str:
    return f"{x:.3g}".replace("-", "\u2212")


_what = knob_words
_spell = value_words


@dataclass(repr=False)
class TuneResults:
    """What a tune leaves: the recommendation, the ranked finalists, every evaluation, where they are."""

    tune: Tune
    out_dir: Path | None
    summary: dict[str, Any]
    candidates: Any  # pandas DataFrame, one row per evaluation

    @property
    def recommendation(self) -> dict[str, Any]:
        return self.summary["recommendation"]

    def __repr__(self) -> str:
        return f"<TuneResults {self.tune.name!r}: {self.recommendation['sentence']}>"


def _candidate_entry(tune: Tune, j: Judged) -> dict[str, Any]:
    n, amount = tune.change_size(j.values)
    return {
        "trial": j.trial,
        "values": j.values,
        "rules": {c["what"]: c["to"] for c in tune.changes(j.values)},
        "changes": tune.changes(j.values),
        "changed_values": n,
        "change_amount": amount,
        "sentence": describe(tune, j.values),
        "all_met": all_met(tune, j),
        "status": shortfall_words(tune, j),
        "games": j.games,
        "seed": j.seed,
        "shortfall": _finite(j.shortfall(tune)),
        "verdict": j.verdict(tune),
        "verdicts": j.verdicts(tune),
        "metrics": {
            _setting(p, pol): {t.metric: [_finite_or_none(v) for v in t.measure(row, p)] for t in tune.targets}
            for (p, pol), row in j.rows.items()
        },
    }


def _finite_or_none(x: float) -> float | None:
    return None if x is None or math.isnan(x) else x


def _finite(x: float) -> float | None:
    """A number for JSON: None for an infinite shortfall (a metric the game could not measure)."""
    return x if math.isfinite(x) else None


def candidates_table(tune: Tune, judged: Iterable[Judged]):
    """One row per evaluation: trial, stage, seed, games, knob values, the change, every metric and its interval."""
    import pandas as pd

    rows = []
    for j in judged:
        n, amount = tune.change_size(j.values)
        for (players, policy), metrics in j.rows.items():
            row = {"trial": j.trial, "stage": j.stage, "seed": j.seed, "games": j.games, "players": players,
                   "policy": policy}
            row.update({d.name: json.dumps(j.values[d.name]) if d.choices is not None else j.values[d.name]
                        for d in tune.dims})
            row.update({"changed_values": n, "change_amount": amount, "change": describe(tune, j.values, short=True)})
            for t in tune.targets:
                row[f"shortfall_{t.metric}"] = t.shortfall(t.measure(metrics, players)[0])
            row.update({k: v for k, v in metrics.items() if k not in row and k not in ("players", "games", "seed")})
            rows.append(row)
    table = pd.DataFrame(rows)
    for column in table.columns:
        if table[column].dtype == object:
            table[column] = table[column].map(lambda v: v if v is None or isinstance(v, str) else json.dumps(v))
    return table


# --- running --------------------------------------------------------------------------------


def tune(
    spec: Tune | str | os.PathLike,
    out: str | os.PathLike | _DefaultOut = DEFAULT_OUT,
    *,
    cluster: Cluster | None = None,
    progress: bool | None = None,
    report: bool = True,
    report_games: int | None = None,
    say=None,
) -> TuneResults:
    """Search the rules of ``spec`` for the smallest change that meets its targets; write the tune's directory.

    ``say`` (a callable taking a line), if given, is told before any game is
    played which targets are finer than the search's games resolve.

    ``out`` is the tune's directory: by default a new
    ``reports/<name>-<timestamp>/``, or the newest unfinished tune of the
    same definition there (so the same command resumes a stopped tune). An
    existing tune directory of the same definition is resumed; one of another
    is refused. ``cluster`` plays the games elsewhere (``sim.cluster``);
    ``report`` writes ``tune.html`` and a full balance report of the
    recommended rules at every tuned player count and policy
    (``best/<players>p-<policy>/``), each played with ``report_games`` games
    (default: the tune's games).
    """
    from tqdm import tqdm

    from sim.sweep import _locked

    if not isinstance(spec, Tune):
        spec = load_tune(spec)
    tune_ = spec
    if isinstance(out, _DefaultOut):
        out_dir = unfinished_tune_dir(tune_) or default_out_dir(tune_.name)
    else:
        out_dir = out_path(out)
    if progress is None:
        progress = sys.stderr.isatty()
    if cluster is None:
        cluster = IN_PROCESS
    started = time.perf_counter()
    state = _tune_directory(out_dir, tune_)
    from sim.estimates import resolution_lines, tune_resolution

    with _locked(state / LOCK_FILE, "tune"):
        # Written first, so a tune stopped at any moment after this is found and continued.
        _write_atomically(state / DEFINITION_FILE, json.dumps(tune_.definition(), indent=2))
        # Whether the search's games can resolve each target, said before they are spent.
        found = tune_resolution(tune_)
        resolution = [r.as_dict() for r in found]
        for line in resolution_lines(found) if say is not None else []:
            say(line)
        for players, policy in tune_.settings:
            cluster.warm_up(tune_.config({}, players, policy, games=1, seed=tune_.seed))
        evals = _Evaluations(tune_, state / EVALS_DIR, cluster)
        study = _study(tune_, state)
        bar = tqdm(total=tune_.budget, unit="candidate", disable=not progress, file=sys.stderr, leave=False,
                   desc="search")
        with bar:
            searched = _search_phase(tune_, study, evals, bar)
        ranked = sorted((j for j in _distinct(searched) if j.invalid is None), key=lambda j: j.rank_key(tune_))
        bar = tqdm(total=None, unit="candidate", disable=not progress, file=sys.stderr, leave=False, desc="simplify")
        with bar:
            simplified = _simplify(tune_, ranked, evals, max(j.trial for j in searched) + 1, bar)
        ranked = sorted((j for j in _distinct([*ranked, *simplified]) if j.invalid is None),
                        key=lambda j: j.rank_key(tune_))
        bar = tqdm(total=None, unit="candidate", disable=not progress, file=sys.stderr, leave=False, desc="halving")
        with bar:
            finalists, rungs = _halving(tune_, ranked, evals, bar)
        base = Judged(-1, tune_.base_values(), tune_.games, tune_.seed, "base")
        bar = tqdm(total=len(finalists) + 1, unit="candidate", disable=not progress, file=sys.stderr, leave=False,
                   desc="final, fresh seed")
        with bar:
            # No candidate the game takes (every one refused): the base rules are all there is.
            final = _final(tune_, finalists or [base], evals, bar)
            final_base = next((f for f in final if f.values == base.values), None)
            if final_base is None:
                # At the finalists' games, so that the table compares like with like.
                base.games = max(f.games for f in final)
                final_base = _final(tune_, [base], evals, bar)[0]
                final_base.stage = "final, base"
        ranked_final = sorted(final, key=lambda j: j.rank_key(tune_, decided=True))
        best = ranked_final[0]
        summary = {
            "name": tune_.name,
            "game": tune_.base.game,
            "base": str(tune_.base_path),
            "seed": tune_.seed,
            "final_seed": tune_.final_seed,
            "budget": tune_.budget,
            "games": tune_.games,
            "max_games": tune_.max_games,
            "players": list(tune_.players),
            "policies": list(tune_.policies),
            "search": [{"name": d.name, "base": d.base, "low": d.low, "high": d.high,
                        "choices": None if d.choices is None else [json.loads(c) for c in d.choices]}
                       for d in tune_.dims],
            "targets": [t.as_dict() for t in tune_.targets],
            **answer(tune_, ranked_final, final_base),
            "convergence": [{"trial": j.trial, "score": _finite(search_score(tune_, j)), "met": j.met(tune_),
                             "shortfall": _finite(j.shortfall(tune_)), "refused": j.invalid} for j in searched],
            "candidates_tried": len(_distinct(searched)),
            "simplified": len(simplified),
            "resolution": resolution,
        }
        table = candidates_table(tune_, [*searched, *simplified, *rungs, *final, *([final_base] if final_base not in final else [])])
        _write_parquet_atomically(out_dir / CANDIDATES_FILE, table)
        _write_atomically(out_dir / BEST_FILE, _best_toml(tune_, best))
        if report:
            from analysis.tune_report import tune_report_html

            summary["report"] = _best_reports(tune_, best, out_dir, report_games)
            html = tune_report_html(summary, table, game=tune_.game)
            _write_atomically(out_dir / REPORT_FILE, html)
        summary["timing"] = {"seconds": time.perf_counter() - started, "games_played_now": evals.played_games,
                             "evaluations_reused": evals.reused}
        _write_atomically(out_dir / RESULT_FILE, json.dumps(summary, indent=2, default=str))
    return TuneResults(tune_, out_dir, summary, table)


def answer(tune: Tune, ranked_final: Sequence[Judged], base: Judged) -> dict[str, Any]:
    """What the tune says of its finalists (best first) and the base rules on the fresh seed: the verdict in
    words, the recommendation and runners-up, side effects, policies pulling apart, rule holes."""
    best = ranked_final[0]
    effects = side_effects(tune, best, base)
    apart = policies_apart(tune, best)
    return {
        "verdict": {"all_met": all_met(tune, best), "headline": headline(tune, best),
                    "headline_parts": list(headline_parts(tune, best))},
        "recommendation": _candidate_entry(tune, best),
        "runners_up": [_candidate_entry(tune, j) for j in ranked_final[1:]],
        "base_rules": _candidate_entry(tune, base),
        "side_effects": {"watched": list(watched_metrics(tune)), "worse": effects,
                         "sentence": side_effect_words(tune, effects if tune.changes(best.values) else None)},
        "policies_apart": {"apart": apart, "sentence": policies_apart_words(apart)},
        "rule_holes": rule_hole_table(tune, best, base),
    }


# ``sim.run_tune``: the package's name for it, since ``sim.tune`` is this module.
run_tune = tune


def best_setting(tune: Tune) -> tuple[int, str]:
    """The player count and policy ``best.toml`` plays: the tune's own when it has one; of several, the
    base config's player count if tuned (else the first tuned) and the first policy listed."""
    players = tune.base.players if tune.base.players in tune.players else tune.players[0]
    return players, tune.policies[0]


def _best_toml(tune: Tune, best: Judged) -> str:
    players, policy = best_setting(tune)
    config = tune.config(best.values, players, policy, name=f"{tune.name}-best")
    if all_met(tune, best):
        what = f"The rules `lvsim tune {tune.path}` recommends: {describe(tune, best.values)}."
    else:
        what = (f"No candidate `lvsim tune {tune.path}` tried meets every target on a fresh seed; the closest: "
                f"{describe(tune, best.values)}.")
    lines = [f"# {what}",
             "# Verdicts on a fresh seed: " + ", ".join(f"{m} {v}" for m, v in best.verdict(tune).items()) + "."]
    if len(tune.players) > 1 or len(tune.policies) > 1:
        lines.append(f"# Tuned at {_and(map(str, tune.players))} players with {_and(tune.policies)} at every seat; "
                     f"this file plays {players} players with {policy}: set rules.players and policies.seats for "
                     "the others.")
    else:
        lines.append(f"# Tuned at {players} players with {policy} at every seat, as this file plays.")
    lines.append("# Play them with: lvsim run <this file>")
    body = config.to_toml().splitlines()[1:]  # its own comment line says "resolved config"
    return "\n".join(lines + body) + "\n"


def _and(items: Iterable[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def report_settings(tune: Tune) -> list[tuple[int, str]]:
    """The settings the balance report of the recommended rules is played at: every tuned one."""
    return list(tune.settings)


def _setting_dir(players: int, policy: str) -> str:
    return f"{players}p-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", policy)


def _best_reports(tune: Tune, best: Judged, out_dir: Path, games: int | None) -> dict[str, Any] | None:
    """Play the recommended rules as normal runs with their balance reports, one per tuned setting, into
    ``best/<players>p-<policy>/``; None if none could be written."""
    from sim.runner import run

    games = games or tune.games
    reports = []
    for players, policy in report_settings(tune):
        config = replace(tune.config(best.values, players, policy, name=f"{tune.name}-best"), games=games)
        sub = f"{BEST_RUN_DIR}/{_setting_dir(players, policy)}"
        target = out_dir / sub
        played = target / "config.toml"
        fresh = not ((target / "report.html").is_file() and played.is_file()
                     and played.read_text(encoding="utf-8") == config.to_toml())
        if fresh:
            if target.exists():
                import shutil

                shutil.rmtree(target)
            run(config, out=target, progress=False, report=True)
        if not (target / "report.html").is_file():
            continue
        summary = json.loads((target / "summary.json").read_text(encoding="utf-8")) \
            if (target / "summary.json").is_file() else {}
        holes = {m: [_finite_or_none(v) for v in watched_value({**_flat(summary), "games": games}, m)]
                 for m in tune.game.rule_holes}
        reports.append({"setting": _setting(players, policy), "players": players, "policy": policy, "dir": sub,
                        "report": f"{sub}/report.html", "games": games, "rule_holes": holes})
    if not reports:
        return None
    return {"games": games, "settings": reports}


def _flat(summary: Mapping[str, Any]) -> dict[str, Any]:
    from analysis.sweep import summary_row

    return summary_row(summary) if summary else {}


def rule_hole_table(tune: Tune, best: Judged, base: Judged) -> list[dict[str, Any]]:
    """Every rule-hole rate of the recommended and the base rules at every setting on the fresh seed, with
    95% intervals: shown whether or not it got worse."""
    out = []
    for metric, meaning in tune.game.rule_holes.items():
        for key, row in best.rows.items():
            was = base.rows.get(key, {})
            out.append({"metric": metric, "meaning": meaning, "setting": _setting(*key),
                        "value": [_finite_or_none(v) for v in watched_value(row, metric)],
                        "base": [_finite_or_none(v) for v in watched_value(was, metric)]})
    return out


def unfinished_tune_dir(tune: Tune) -> Path | None:
    """The newest ``reports/<name>-*`` directory holding an unfinished tune of the same definition."""
    if not REPORTS_DIR.is_dir():
        return None
    wanted = tune.definition()
    found = []
    for path in REPORTS_DIR.glob(f"{_glob_escape(tune.name)}-*"):
        state = path / STATE_DIR / DEFINITION_FILE
        if not state.is_file() or (path / RESULT_FILE).is_file():
            continue
        try:
            if json.loads(state.read_text(encoding="utf-8")) == wanted:
                found.append(path)
        except (OSError, ValueError):
            continue
    return max(found, key=lambda p: p.name) if found else None


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def _tune_directory(out_dir: Path, tune: Tune) -> Path:
    """The tune's state directory in ``out_dir``, made if new; one of another tune, or of anything else, is refused."""
    state = out_dir / STATE_DIR
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError("--out", f"{out_dir} exists and is not a directory")
    if out_dir.is_dir() and any(out_dir.iterdir()):
        stored_path = state / DEFINITION_FILE
        if not stored_path.is_file():
            raise ConfigError("--out", f"{out_dir} is not empty and holds no tune; choose a new directory or remove it")
        try:
            stored = json.loads(stored_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise ConfigError("--out", f"{stored_path} is unreadable; choose a new directory") from None
        if stored != tune.definition():
            raise ConfigError("--out", f"{out_dir} holds a tune with another definition (search, targets, budget, "
                                     "games or seed); resume with the same tune file and options, or choose a new "
                                     "directory")
    try:
        state.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError("--out", f"cannot create {out_dir}: {err.strerror or err}") from None
    for leftover in out_dir.glob(".*.partial"):
        leftover.unlink(missing_ok=True)
    return state


def _write_atomically(path: Path, text: str) -> None:
    from sim.sweep import _write_atomically as write

    write(path, text)


def _write_parquet_atomically(path: Path, table) -> None:
    from sim.sweep import _write_parquet_atomically as write

    write(path, table)


# --- dry run ----------------------------------------------------------------------------------


def plan_tune(tune: Tune, *, calibrate: bool = True, report: bool = True,
              report_games: int | None = None) -> dict[str, Any]:
    """What a tune would play, an estimate of its time and which targets its games resolve; writes nothing.

    Each (player count, policy) is timed as an evaluation of the base rules
    (its skill-gap duels included) at two numbers of games, so that what an
    evaluation costs whatever its games is counted once per evaluation
    (``sim.estimates``). The search plays ``budget`` candidates; the
    simplification, successive halving and the final replay add a range
    (the final replay stops as soon as the targets are decided, at
    ``max_games`` at the latest).
    """
    from sim.estimates import plan_tune as plan

    return plan(tune, calibrate_costs=calibrate, report=report, report_games=report_games)


def plan_text(tune: Tune, plan: Mapping[str, Any]) -> str:
    from sim.estimates import tune_plan_text

    return tune_plan_text(tune, plan)


def tune_text(results: TuneResults) -> str:
    """What ``lvsim tune`` prints: the answer, its verdicts, side effects, the runners-up, where the results are."""
    summary = results.summary
    best = summary["recommendation"]
    lines = [summary["verdict"]["headline"],
             f"On a fresh seed (seed {summary['final_seed']}, {best['games']:,} games per setting):"]
    for t in results.tune.targets:
        lines.append(f"  {t.label:<30} wanted {t.spelled:<22} {best['verdict'][t.metric]}")
        for setting, (x, lo, hi) in ((s, m[t.metric]) for s, m in best["metrics"].items()):
            ci = "" if lo is None or hi is None else f"  [{lo:.4g}, {hi:.4g}]"
            shown_x = "n/a" if x is None else f"{x:.4g}"
            lines.append(f"    {setting:<28} {shown_x}{ci}  {best['verdicts'][t.metric][setting]}")
    for sentence in (summary["policies_apart"]["sentence"], summary["side_effects"]["sentence"]):
        if sentence:
            lines.append(sentence)
    holes = summary.get("rule_holes") or []
    if holes:
        lines.append("Rule holes on the fresh seed (these rules; the base rules), 95% intervals:")
        for h in holes:
            lines.append(f"  {h['metric']:<22} {h['setting']:<24} {_pct_ci(h['value'])}; {_pct_ci(h['base'])}")
    if summary["runners_up"]:
        lines.append("Runners-up:")
        for e in summary["runners_up"]:
            lines.append(f"  #{e['trial']}: {e['sentence']} \u2014 {e['status']}")
    timing = summary.get("timing", {})
    if timing:
        lines.append(f"Played {timing['games_played_now']:,} games now in {timing['seconds']:.1f} s wall time "
                     f"({summary['candidates_tried']:,} distinct candidates tried; "
                     f"{timing['evaluations_reused']:,} evaluations reused).")
    report = summary.get("report")
    if report:
        lines.append(f"Balance reports of these rules, {report['games']:,} games each: "
                     + ", ".join(f"{r['report']} ({r['setting']})" for r in report["settings"]))
    files = ", ".join(sorted(p.name for p in results.out_dir.iterdir() if p.name != STATE_DIR))
    lines.append(f"Results in {results.out_dir}/ ({files})")
    return "\n".join(lines)


def _pct_ci(measured: Sequence[float | None]) -> str:
    x, lo, hi = measured
    if x is None:
        return "n/a"
    ci = "" if lo is None or hi is None else f" [{_pct(lo)}, {_pct(hi)}]"
    return f"{_pct(x)}{ci}"
