"""The tune file (``sim.tune`` shows one): reading it and checking every key, so that a tune refused is
refused before it plays anything.

Errors are :class:`~sim.errors.ConfigError` with one line naming the key.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, Callable, Mapping

from sim.config import MAX_SEED, Config, read_base
from sim.errors import ConfigError, cut, shown
from sim.inputs import read_toml
from sim.overrides import NoSuchEntry, dotted, entry_at, rule_entry
from sim.tune.spec import DEFAULT_FINALISTS, DEFAULT_MAX_GAMES_FACTOR, MAX_BUDGET, Dimension, Tune
from sim.tune.targets import CORRECTED_COLUMNS, Target, _target, declared, reach

TUNE_FILE_KEYS = ("base", "search", "targets", "tune")
TUNE_KEYS = ("players", "policies", "budget", "games", "seed", "finalists", "max_games")
DOMAIN_KEYS = ("faces", "range", "choices")
# Summary values that describe the run rather than measure the game (and any rule knob the summary repeats).
NOT_METRICS = ("game", "title", "players", "games", "seed", "seconds", "games_per_second")


def load_tune(path: str | os.PathLike, *, budget: int | None = None, games: int | None = None,
              seed: int | None = None, threads: int | None = None, searched: bool = True) -> Tune:
    """Read and check the tune file at ``path``; the options override its ``[tune]`` values.

    Raises :class:`~sim.errors.ConfigError` with one line naming the key.
    Nothing is played. With ``searched=False`` (a file only confirmed, which
    plays its base rules) the ``[search]`` table may be left out.
    """
    path = Path(path)
    data = read_toml(path, lambda problem: ConfigError(str(path), problem), what="tune file")
    return tune_from_mapping(data, base_dir=path.parent, name=path.stem, path=path, budget=budget, games=games,
                             seed=seed, threads=threads, searched=searched)


def tune_from_mapping(data: Mapping[str, Any], *, base_dir: Path = Path("."), name: str = "tune",
                      path: Path | None = None, budget: int | None = None, games: int | None = None,
                      seed: int | None = None, threads: int | None = None, searched: bool = True) -> Tune:
    base_path, _, base = read_base(data, base_dir, known=TUNE_FILE_KEYS, name=name,
                                   starts="the tune starts from", file="tune file")
    if threads is not None:
        base = replace(base, threads=threads)
    game = base.game_spec

    settings = _tune_table(data.get("tune", {}), base, budget=budget, games=games, seed=seed)
    required = ("search", "targets") if searched else ("targets",)
    for key in ("search", "targets"):
        if key not in data:
            if key in required:
                raise ConfigError(key, f"missing (a [{key}] table: " + (
                    "the knobs to vary and their domains)" if key == "search" else "the metrics and what they should be)"))
        elif not isinstance(data[key], dict):
            raise ConfigError(key, f"must be a table, got {shown(data[key])}")
    dims = _search(data["search"], base, game) if "search" in data else ()
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


def _search(table: Mapping[str, Any], base: Config, game) -> tuple[Dimension, ...]:
    # {"rules": {"tokens": {...}}} and {"rules.tokens": {...}} alike, as {"rules.tokens": {...}}.
    entries = dotted(table, into=lambda key, value: (key == "rules" and isinstance(value, dict) and bool(value)
                                                     and not set(value) & set(DOMAIN_KEYS)))
    if not entries:
        raise ConfigError("search", "is empty: give the knobs to vary, e.g. \"rules.tokens\" = { faces = [-4, 3] }")
    knobs = tuple(k for k in game.Rules.__dataclass_fields__ if k != "players")
    base_rules = base.rules.to_dict()
    dims: list[Dimension] = []
    taken: dict[tuple, str] = {}
    for key, domain in entries.items():
        where = f'search."{key}"'
        entry = rule_entry(key)
        if entry is None:
            raise ConfigError(where, f"not a knob of {game.title}: search keys are rules.<knob>, optionally with "
                                     f"[index] (knobs: {', '.join(knobs)})")
        knob, path = entry
        if knob == "players":
            raise ConfigError(where, "cannot be searched: every candidate is judged at each of tune.players")
        if knob not in knobs:
            raise ConfigError(where, f"not a knob of {game.title} (knobs: {', '.join(knobs)})")
        try:
            value = entry_at(base_rules, knob, path)
        except NoSuchEntry as missing:
            held = missing.holder
            size = f"has {len(held)} entries" if isinstance(held, list) else "is not a list"
            raise ConfigError(where, f"no such entry: {missing.where} {size} in the base config") from None
        for (other_knob, other_path), other_key in taken.items():
            if other_knob == knob and (other_path[:len(path)] == path or path[:len(other_path)] == other_path):
                raise ConfigError(where, f"overlaps {other_key}: search each value once")
        taken[(knob, path)] = f'"{key}"'
        declared = game.knobs[knob].step
        step = (lambda at: 1) if declared is None else partial(declared, base.rules)
        dims.extend(_dimensions(where, key, knob, path, value, domain, step))
    return tuple(dims)


def _dimensions(where: str, key: str, knob: str, path: tuple[int, ...], base_value: Any,
                domain: Any, step_at: Callable[[tuple[int, ...]], int]) -> list[Dimension]:
    """The dimensions of one searched key: one of its choices, or each integer under it over ``[lowest, highest]``
    in the step ``step_at(path)`` declares for the integer at ``path`` in the knob (a knob that moves in steps is
    searched in whole steps from the base's value)."""
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
    dims = []
    for sub, v in leaves:
        step, lo, hi = step_at(path + sub), low, high
        if step > 1:  # a knob moving in steps (a casino minimum, by the smallest bill)
            lo = low + (v - low) % step
            if lo > high:
                raise ConfigError(where, f"{kind} = {spec} holds no value a whole step of {step:,} from the base's "
                                         f"{v:,}")
            hi = lo + (high - lo) // step * step
        dims.append(Dimension(key + "".join(f"[{i}]" for i in sub), key, knob, path + sub, v, low=lo, high=hi,
                              step=step))
    return dims


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
        ok = [c for c in columns if c not in NOT_METRICS and c not in tune.game.knobs and not c.endswith(("_lo", "_hi"))
              and not c.startswith("policy_")]
        names = ok if names is None else [c for c in names if c in ok]
    names += [f"skill_gap_{d.name}" for d in tune.game.skill_gap_duels]
    return names


def _targets(table: Mapping[str, Any], tune: Tune) -> tuple[Target, ...]:
    if not table:
        example = next(iter(tune.game.headline_metrics))
        raise ConfigError("targets", "is empty: give the metrics and what they should be, e.g. "
                                     f"{example} = [0.40, 0.60]")
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
        relative = spec.get("relative") if isinstance(spec, dict) else None
        out.append(_target(where, metric, spec, reach(declared(tune.game, CORRECTED_COLUMNS.get(metric, metric)),
                                                      relative, tune.players)))
    return tuple(out)
