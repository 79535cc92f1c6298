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
games). The sampler proposes candidates in batches (``SEARCH_BATCH``),
played together, so that a cluster's workers are all busy; the halving's
rungs and the final replay's rounds are batches too. The promising third of the candidates is played again with three
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
    domain_size,
    report_settings,
)
from sim.tune.targets import CORRECTED_COLUMNS, RELATIVE, Target, setting_name, watched_value
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
)
from sim.tune.tunefile import NOT_METRICS, load_tune, metric_names, tune_from_mapping
from sim.tune.verdict import SEAT_MARGIN, policies_apart, rule_hole_table, side_effects, watched_metrics

__all__ = [
    "BEST_FILE", "BEST_RUN_DIR", "CANDIDATES_FILE", "CORRECTED_COLUMNS", "DEFAULT_FINALISTS",
    "DEFAULT_MAX_GAMES_FACTOR", "DEFINITION_FILE", "EVALS_DIR", "FINAL_GROWTH", "HALVING", "IN_PROCESS",
    "JOURNAL_FILE", "LOCK_FILE", "NOT_METRICS", "RELATIVE", "REPORT_FILE", "RESULT_FILE", "SEAT_MARGIN", "STATE_DIR",
    "ConfigError", "Dimension", "Judged", "Target", "Tune", "TuneResults", "all_met", "answer", "best_setting",
    "candidates_table", "describe", "domain_size", "evaluate", "headline", "headline_parts", "load_tune",
    "metric_names", "plan_text", "plan_tune", "policies_apart", "policies_apart_words", "report_settings",
    "rule_hole_table", "run_tune", "search_score", "setting_name", "shortfall_words", "side_effect_words",
    "side_effects", "skill_duels", "tune", "tune_from_mapping", "tune_text", "unfinished_tune_dir",
    "watched_metrics", "watched_value",
]
