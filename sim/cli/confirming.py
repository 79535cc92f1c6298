"""``lvsim confirm``: play a rule set until every target of a tune file is met or missed."""

from __future__ import annotations

import json
import math
import sys

import click

from sim.cli.common import (
    FloatRange, GivenPath, IntRange, cluster_options, comma_list_option, dry_run_option, out_dir_option, player_counts,
    threads_option,
)
from sim.cli.group import main
from sim.config import MAX_SEED

# The longest time budget --max-minutes takes: a week.
MOST_MINUTES = 7 * 24 * 60


@main.command()
@click.argument("tune_file", metavar="[FILE]", required=False, type=GivenPath(dir_okay=False))
@click.option("--config", "config_file", type=GivenPath(dir_okay=False), default=None,
              help="Confirm these rules instead of the tune file's base (e.g. the tune's best.toml); alone, "
                   "judge them against stronger players only.")
@comma_list_option("--players", "players", "N", "Player counts to confirm at (default: the tune file's, or the "
                   "config's).")
@click.option("--max-games", type=IntRange(1), default=None,
              help="Most games of the judged policy at each setting (default 5,000,000; at least 1,000, the "
                   "first look). With --config alone it plays only the stronger tables' deals: at most "
                   "--max-slow-games.")
@click.option("--max-slow-games", type=IntRange(0), default=None,
              help="Most games of the stronger tables at each setting (default 200,000; 0 plays none, else at "
                   "least 1,000).")
@click.option("--max-minutes", type=FloatRange(min=0, min_open=True), default=None,
              help="Time budget for the whole confirmation, in minutes (default 10; at least one second, 1/60; at "
                   "most a week, 10,080).")
@click.option("--seed", type=IntRange(0, MAX_SEED), default=None,
              help="Seed of the deals (default: one of the confirmation's own, neither the tune's search nor "
                   "its final replay).")
@threads_option()
@cluster_options
@out_dir_option("Directory for confirm.json (default: a new reports/<name>-confirm-<time>/).")
@dry_run_option
@click.option("--json", "as_json", is_flag=True, help="Print the confirmation (confirm.json) as one JSON object.")
def confirm(tune_file, config_file, players, max_games, max_slow_games, max_minutes, seed, threads, workers,
            scheduler, out, dry_run, as_json):
    """Play rules until every target is decided: met or missed, at 95% confidence.

    FILE is a tune file: its base config (or --config's rules), its
    [targets], and its [tune] players and policies. At every player count
    and policy, games are played in growing batches until each target's
    interval is inside or outside what is wanted, or the budget ends (then
    the target is undecided, with about how many more games would decide
    it). Stopping once decided keeps the 95%: the intervals are confidence
    sequences, valid however long a run goes on, shared among all the
    targets and settings judged together. The game's strong, slow policy
    (lookahead:16 for Las Vegan) plays the same deals, and every headline
    metric's paired difference is played until it is clearly material or
    clearly not. Exit code 0 when every target is met (with --config alone:
    when every comparison is decided), 1 otherwise.
    """
    from analysis.sequential import FIRST_LOOK
    from sim.cluster import cluster_shape, open_cluster
    from sim.confirm import confirm as play, confirm_text, default_seed, load_confirmation, passed
    from sim.confirm.running import (
        CONFIRM_FILE, DEFAULT_MAX_GAMES, DEFAULT_MAX_MINUTES, DEFAULT_MAX_SLOW_GAMES, check_something_to_judge, plan,
    )
    from sim.errors import ConfigError, counted

    counts = player_counts(players)
    for option, most in (("--max-games", max_games), ("--max-slow-games", max_slow_games)):
        if most and most < FIRST_LOOK:
            zero = " (or 0 to play no stronger table)" if option == "--max-slow-games" else ""
            raise ConfigError(option, f"{counted(most, 'game')} can never decide: the first look is at "
                                      f"{FIRST_LOOK:,} games; give {FIRST_LOOK:,} or more{zero}")
    if max_minutes is not None and not math.isfinite(max_minutes):
        raise ConfigError("--max-minutes", f"must be a finite number of minutes, got {max_minutes}")
    if max_minutes is not None and max_minutes > MOST_MINUTES:
        raise ConfigError("--max-minutes", f"must be at most {MOST_MINUTES:,} (a week), got {max_minutes:g}")
    if max_minutes is not None and max_minutes * 60 < 1:  # it would stop before its first look
        raise ConfigError("--max-minutes", f"{max_minutes:g} minutes is less than a second; give at least "
                                           f"{1 / 60:.3f} (one second)")
    spec = load_confirmation(tune_file, config_file, counts, threads=threads)
    seed = default_seed(spec) if seed is None else seed
    budget = {"max_games": max_games or DEFAULT_MAX_GAMES,
              "max_slow_games": DEFAULT_MAX_SLOW_GAMES if max_slow_games is None else max_slow_games,
              "max_minutes": max_minutes or DEFAULT_MAX_MINUTES}
    check_something_to_judge(spec, budget["max_slow_games"])
    from sim.runner import check_out_dir, default_out_dir, out_path

    # The real run's refusals, made by the dry run too: the output directory, then the cluster's options.
    out_dir = default_out_dir(f"{spec.name}-confirm") if out is None else out_path(out)
    check_out_dir(out_dir)
    if dry_run:
        cluster_shape(workers=workers, scheduler=scheduler)
        found = plan(spec, seed=seed, **budget)
        click.echo(json.dumps(found) if as_json else found["text"])
        return
    from sim.errors import and_listed
    from sim.reference import unlike_the_kernel, unlike_warning
    from sim.runner import staged_directory, warn_about_partial_runs

    progress = sys.stderr.isatty()
    warn_about_partial_runs(out_dir)
    # Built in a staging directory renamed into place, as lvsim run's results: nothing is half-written, and a
    # directory that is not empty is never written into.
    with staged_directory(out_dir) as staging:
        with open_cluster(workers=workers, scheduler=scheduler) as cluster:
            result = play(spec, seed=seed, cluster=cluster, progress=progress,
                          say=lambda line: click.echo(line, err=True), **budget)
            # Each table's first game as the cluster plays it, kept to be played again by the reference engine
            # once the verdicts are written and shown: they come from the jitted core alone.
            tables = [(f"{players} players with {policy}", spec.config({}, players, policy, seed=seed))
                      for players, policy in spec.settings]
            first_games = [next(iter(cluster.play(table, 0, 1)))[0] for _, table in tables]
        result["out"] = str(out_dir)
        (staging / CONFIRM_FILE).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if as_json:
        click.echo(json.dumps(result))
    else:
        click.echo(confirm_text(result, spec.game))
        click.echo(f"Written: {out_dir / CONFIRM_FILE}")
    unlike = [name for (name, table), recorded in zip(tables, first_games)
              if unlike_the_kernel(spec.game, table.rules, seed, table.seat_policies, (0,),
                                   [{field: values[0] for field, values in recorded.items()}])]
    if unlike:
        click.echo(unlike_warning([0], f"the table{'s' if len(unlike) > 1 else ''} of {and_listed(unlike)}"),
                   err=True)
    click.get_current_context().exit(0 if passed(result) else 1)
