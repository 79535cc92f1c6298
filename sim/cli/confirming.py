"""``lvsim confirm``: play a rule set until every target of a tune file is met or missed."""

from __future__ import annotations

import json
import sys

import click

from sim.cli.common import IntRange, cluster_options, comma_list_option, dry_run_option, out_dir_option, threads_option
from sim.cli.group import main
from sim.config import MAX_SEED


@main.command()
@click.argument("tune_file", metavar="[FILE]", required=False, type=click.Path(dir_okay=False))
@click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
              help="Confirm these rules instead of the tune file's base (e.g. the tune's best.toml); alone, "
                   "judge them against stronger players only.")
@comma_list_option("--players", "players", "N", "Player counts to confirm at (default: the tune file's, or the "
                   "config's).")
@click.option("--max-games", type=IntRange(1), default=None,
              help="Most games of the judged policy at each setting (default 5,000,000).")
@click.option("--max-slow-games", type=IntRange(0), default=None,
              help="Most games of the stronger tables at each setting (default 200,000; 0 plays none).")
@click.option("--max-minutes", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Time budget for the whole confirmation (default 10).")
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
    clearly not. Exit code 0 when every target is met, 1 otherwise.
    """
    from sim.cluster import open_cluster
    from sim.confirm import confirm as play, confirm_text, default_seed, load_confirmation
    from sim.confirm.running import DEFAULT_MAX_GAMES, DEFAULT_MAX_MINUTES, DEFAULT_MAX_SLOW_GAMES, plan
    from sim.errors import ConfigError

    counts = None
    if players is not None:
        try:
            counts = tuple(int(p) for p in players.split(","))
        except ValueError:
            raise ConfigError("--players", f"must be player counts separated by commas, got {players!r}") from None
    spec = load_confirmation(tune_file, config_file, counts, threads=threads)
    seed = default_seed(spec) if seed is None else seed
    budget = {"max_games": max_games or DEFAULT_MAX_GAMES,
              "max_slow_games": DEFAULT_MAX_SLOW_GAMES if max_slow_games is None else max_slow_games,
              "max_minutes": max_minutes or DEFAULT_MAX_MINUTES}
    if dry_run:
        found = plan(spec, seed=seed, **budget)
        click.echo(json.dumps(found) if as_json else found["text"])
        return
    from sim.atomic import write_text_atomically
    from sim.runner import default_out_dir, out_path

    out_dir = default_out_dir(f"{spec.name}-confirm") if out is None else out_path(out)
    progress = sys.stderr.isatty()
    with open_cluster(workers=workers, scheduler=scheduler) as cluster:
        result = play(spec, seed=seed, cluster=cluster, progress=progress,
                      say=lambda line: click.echo(line, err=True), **budget)
    out_dir.mkdir(parents=True, exist_ok=True)
    result["out"] = str(out_dir)
    write_text_atomically(out_dir / "confirm.json", json.dumps(result, indent=2) + "\n")
    if as_json:
        click.echo(json.dumps(result))
    else:
        click.echo(confirm_text(result, spec.game))
        click.echo(f"Written: {out_dir / 'confirm.json'}")
    click.get_current_context().exit(0 if result["all_met"] else 1)
