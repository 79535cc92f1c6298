"""The search: Optuna's TPE sampler proposing candidates, the simplification of the best, successive halving,
and the final replay on a fresh seed.

Every candidate of the search is played on the same deals (the tune's
seed: common random numbers), so that candidates are compared on the same
games. The final replay's targets with a value in each game are judged as
``lvsim confirm`` judges them, on confidence sequences, so that stopping
once decided does not inflate their error. Every batch (the sampler's
``SEARCH_BATCH`` candidates, the halving's rungs, the final replay's
rounds) is played at once, so a cluster's workers are all busy. The
sampler of each trial is seeded by the tune's seed, the trial and the
dimension, and keeps its trials in a journal in the tune's directory: a
stopped search continues to the candidates an uninterrupted one tries.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any, Iterable, Mapping

from sim.tune.directory import JOURNAL_FILE
from sim.tune.evaluation import Judged, _Evaluations, search_score
from sim.tune.spec import FINAL_GROWTH, HALVING, MAX_TRIALS_FACTOR, SEARCH_BATCH, Tune
from sim.tune.text import describe


def _study(tune: Tune, state: Path):
    import optuna
    from optuna.storages.journal import JournalFileBackend, JournalStorage
    from optuna.storages.journal._file import BaseJournalFileLock

    class DirectoryLock(BaseJournalFileLock):
        """None needed: the tune directory is locked as a whole (one tune at a time)."""

        def acquire(self) -> bool:
            return True

        def release(self) -> None:
            pass

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    _cut_a_half_written_line(state / JOURNAL_FILE)
    storage = JournalStorage(JournalFileBackend(str(state / JOURNAL_FILE), lock_obj=DirectoryLock()))
    return optuna.create_study(study_name=tune.name, storage=storage, direction="minimize",
                               sampler=_sampler(tune, 0, 0), load_if_exists=True)


def _cut_a_half_written_line(journal: Path) -> None:
    """Cut the journal's last line if a tune killed as it appended it left it half-written: Optuna would read the
    next line appended as part of it, one broken record, and refuse the journal from there. The tune goes on as
    if it had been killed just before that line."""
    try:
        with open(journal, "rb+") as f:
            written = f.read()
            if written and not written.endswith(b"\n"):
                f.truncate(written.rfind(b"\n") + 1)
    except FileNotFoundError:
        pass


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
            values[d.name] = trial.suggest_int(d.name, d.low, d.high, step=d.step)
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
    wanted = min(tune.budget, tune.domain_size())
    seen: set[str] = set()
    number = 0
    limit = MAX_TRIALS_FACTOR * tune.budget
    while len(seen) < wanted and number < limit:
        # A batch of trials asked before any is told; resumed, the trials of a stopped batch are taken as
        # they were asked, so the batches, and the trials, are those of an uninterrupted search.
        size = min(SEARCH_BATCH, wanted - len(seen), limit - number)
        trials = study.get_trials(deepcopy=False)
        batch = []  # (trial number, the trial to tell or None when told already, values)
        for k in range(number, number + size):
            frozen = trials[k] if k < len(trials) else None
            if frozen is not None and frozen.state == TrialState.COMPLETE:
                batch.append((k, None, _values_of(tune, frozen.params)))
                continue
            if frozen is not None and frozen.state == TrialState.RUNNING:
                trial = optuna.trial.Trial(study, frozen._trial_id)  # asked, not told: a tune stopped here
            else:
                trial = study.ask()  # a new trial, or the base rules, enqueued
            batch.append((trial.number, trial, _suggest(study, trial, tune)))
        results = evals.judge_many([(k, values, tune.games, tune.seed, "search") for k, _, values in batch])
        for (_, trial, _), result in zip(batch, results):
            if trial is not None:
                study.tell(trial, search_score(tune, result))
            judged.append(result)
            _bar_step(bar, tune, judged, seen)
        number += size
    return judged


def _values_of(tune: Tune, params: Mapping[str, Any]) -> dict[str, Any]:
    return {d.name: json.loads(params[d.name]) if d.choices is not None else params[d.name] for d in tune.dims}


def _key(values: Mapping[str, Any]) -> str:
    return json.dumps(values, sort_keys=True)


def _bar_step(bar, tune: Tune, judged: list[Judged], seen: set[str]) -> None:
    key = _key(judged[-1].values)
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
        key = _key(j.values)
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
    known = {_key(j.values): j for j in ranked}
    # On a cluster every move of a pass is played at once, before the first that keeps the targets met is
    # known; only those the pass reaches, in order, are the simplification's (numbered as they are reached),
    # so the result is the same with or without them.
    ahead: dict[str, Judged] = {}
    out: list[Judged] = []
    trial = first_trial
    for current in [j for j in ranked if j.met(tune)][:tune.finalists]:
        moved = True
        while moved:
            moved = False
            moves = _moves(tune, current.values)
            if evals.cluster.slots > 1:
                new = [(key, values) for key, values in moves if key not in known and key not in ahead]
                for (key, _), j in zip(new, evals.judge_many([(-1, values, tune.games, tune.seed, "simplify")
                                                              for _, values in new])):
                    ahead[key] = j
            for key, values in moves:
                if key not in known:
                    known[key] = ahead.pop(key, None) or evals.judge(trial, values, tune.games, tune.seed, "simplify")
                    known[key].trial = trial
                    out.append(known[key])
                    trial += 1
                    if bar is not None:
                        bar.update(1)
                if known[key].invalid is None and known[key].met(tune):
                    current, moved = known[key], True
                    break
    return out


def _moves(tune: Tune, values: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Each changed value put back to the base's (or, an integer, one of its knob's steps towards it), in the
    search's order."""
    moves = []
    for d in tune.dims:
        value = values[d.name]
        if value == d.base:
            continue
        tries = [d.base]
        if d.choices is None and abs(value - d.base) > d.step:
            tries.append(value + (d.step if d.base > value else -d.step))
        for v in tries:
            moved = {**values, d.name: v}
            moves.append((_key(moved), moved))
    return moves


def _halving(tune: Tune, ranked: list[Judged], evals: _Evaluations, bar) -> tuple[list[Judged], list[Judged]]:
    """Keep the best third, triple their games on the same deals, until ``finalists`` remain; every rung's results."""
    rungs: list[Judged] = []
    games = tune.games
    while len(ranked) > tune.finalists and games * HALVING <= tune.max_games:
        keep = max(tune.finalists, math.ceil(len(ranked) / HALVING))
        games *= HALVING
        promoted = evals.judge_many([(j.trial, j.values, games, tune.seed, f"games x{games // tune.games}")
                                     for j in ranked[:keep]])
        if bar is not None:
            bar.update(len(promoted))
        rungs += promoted
        ranked = sorted(promoted, key=lambda j: j.rank_key(tune))
    return ranked[:tune.finalists], rungs


def _final(tune: Tune, candidates: list[Judged], evals: _Evaluations, bar) -> list[Judged]:
    """Each candidate on the fresh seed, its games growing until every target is decided or ``max_games``.

    The candidates are replayed together, and those still undecided again together at their next games.
    """
    games = [max(c.games, tune.games) for c in candidates]
    out: list[Judged | None] = [None] * len(candidates)
    replaying = list(range(len(candidates)))
    while replaying:
        judged = evals.judge_many([(candidates[i].trial, candidates[i].values, games[i], tune.final_seed, "final")
                                   for i in replaying])
        undecided = []
        for i, j in zip(replaying, judged):
            if "undecided" in j.verdict(tune).values() and games[i] < tune.max_games:
                games[i] = min(tune.max_games, games[i] * FINAL_GROWTH)
                undecided.append(i)
                continue
            out[i] = j
            if bar is not None:
                bar.update(1)
        replaying = undecided
    for j in out:
        if j.invalid is None:
            j.decided = evals.decided(j.values, lambda values: decided_targets(tune, values, evals.cluster))
    return out


def decided_targets(tune: Tune, values, cluster) -> tuple[dict[str, dict[str, dict]], int]:
    """The targets judged game by game (``sim.confirm``), played on the fresh seed until each is decided or
    ``max_games``: metric -> setting -> verdict, estimate, low, high, games, more_games; and the games that
    played (a duel's deals each from every seat). The same games on any machine: no time budget."""
    from sim.confirm.running import FIRST_BATCH, confirm, confirmable

    if not confirmable(tune) or tune.max_games < FIRST_BATCH:
        return {}, 0  # too few games allowed for a sequence's first look: the replay's 95% intervals judge alone
    found = confirm(tune, seed=tune.final_seed, values=values, strict=False, max_games=tune.max_games,
                    max_slow_games=0, max_minutes=math.inf, cluster=cluster)
    out: dict[str, dict[str, dict]] = {}
    for t in found["targets"]:
        out.setdefault(t["metric"], {})[t["setting"]] = {k: t[k] for k in (
            "verdict", "estimate", "low", "high", "games", "more_games")}
    return out, sum(s["judged"] + s["duel_games"] for s in found["games"].values())
