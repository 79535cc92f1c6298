"""What a tune leaves as data: the answer in ``tune.json`` (the verdict, the recommended rules, the
runners-up, what was watched) and the table of every evaluation, ``candidates.parquet``."""

from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

import sim.tune.text as text
from sim.tune.evaluation import Judged
from sim.tune.spec import Tune
from sim.tune.targets import _finite, _finite_or_none, setting_name
from sim.tune.verdict import policies_apart, rule_hole_table, side_effects, watched_metrics


def answer(tune: Tune, ranked_final: Sequence[Judged], base: Judged) -> dict[str, Any]:
    """What the tune says of its finalists (best first) and the base rules on the fresh seed: the verdict in
    words, the recommendation and runners-up, side effects, policies pulling apart, rule holes."""
    best = ranked_final[0]
    effects = side_effects(tune, best, base)
    apart = policies_apart(tune, best)
    return {
        "verdict": {"all_met": text.all_met(tune, best), "headline": text.headline(tune, best),
                    "headline_parts": list(text.headline_parts(tune, best))},
        "recommendation": _candidate_entry(tune, best),
        "runners_up": [_candidate_entry(tune, j) for j in ranked_final[1:]],
        "base_rules": _candidate_entry(tune, base),
        "side_effects": {"watched": list(watched_metrics(tune)), "worse": effects,
                         "sentence": text.side_effect_words(tune, effects if tune.changes(best.values) else None)},
        "policies_apart": {"apart": apart, "sentence": text.policies_apart_words(apart)},
        "rule_holes": rule_hole_table(tune, best, base),
    }


def _candidate_entry(tune: Tune, j: Judged) -> dict[str, Any]:
    n, amount = tune.change_size(j.values)
    return {
        "trial": j.trial,
        "values": j.values,
        "rules": {c["what"]: c["to"] for c in tune.changes(j.values)},
        "changes": tune.changes(j.values),
        "changed_values": n,
        "change_amount": amount,
        "sentence": text.describe(tune, j.values),
        "all_met": text.all_met(tune, j),
        "status": text.shortfall_words(tune, j),
        "games": j.games,
        "seed": j.seed,
        "shortfall": _finite(j.shortfall(tune)),
        "verdict": j.verdict(tune),
        "verdicts": j.verdicts(tune),
        # Each target's value and 95% interval as judged (``Judged.measured``): the confidence sequence's where
        # the target was played until decided, else the interval of the evaluation at ``games``.
        "metrics": {setting_name(*key): {t.metric: [_finite_or_none(v) for v in j.measured(t, *key)[:3]]
                                         for t in tune.targets} for key in j.rows},
        # The games (a duel's deals) each of those rests on, and whether it was played until decided.
        "rests_on": {setting_name(*key): {t.metric: _rests_on(j.measured(t, *key)) for t in tune.targets}
                     for key in j.rows},
        # Targets judged game by game: played until decided (``sim.confirm``), with the games that took.
        "decided": j.decided,
    }


def _rests_on(m) -> dict[str, Any]:
    return {"games": m.games, "unit": m.unit, "until_decided": m.sequential}


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
            row.update({"changed_values": n, "change_amount": amount, "change": text.describe(tune, j.values, short=True)})
            for t in tune.targets:
                row[f"shortfall_{t.metric}"] = t.shortfall(t.measure(metrics, players)[0])
            row.update({k: v for k, v in metrics.items() if k not in row and k not in ("players", "games", "seed")})
            rows.append(row)
    table = pd.DataFrame(rows)
    for column in table.columns:
        if table[column].dtype == object:
            table[column] = table[column].map(lambda v: v if v is None or isinstance(v, str) else json.dumps(v))
    return table
