"""Playing candidates: a candidate's summary metrics at one setting, kept on disk as each finishes.

:func:`evaluate` is a pure function of (rules, player count, policy, games,
seed); :class:`_Evaluations` keeps each in the tune's ``state/evals/`` as it
finishes, so a tune stopped at any moment and run again plays none twice. A
:class:`Judged` is a candidate's evaluations at every setting and how they
meet the targets.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, NamedTuple, Sequence

from sim.atomic import write_text_atomically
from sim.config import Config
from sim.errors import ConfigError
from sim.runner import IN_PROCESS, Cluster
from sim.tune.spec import Tune
from sim.tune.targets import Target, setting_name

# Summary values that time the run: left out of an evaluation, which is the same whenever it is played.
TIMING = ("seconds", "games_per_second")


Request = tuple[Mapping[str, Any], int, str, int, int]  # (values, players, policy, games, seed)


def evaluate(tune: Tune, values: Mapping[str, Any], players: int, policy: str, games: int, seed: int,
             cluster: Cluster = IN_PROCESS) -> dict[str, Any]:
    """The summary metrics of ``games`` games of the candidate ``values`` at ``players`` with ``policy`` everywhere:
    the row of plain values the candidates table holds, without timings."""
    [(_, row)] = evaluate_many(tune, [(values, players, policy, games, seed)], cluster)
    return row


def evaluate_many(tune: Tune, requests: Sequence[Request], cluster: Cluster = IN_PROCESS) -> Iterator[tuple[int, dict]]:
    """:func:`evaluate` of every request, their games sent to the cluster together so that a batch keeps every
    worker busy: ``(i, row)`` as each is played (its skill-gap duels too), in the order they end."""
    from analysis.sweep import summary_row
    from sim.runner import GamesPlayed, play_together

    configs = [tune.config(values, players, policy, games=games, seed=seed)
               for values, players, policy, games, seed in requests]
    jobs = [(config, 0, config.games) for config in configs]
    duels = skill_duels(tune)
    for i, played in play_together(cluster, jobs, lambda i: GamesPlayed(configs[i])):
        played.close()
        summary = played.summary()
        if duels:
            summary["skill_gap"] = {d.name: _duel(tune, d, configs[i], configs[i].games) for d in duels}
        row = {k: v for k, v in summary_row(summary).items() if k not in TIMING}
        yield i, json.loads(json.dumps(row, default=_plain))


def skill_duels(tune: Tune) -> list:
    """The game's skill-gap duels that a target names: only those are played."""
    wanted = {t.metric.removeprefix("skill_gap_") for t in tune.targets if t.metric.startswith("skill_gap_")}
    return [d for d in tune.game.skill_gap_duels if d.name in wanted]


def duel_deals(games: int, players: int) -> int:
    """The deals of a skill-gap duel that stands for about ``games`` games: each deal is played from every seat."""
    return max(2, games // players)


def _duel(tune: Tune, d, config: Config, games: int) -> dict[str, Any]:
    """One skill-gap duel on about ``games`` games: :func:`duel_deals` deals, each played from every seat."""
    from sim.duel import duel

    players = config.players
    result = duel(tune.game, config.rules, [d.policy] + [d.against] * (players - 1), duel_deals(games, players),
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


class Measured(NamedTuple):
    """A target's value at one setting as judged, its 95% interval, and the games (or a duel's deals) they rest on."""

    value: float
    low: float
    high: float
    games: int
    unit: str  # "games", or "deals" for a skill-gap duel, each deal played from every seat
    sequential: bool  # a confidence sequence, played until decided or the most games allowed


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
    # The final replay's sequential verdicts (``sim.confirm``): metric -> setting -> verdict, estimate, low, high,
    # games, more_games. They replace the rows' for the targets judged game by game.
    decided: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)

    def measured(self, target: Target, players: int, policy: str) -> Measured:
        """``target``'s value at a setting as it is judged and shown: the final replay's confidence sequence where
        the target was played until decided, else the 95% interval of the evaluation's row."""
        decided = self.decided.get(target.metric, {}).get(setting_name(players, policy))
        duel = target.metric.startswith("skill_gap_")
        if decided is not None:
            x, lo, hi = (math.nan if decided[k] is None else decided[k] for k in ("estimate", "low", "high"))
            return Measured(x, lo, hi, decided["games"], "deals" if duel else "games", True)
        x, lo, hi = target.measure(self.rows[(players, policy)], players)
        games = duel_deals(self.games, players) if duel else self.games
        return Measured(x, lo, hi, games, "deals" if duel else "games", False)

    def shortfall(self, tune: Tune) -> float:
        """The total shortfall from the targets, on the values as judged (:meth:`measured`)."""
        if self.invalid is not None:
            return math.inf
        return sum(t.shortfall(self.measured(t, *key).value) for key in self.rows for t in tune.targets)

    def distance(self, tune: Tune) -> float:
        return sum(t.distance(self.measured(t, *key).value) for key in self.rows for t in tune.targets)

    def met(self, tune: Tune) -> bool:
        return self.shortfall(tune) == 0

    def verdicts(self, tune: Tune) -> dict[str, dict[str, str]]:
        """Per target, per setting ("4 players, expert"): met, missed or undecided on the 95% interval, or on the
        final replay's confidence sequence where it has one."""
        out = {}
        for t in tune.targets:
            decided = {s: d["verdict"] for s, d in self.decided.get(t.metric, {}).items()}
            out[t.metric] = {setting_name(p, pol): decided.get(setting_name(p, pol)) or t.judge(row, p)
                             for (p, pol), row in self.rows.items()}
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
        return self.judge_many([(trial, values, games, seed, stage)])[0]

    def judge_many(self, candidates: Sequence[tuple[int, Mapping[str, Any], int, int, str]]) -> list[Judged]:
        """Each ``(trial, values, games, seed, stage)`` judged at every setting, their games played together."""
        out = []
        wanted: dict[str, tuple[Request, list[tuple[Judged, tuple[int, str]]]]] = {}
        for trial, values, games, seed, stage in candidates:
            judged = Judged(trial, dict(values), games, seed, stage)
            out.append(judged)
            try:
                for players, policy in self.tune.settings:
                    self.tune.config(values, players, policy, games=games, seed=seed)
            except ConfigError as err:
                judged.invalid = str(err)
                continue
            for players, policy in self.tune.settings:
                key = self._key(values, players, policy, games, seed)
                stored = self._stored(key)
                if stored is not None:
                    judged.rows[(players, policy)] = stored
                else:
                    wanted.setdefault(key, ((values, players, policy, games, seed), []))[1].append(
                        (judged, (players, policy)))
        keys = list(wanted)
        for i, row in evaluate_many(self.tune, [wanted[k][0] for k in keys], self.cluster):
            # Kept as each is played: a tune stopped in the middle of a batch plays only the rest again.
            write_text_atomically(self._path(keys[i]), json.dumps({"key": keys[i], "row": row}))
            _, players, _, games, _ = wanted[keys[i]][0]
            # With the skill-gap duels a target names, each deal played from every seat.
            self.played_games += games + len(skill_duels(self.tune)) * duel_deals(games, players) * players
            if self.on_play is not None:
                self.on_play(games)
            for judged, setting in wanted[keys[i]][1]:
                judged.rows[setting] = row
        for judged in out:  # the rows in the settings' order, however they were played
            if judged.invalid is None:
                judged.rows = {s: judged.rows[s] for s in self.tune.settings}
        return out

    def decided(self, values: Mapping[str, Any], play) -> dict[str, dict[str, dict[str, Any]]]:
        """The final replay's targets judged game by game for ``values``: kept like an evaluation, so that a tune
        run again plays them no more; else ``play(values)`` -> (decided, games played)."""
        key = json.dumps({"decided": self.tune.rules_table(values), "settings": [list(s) for s in self.tune.settings],
                          "targets": [t.as_dict() for t in self.tune.targets], "seed": self.tune.final_seed,
                          "max_games": self.tune.max_games}, sort_keys=True)
        stored = self._stored(key)
        if stored is not None:
            return stored
        decided, played = play(values)
        write_text_atomically(self._path(key), json.dumps({"key": key, "row": decided}))
        self.played_games += played
        return decided

    def _key(self, values: Mapping[str, Any], players: int, policy: str, games: int, seed: int) -> str:
        rules = self.tune.rules_table(values)
        return json.dumps({"rules": rules, "players": players, "policy": policy, "games": games, "seed": seed},
                          sort_keys=True)

    def _path(self, key: str) -> Path:
        return self.dir / f"{hashlib.sha256(key.encode()).hexdigest()[:24]}.json"

    def _stored(self, key: str) -> dict[str, Any] | None:
        """The row kept for ``key``, if a tune before played it (and counted as reused)."""
        path = self._path(key)
        if path.is_file():
            try:
                stored = json.loads(path.read_text(encoding="utf-8"))
                if stored["key"] == key:
                    self.reused += 1
                    return stored["row"]
            except (OSError, ValueError, KeyError):
                pass  # a file a killed tune could not finish: play it again
        return None
