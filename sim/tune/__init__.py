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

:func:`tune` searches with Optuna's TPE sampler, every candidate played on
the tune's seed (the same deals for all), narrows the best by successive
halving, and replays the finalists and the base rules on a fresh seed
until every target is decided (``search`` says how). Candidates that meet
every target are ranked by how little they change the base rules, the
others by their total shortfall. Every evaluation is kept in the tune's
``state/`` as it finishes: a tune killed at any moment and run again with
the same command ends with the results an uninterrupted one gives.

The modules, each with one job: ``targets`` (a target and how a value meets
it), ``spec`` (a checked tune and what a candidate changes), ``tunefile``
(reading and checking the tune file), ``evaluation`` (playing candidates,
kept as each finishes), ``search`` (the sampler, simplification, halving,
final replay), ``verdict`` (side effects, policies apart, rule holes),
``text`` (the words), ``answer`` (``tune.json``'s answer, the candidates
table), ``best`` (``best.toml`` and its reports), ``directory`` (the tune's
files and resuming), ``running`` (:func:`tune`), ``plan`` (the dry run).
"""

from sim.errors import ConfigError
from sim.runner import IN_PROCESS
from sim.tune.answer import answer, candidates_table
from sim.tune.best import best_setting
from sim.tune.directory import (
    BEST_FILE,
    BEST_RUN_DIR,
    CANDIDATES_FILE,
    DEFINITION_FILE,
    EVALS_DIR,
    JOURNAL_FILE,
    LOCK_FILE,
    REPORT_FILE,
    RESULT_FILE,
    STATE_DIR,
    TuneResults,
    unfinished_tune_dir,
)
from sim.tune.evaluation import Judged, evaluate, search_score, skill_duels
from sim.tune.evaluation import _Evaluations as _Evaluations
from sim.tune.plan import plan_text, plan_tune
from sim.tune.running import run_tune, tune
from sim.tune.search import _simplify as _simplify
from sim.tune.spec import (
    DEFAULT_FINALISTS,
    DEFAULT_MAX_GAMES_FACTOR,
    FINAL_GROWTH,
    HALVING,
    Dimension,
    Tune,
)
from sim.tune.targets import CORRECTED_COLUMNS, RELATIVE, Target, setting_name, target_style, watched_value
from sim.tune.targets import _target as _target
from sim.tune.text import (
    all_met,
    describe,
    headline,
    headline_parts,
    policies_apart_words,
    shortfall_words,
    side_effect_words,
    tune_text,
    value_ci,
)
from sim.tune.tunefile import NOT_METRICS, load_tune, metric_names, tune_from_mapping
from sim.tune.verdict import SEAT_MARGIN, policies_apart, rule_hole_table, side_effects, watched_metrics

__all__ = [
    "BEST_FILE", "BEST_RUN_DIR", "CANDIDATES_FILE", "CORRECTED_COLUMNS", "DEFAULT_FINALISTS",
    "DEFAULT_MAX_GAMES_FACTOR", "DEFINITION_FILE", "EVALS_DIR", "FINAL_GROWTH", "HALVING", "IN_PROCESS",
    "JOURNAL_FILE", "LOCK_FILE", "NOT_METRICS", "RELATIVE", "REPORT_FILE", "RESULT_FILE", "SEAT_MARGIN", "STATE_DIR",
    "ConfigError", "Dimension", "Judged", "Target", "Tune", "TuneResults", "all_met", "answer", "best_setting",
    "candidates_table", "describe", "evaluate", "headline", "headline_parts", "load_tune",
    "metric_names", "plan_text", "plan_tune", "policies_apart", "policies_apart_words",
    "rule_hole_table", "run_tune", "search_score", "setting_name", "shortfall_words", "side_effect_words",
    "side_effects", "skill_duels", "target_style", "tune", "tune_from_mapping", "tune_text",
    "unfinished_tune_dir", "value_ci", "watched_metrics", "watched_value",
]
