"""``lvsim sweep`` and ``lvsim tune``: many rule sets on the same deals, and the search for the smallest
change that meets a designer's targets."""

from __future__ import annotations

import json

import click

from sim.cli.common import (
    FloatRange, GivenPath, IntRange, cluster_options, dry_run_option, out_dir_option, threads_option,
)
from sim.cli.group import main
from sim.config import MAX_GAMES, MAX_SEED


@main.command()
@click.argument("sweep_file", metavar="SWEEP", type=GivenPath(dir_okay=False))
@out_dir_option(
    "Sweep directory: new, empty, or that of an interrupted sweep to resume "
    "(default: reports/<sweep name>-<timestamp>/).",
)
@click.option("--games", type=IntRange(1, MAX_GAMES), default=None,
              help="Games per cell (overrides run.games of every cell).")
@click.option("--seed", type=IntRange(0, MAX_SEED), default=None, help="Seed of every cell (overrides run.seed).")
@threads_option()
@cluster_options
@click.option("--dry-run", is_flag=True, help="List the cells and the estimated time; play and write nothing.")
@click.option(
    "--target-ci",
    type=FloatRange(0, min_open=True),
    default=None,
    metavar="X",
    help="Add games to each cell until its first-player advantage's 95% interval is at most ±X (e.g. 0.005).",
)
@click.option(
    "--max-games",
    type=IntRange(1, MAX_GAMES),
    default=None,
    help="With --target-ci: the most games a cell may play (default: 10 times its games).",
)
@click.option(
    "--target-metric",
    default=None,
    metavar="METRIC",
    help="With --target-ci: the metric whose interval is narrowed (default: first_player_advantage; "
    "e.g. worst_seat_advantage, the seat furthest from its fair share).",
)
@click.option(
    "--sort-by",
    default="cell",
    show_default=True,
    metavar="METRIC",
    help="Column of sweep.parquet to sort the cells by (e.g. first_player_advantage); -METRIC sorts from the largest.",
)
@click.option(
    "--baseline",
    type=IntRange(0),
    default=0,
    show_default=True,
    metavar="K",
    help="Cell the paired differences are taken from.",
)
@click.option("--no-report", is_flag=True,
              help="Write no sweep.html (the same command with the same --out draws it, playing nothing again).")
@click.option("--json", "as_json", is_flag=True, help="Print the cells and differences as one JSON object.")
def sweep(sweep_file, out, games, seed, threads, workers, scheduler, dry_run, target_ci, max_games, target_metric,
          sort_by, baseline, no_report, as_json):
    """Play every cell of the sweep in SWEEP on the same deals and compare them.

    SWEEP is a TOML file: `base = "<config>.toml"` (relative to SWEEP), a
    [sweep] table of dotted keys and the values to try (the cells are
    their grid) and/or [[cells]] tables of dotted keys and values. Every
    cell is checked before anything is played. The sweep directory gets
    each cell's results (cells/<NNN>/), one row per cell with every metric
    and its interval (sweep.parquet), the paired differences from the
    baseline cell (paired.parquet) and the report (sweep.html). Run again
    with the same --out, an interrupted sweep plays only the missing cells.
    """
    from analysis.sweep import sweep_text
    from sim.cluster import cluster_shape, open_cluster
    from sim.errors import and_listed
    from sim.reference import unlike_the_kernel, unlike_warning
    from sim.runner import DEFAULT_OUT, check_creatable, out_path
    from sim.sweep import check_options, load_sweep, plan_sweep, plan_text, report_seconds, run_sweep

    from sim.estimates.compiling import compiled_seconds, compiled_since

    compiled = compiled_seconds()  # loading the sweep may compile already: a dry run counts that too
    swp = load_sweep(sweep_file, games=games, seed=seed, threads=threads)
    check_options(swp, target_ci=target_ci, max_games=max_games, baseline=baseline, sort_by=sort_by,
                  target_metric=target_metric)
    if dry_run:
        if out is not None:
            check_creatable(out_path(out))
        shape = cluster_shape(workers=workers, scheduler=scheduler)
        plan = plan_sweep(swp, out, target_ci=target_ci, max_games=max_games, target_metric=target_metric,
                          cluster=shape)
        report = None if no_report else report_seconds(swp)
        compiled = compiled_since(compiled)
        click.echo(json.dumps({"name": swp.name, "seed": swp.seed, "cells": plan, "report_seconds": report,
                               "compiled_seconds": compiled})
                   if as_json else plan_text(swp, plan, report, cluster=shape, compiled=compiled))
        return

    def answered(results) -> None:
        """The cells and differences, printed as soon as the tables are written, before the report is drawn."""
        click.echo(json.dumps(results.to_json()) if as_json else
                   sweep_text(results.table, results.paired, swp.parameters, game=swp.game, baseline=baseline,
                              sort_by=sort_by))

    with open_cluster(workers=workers, scheduler=scheduler) as cluster:
        results = run_sweep(
            swp, DEFAULT_OUT if out is None else out, cluster=cluster, target_ci=target_ci, max_games=max_games,
            baseline=baseline, sort_by=sort_by, target_metric=target_metric, report=not no_report,
            say=lambda line: click.echo(line, err=True), answered=answered,
        )
    # Every cell's first game played again by the reference engine: the numbers come from the jitted core alone.
    unlike = [cell.name for cell in swp.cells if unlike_the_kernel(cell.config.game_spec, cell.config.rules,
                                                                   cell.config.seed, cell.config.seat_policies)]
    if unlike:
        click.echo(unlike_warning([0], f"cell{'s' if len(unlike) > 1 else ''} {and_listed(unlike)}"), err=True)
    if as_json:
        return
    resumed = f"; {len(results.resumed)} cells were already played" if results.resumed else ""
    from sim.sweep.directory import DEFINITION_FILE

    files = ", ".join([*(["sweep.html"] if results.report is not None else []), "sweep.parquet", "paired.parquet",
                       DEFINITION_FILE, "cells/"])
    click.echo(f"\nResults in {results.out_dir}/ ({files}){resumed}")
    if no_report:
        click.echo(f"No sweep.html written (--no-report): the same command with --out {results.out_dir} and without "
                   "--no-report draws it, playing nothing again")


@main.command()
@click.argument("tune_file", metavar="TUNE", type=GivenPath(dir_okay=False))
@out_dir_option(
    "Tune directory: new, empty, or that of a stopped tune to resume (default: the newest unfinished "
    "reports/<tune name>-*/ of the same tune, else a new reports/<tune name>-<timestamp>/).",
)
@click.option("--budget", type=IntRange(1), default=None, help="Candidates to try (overrides tune.budget).")
@click.option("--games", type=IntRange(2), default=None,
              help="Games per candidate, player count and policy at first (overrides tune.games).")
@click.option("--seed", type=IntRange(0, MAX_SEED), default=None, help="Seed of the search (overrides tune.seed).")
@threads_option()
@cluster_options
@dry_run_option
@click.option("--metrics", "list_metrics", is_flag=True, help="List the metrics a target may name, and stop.")
@click.option("--no-report", is_flag=True, help="Write no tune.html and play no balance report of the recommended rules.")
@click.option("--json", "as_json", is_flag=True, help="Print the result (tune.json) as one JSON object.")
def tune(tune_file, out, budget, games, seed, threads, workers, scheduler, dry_run, list_metrics, no_report, as_json):
    """Search the rules for the smallest change to the base config that meets the targets in TUNE.

    TUNE is a TOML file: `base = "<config>.toml"` (relative to TUNE), a
    [search] table of knobs and their domains (`{ faces = [lo, hi] }` for
    every integer of a knob, a list of choices, `"rules.tokens[2]"` for one
    token), a [targets] table of summary metrics (a range `[lo, hi]`, or
    `{ min = x }`, `{ max = x }`, `{ near = x }`) and a [tune] table
    (players, policies, budget, games, seed). Every candidate plays the same
    deals; the best are replayed on a fresh seed until each target is met,
    missed or the most games allowed. The tune directory gets
    candidates.parquet, best.toml, tune.json and tune.html. Stopped at any
    moment, the same command continues where it stopped.
    """
    from sim.cluster import cluster_shape, open_cluster
    from sim.runner import DEFAULT_OUT, check_creatable, out_path
    from sim.tune import load_tune, metric_names, plan_text, plan_tune, tune_text
    from sim.tune import tune as run_tune
    from sim.tune.running import reports_text

    spec = load_tune(tune_file, budget=budget, games=games, seed=seed, threads=threads)
    if list_metrics:
        names = metric_names(spec)
        click.echo(json.dumps(names) if as_json else "\n".join(names))
        return
    if dry_run:
        if out is not None:
            check_creatable(out_path(out))
        plan = plan_tune(spec, report=not no_report, cluster=cluster_shape(workers=workers, scheduler=scheduler))
        click.echo(json.dumps(plan) if as_json else plan_text(spec, plan))
        return
    # The verdict is printed as soon as the answer is written, before the reports are drawn: a report that
    # fails or takes long never keeps it from the screen.
    answered = None if as_json else (lambda results: click.echo(tune_text(results)))
    with open_cluster(workers=workers, scheduler=scheduler) as cluster:
        results = run_tune(spec, DEFAULT_OUT if out is None else out, cluster=cluster, report=not no_report,
                           say=lambda line: click.echo(line, err=True), answered=answered)
    if as_json:
        click.echo(json.dumps(results.summary, default=str))
        return
    if not no_report:
        click.echo(reports_text(results))
