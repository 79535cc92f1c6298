"""Playing candidates: a candidate's summary metrics at one setting, kept on disk as each finishes.

:func:`evaluate` is a pure function of (rules, player count, policy, games,
seed); :class:`_Evaluations` keeps each in the tune's ``state/evals/``, so a
tune stopped at any moment and run again plays none twice. A
:class:`Judged` is a candidate's evaluations at every setting and how they
meet the targets.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from sim.atomic import write_text_atomically
from sim.config import Config
from sim.errors import ConfigError
from sim.runner import IN_PROCESS, Cluster
from sim.tune.spec import Tune
from sim.tune.targets import setting_name

# Summary values that time the run: left out of an evaluation, which is the same whenever it is played.
TIMING = ("seconds", "games_per_second")


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
                setting_name(p, pol): t.judge(row, p)
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
        write_text_atomically(path, json.dumps({"key": key, "row": row}))
        if self.on_play is not None:
            self.on_play(games)
        return row
