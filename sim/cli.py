"""The ``lvsim`` command: a thin click layer over the library.

Every command parses its options, calls one library function and prints.
Expected failures (bad config, bad script, missing file) print one line on
stderr and exit with code 2, never a traceback.
"""

from __future__ import annotations

import functools
import json
import sys

import click

from sim import __version__
from sim.errors import ConfigError, ScriptError
from sim.lasvegan.enums import MAX_PLAYERS, MIN_PLAYERS

EXIT_BAD_INPUT = 2


def friendly_errors(fn):
    """Turn the errors a user can cause into one line and exit code 2."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (ConfigError, ScriptError) as err:
            click.echo(f"error: {err}", err=True)
            sys.exit(EXIT_BAD_INPUT)
        except FileNotFoundError as err:
            click.echo(f"error: file not found: {err.filename or err}", err=True)
            sys.exit(EXIT_BAD_INPUT)

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="lvsim")
def main():
    """Monte Carlo rules-balance simulator for Las Vegan.

    Run batches of games from TOML configs, replay a game given by hand,
    and measure the jitted core's speed.
    """


@main.command()
@click.argument("config", required=False, type=click.Path(dir_okay=False))
@click.option("--games", type=click.IntRange(1), default=None, help="Games to play (overrides run.games).")
@click.option("--seed", type=click.IntRange(0), default=None, help="Base seed (overrides run.seed).")
@click.option(
    "--players",
    type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS),
    default=None,
    help="Player count (overrides rules.players; the rules are checked again for it).",
)
@click.option(
    "--threads",
    type=click.IntRange(1),
    default=None,
    help="Worker threads (overrides run.threads; default: all cores). Never changes the results.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Results directory; must be new or empty (default: reports/<config name>-<timestamp>/).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object instead of a table.")
@friendly_errors
def run(config, games, seed, players, threads, out, as_json):
    """Play the games of CONFIG, print a summary and write the results.

    CONFIG is a TOML experiment file (default: configs/default.toml, the
    rulebook game at 4 players with random policies). The results
    directory gets the per-game records (records.parquet), the resolved
    config (config.toml), the summary (summary.json) and what is needed to
    reproduce the run (meta.json).
    """
    from analysis.summary import summary_table
    from sim.config import default_config, load_config
    from sim.runner import DEFAULT_OUT
    from sim.runner import run as run_config

    cfg = load_config(config) if config else default_config()
    cfg = cfg.with_overrides(games=games, seed=seed, players=players, threads=threads)
    results = run_config(cfg, out=DEFAULT_OUT if out is None else out)
    if as_json:
        click.echo(json.dumps(results.summary))
        return
    click.echo(summary_table(results.summary))
    files = ", ".join(sorted(p.name for p in results.out_dir.iterdir()))
    click.echo(f"\nResults in {results.out_dir}/ ({files})")


@main.command()
@click.argument("script", type=click.Path(dir_okay=False))
@friendly_errors
def replay(script):
    """Play the hand-scripted game in SCRIPT (JSON) and print its trace as JSON.

    The script gives, for each round, the machines, token faces, hands and
    every card played and token placed; the reference engine checks every
    move against the rules. An illegal or inconsistent script exits with
    code 2 and one line naming the round, trick, seat and rule.
    """
    from sim.lasvegan.replay import replay_path

    trace = replay_path(script)
    click.echo(json.dumps(trace))


@main.command()
@click.option("--players", type=click.IntRange(2, 5), default=4, show_default=True, help="Player count.")
@click.option("--policy", default="random", show_default=True, help="Policy for every seat (e.g. random, greedy).")
@click.option("--games", type=click.IntRange(1), default=1_000_000, show_default=True, help="Games to time.")
@click.option("--threads", type=click.IntRange(1), default=None, help="Threads (default: all cores).")
@click.option("--seed", type=int, default=1, show_default=True, help="Base seed.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@friendly_errors
def bench(players, policy, games, threads, seed, as_json):
    """Time the jitted core alone: no file output, compilation excluded."""
    from sim.lasvegan.bench import bench_core

    result = bench_core(players=players, policy=policy, games=games, threads=threads, seed=seed)
    if as_json:
        click.echo(json.dumps(result))
    else:
        click.echo(
            f"{result['games']:,} games at {players} players ({policy}), {result['threads']} threads: "
            f"{result['seconds']:.2f} s, {result['games_per_second']:,.0f} games/s"
        )


if __name__ == "__main__":
    main()
