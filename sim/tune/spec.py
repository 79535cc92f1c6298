"""A checked tune: the base config, the values searched, the targets, and what a candidate changes.

A candidate is a mapping of :class:`Dimension` names to values; the
:class:`Tune` turns it into the config played at each setting (a player
count and a policy at every seat) and says what it changes from the base
rules, which ranks candidates that meet the targets.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from sim.config import MAX_SEED, Config, config_from_mapping
from sim.overrides import put_entry
from sim.tune.targets import Target, _is_number, setting_name

DEFAULT_FINALISTS = 3
# Without max_games, the final replay of a finalist stops at this many times the search's games.
DEFAULT_MAX_GAMES_FACTOR = 27
# Successive halving keeps a third of the candidates and triples their games, on the same deals.
HALVING = 3
# The final replay multiplies the games by this until every target is decided.
FINAL_GROWTH = 4
MAX_BUDGET = 100_000
# The sampler proposes this many candidates at a time (ask), all played together, then told their
# results (tell) before it proposes the next: a batch keeps a cluster's workers busy, and being the
# same on any cluster, the candidates tried are the same on any number of workers.
SEARCH_BATCH = 8
# A search proposing candidates it already tried stops after this many times the budget in trials.
MAX_TRIALS_FACTOR = 20
# The fresh seed of the final replay: far from the search's, the same for every tune of that seed.
FRESH_SEED_STEP = 1_000_000_007


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
    step: int = 1  # the knob's own step (``sim.knobs.Knob.step``: dollars by the smallest bill); the range holds
    # the base's value and those whole steps from it

    def values(self) -> list[Any]:
        if self.choices is not None:
            return [json.loads(c) for c in self.choices]
        return list(range(self.low, self.high + 1, self.step))


class Tables:
    """What a tune and a confirmation share: the base config (``base``) played at each of its settings, a
    player count with one policy at every seat."""

    @property
    def game(self):
        return self.base.game_spec

    @property
    def settings(self) -> list[tuple[int, str]]:
        """Every (player count, policy) a candidate is judged at."""
        return [(p, policy) for p in self.players for policy in self.policies]

    def rules_table(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The base config's ``[rules]`` with ``values`` (dimension name -> value) put in."""
        rules = copy.deepcopy(self.base.rules.to_dict())
        for d in self.dims:
            if d.name in values:
                put_entry(rules, d.knob, d.path, values[d.name])
        return rules

    def config(self, values: Mapping[str, Any], players: int | None = None, policy: str | None = None,
               games: int | None = None, seed: int | None = None, name: str | None = None) -> Config:
        """The base config with ``values`` put in, at ``players`` with ``policy`` at every seat."""
        data = self.base.to_dict()
        data["rules"] = self.rules_table(values)
        if players is not None:
            data["rules"] = self.game.rules_at_players(data["rules"], players)
        if policy is not None:
            data["policies"]["seats"] = policy
        run = data["run"]
        if games is not None:
            run.update(games=games, skill_gap_games=0, strength_games=0, strength_slow_games=0, sensitivity_games=0)
        if seed is not None:
            run["seed"] = seed
        return config_from_mapping(data, name=name or self.base.name)


@dataclass(frozen=True)
class Tune(Tables):
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
    def final_seed(self) -> int:
        return (self.seed + FRESH_SEED_STEP) % (MAX_SEED + 1)

    # What the time estimates (``sim.estimates``) read of a tune, beside its settings and targets.
    halving = HALVING
    final_growth = FINAL_GROWTH

    setting_name = staticmethod(setting_name)

    def domain_size(self) -> int:
        """How many distinct candidates the search domain holds."""
        return math.prod(len(d.choices) if d.choices is not None else (d.high - d.low) // d.step + 1
                         for d in self.dims)

    def report_settings(self) -> list[tuple[int, str]]:
        """The settings the balance report of the recommended rules is played at: every tuned one."""
        return list(self.settings)

    def base_values(self) -> dict[str, Any]:
        return {d.name: d.base for d in self.dims}

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
            "search": [{"name": d.name, "low": d.low, "high": d.high, "choices": d.choices,
                        **({"step": d.step} if d.step != 1 else {})} for d in self.dims],
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

