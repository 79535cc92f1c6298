"""The ``lvsim`` command: a thin click layer over the library.

Every command parses its options, calls one library function and prints.
Every command runs inside one error boundary (``sim.boundary``, the
group's class): a failure a user can cause prints one line on stderr and
exits with code 2; an unexpected one prints one line saying it is a bug
and where its traceback was written. Never a raw traceback.
"""

from __future__ import annotations

import json
import sys

import click

from sim import __version__
from sim.boundary import EXIT_BAD_INPUT, BoundedGroup  # noqa: F401  (EXIT_BAD_INPUT: part of the CLI's contract)
from sim.config import MAX_GAMES, MAX_SEED
from sim.errors import ConfigError, ScriptError, counted, shown
from sim.games import GAME_IDS

# A duel keeps one number per deal and policy in memory.
MAX_DUEL_GAMES = 100_000_000
# Games `lvsim bench` times by default: a second or so of the fast policies, and of the
# slow ones (a search per move, tens of games a second) a minute, not a day.
BENCH_GAMES = 1_000_000
BENCH_GAMES_SLOW = 1_000


class IntRange(click.IntRange):
    """A whole number within bounds, called an integer in help and refusals ('x' is not a valid integer)."""

    name = "integer"


class FloatRange(click.FloatRange):
    """A number within bounds, called a number in help and refusals ('x' is not a valid number)."""

    name = "number"


def game_option(help_text: str, default: str = "lasvegan; `lvsim games` lists them"):
    """--game ID: the game of a command that reads no config; ``default`` says what no --game means."""
    return click.option(
        "--game", "game_id", type=click.Choice(GAME_IDS), default=None, metavar="ID",
        help=f"{help_text} One of: {', '.join(GAME_IDS)} (default: {default}).",
    )


def _seats_example(game, players: int = 4) -> str:
    """One seat of the game's default player against weaker seats: ``expert,greedy,greedy,greedy``."""
    strong = game.default_policy
    weak = "random" if strong == "greedy" else "greedy"
    return ",".join([strong] + [weak] * (players - 1))


def _game(game_id: str | None):
    from sim.games import get_game

    return get_game(game_id or "lasvegan", field="--game")


def cluster_options(fn):
    """--workers N / --scheduler ADDRESS: where the games are played (never changes the results)."""
    fn = click.option(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="Play on the Dask cluster whose scheduler is at ADDRESS (e.g. tcp://10.0.0.5:8786).",
    )(fn)
    fn = click.option(
        "--workers",
        type=IntRange(1),
        default=None,
        help="Play on N local worker processes (a Dask LocalCluster on 127.0.0.1).",
    )(fn)
    return fn


@click.group(cls=BoundedGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="lvsim")
def main():
    """Monte Carlo rules-balance simulator for a family of tabletop games.

    Las Vegan (the card game, `game = "lasvegan"`), Las Vegas (the dice
    game, `game = "vegas-dice"`) and $ Fever (the slot-machine card game,
    `game = "fever"`): run batches of games from TOML configs
    and read their HTML reports, sweep rule parameters on the same deals,
    search the rules for the smallest change that meets a designer's
    targets, measure how much skill matters with duels, replay a game given by hand,
    and time the jitted core. `lvsim games` lists the games, their rule
    knobs and their policies.
    """
    _stop_on_sigterm()


def _stop_on_sigterm() -> None:
    """Let SIGTERM (``kill``, ``timeout``) stop a command the way Ctrl-C does: cleaning up after itself."""
    import signal
    import threading

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, interrupt)


@main.command()
@click.argument("config", required=False, type=click.Path(dir_okay=False))
@click.option("--games", type=IntRange(1, MAX_GAMES), default=None, help="Games to play (overrides run.games).")
@click.option("--seed", type=IntRange(0, MAX_SEED), default=None, help="Base seed (overrides run.seed).")
@click.option(
    "--players",
    type=IntRange(1),
    default=None,
    help="Player count (overrides rules.players; the rules are checked again for it).",
)
@click.option(
    "--threads",
    type=IntRange(1),
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
@click.option("--dry-run", is_flag=True, help="Say what would be played and the estimated time; play and write nothing.")
@cluster_options
def run(config, games, seed, players, threads, out, as_json, dry_run, workers, scheduler):
    """Play the games of CONFIG, print a summary and write the results.

    CONFIG is a TOML experiment file; its `game` says which game (default:
    configs/default.toml, the rulebook Las Vegan at 4 players). The results
    directory gets the per-game records (records.parquet), the resolved
    config (config.toml), the summary (summary.json), the report's tallies
    (tally.json), what is needed to reproduce the run (meta.json) and the
    HTML report (report.html). The results are in place before the report
    is written: if it fails, `lvsim report DIR` finishes the job.
    """
    from sim.cluster import open_cluster
    from sim.config import default_config, load_config
    from sim.runner import DEFAULT_OUT
    from sim.runner import run as run_config

    if config and players is not None:
        # The file is checked at the count given: a rule may hold only there.
        try:
            cfg = load_config(config, players=players)
        except ConfigError as err:
            if err.field == "policies.seats":
                _check_seats_carry_over(config, players)
            if err.field != "rules.players":
                raise
            raise ConfigError("--players", err.problem) from None  # the count is the option's, not the file's
    else:
        cfg = load_config(config) if config else default_config()
        if players is not None:
            _rules_for(cfg.game_spec, cfg.rules.to_dict(), players)  # a bad count names --players
            cfg = cfg.with_overrides(players=players)
    cfg = cfg.with_overrides(games=games, seed=seed, threads=threads)
    if dry_run:
        from sim.estimates import plan_run, run_plan_text

        plan = plan_run(cfg)
        click.echo(json.dumps(plan) if as_json else run_plan_text(plan))
        return
    import time

    with open_cluster(workers=workers, scheduler=scheduler) as cluster:
        started = time.perf_counter()
        results = run_config(cfg, out=DEFAULT_OUT if out is None else out, cluster=cluster)
        wall = time.perf_counter() - started
    if as_json:
        click.echo(json.dumps(results.summary))
        return
    click.echo(cfg.game_spec.summary_table({**results.summary, "wall_seconds": wall}))
    files = ", ".join(sorted(p.name for p in results.out_dir.iterdir()))
    click.echo(f"\nResults in {results.out_dir}/ ({files})")
    report = results.out_dir / "report.html"
    if report.is_file():
        took = f" (written in {results.report_seconds:.1f} s)" if results.report_seconds is not None else ""
        click.echo(f"Report: {report}{took}")


@main.command()
@click.argument("script", type=click.Path(dir_okay=False))
@game_option("The game the script is a game of.")
def replay(script, game_id):
    """Play the hand-scripted game in SCRIPT (JSON) and print its trace as JSON.

    For Las Vegan the script gives, for each round, the machines, token
    faces, hands and every card played and token placed; for Las Vegas
    (--game vegas-dice) the bill pile and every roll and value chosen; for
    $ Fever (--game fever) the deck's order and every turn's double, play
    and keep. The reference engine checks every move against the rules. An
    illegal or inconsistent script exits with code 2 and one line naming
    where and which rule. docs/replay.md gives every schema.
    """
    game = _game(game_id)
    try:
        trace = game.replay_path(script)
    except (ConfigError, ScriptError) as err:
        other = _game_replaying(script, game)
        if other is None:
            raise
        raise ScriptError(f"{err} (it is a script of {other.title}: give --game {other.id})") from None
    click.echo(json.dumps(trace))


def _game_replaying(script: str, refused_by):
    """The other game whose replay takes the script ``refused_by`` refused (a --game left out), else None."""
    from sim.games import all_games

    for game in all_games():
        if game.id == refused_by.id:
            continue
        try:
            game.replay_path(script)
        except Exception:  # noqa: BLE001  (any refusal: not this game's script either)
            continue
        return game
    return None


@main.command()
@game_option("The game to time.")
@click.option("--players", type=IntRange(1), default=4, show_default=True, help="Player count.")
@click.option("--policy", default=None,
              help="Policy for every seat (e.g. random, greedy; default: the game's default player, "
              "expert for Las Vegan).")
@click.option("--games", type=IntRange(1), default=None,
              help=f"Games to time (default: {BENCH_GAMES:,}, or {BENCH_GAMES_SLOW:,} with a slow policy such as "
              "lookahead or montecarlo; at most 20,000,000: their records are held in memory).")
@click.option("--threads", type=IntRange(1), default=None, help="Threads (default: all cores).")
@click.option("--seed", type=IntRange(0, 2**64 - 1), default=1, show_default=True, help="Base seed.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def bench(game_id, players, policy, games, threads, seed, as_json):
    """Time the jitted core alone on the rulebook rules of --game: no file output, compilation excluded."""
    from sim.bench import bench_core

    game = _game(game_id)
    rules = _rules_for(game, {}, players)
    policy = game.default_policy if policy is None else policy
    if games is None:
        games = BENCH_GAMES_SLOW if game.is_slow([policy]) else BENCH_GAMES
    result = bench_core(game, rules, policy=policy, games=games, threads=threads, seed=seed)
    if as_json:
        click.echo(json.dumps(result))
    else:
        click.echo(
            f"{game.title}: {counted(result['games'], 'game')} at {counted(players, 'player')} ({policy}), "
            f"{result['threads']} thread{'' if result['threads'] == 1 else 's'}: "
            f"{result['seconds']:.2f} s, {result['games_per_second']:,.0f} games/s"
        )



@main.command()
@click.argument("config", required=False, type=click.Path(dir_okay=False))
@game_option("The game, when no CONFIG gives it.")
@click.option(
    "--seats",
    default=None,
    help="Policies, one per seat, comma-separated (e.g. expert,greedy,greedy,greedy). "
    "Default: the config's [policies] seats; without a config, one seat of the game's default player "
    "(expert for Las Vegan) against greedy seats (random ones where greedy is the default).",
)
@click.option(
    "--games",
    type=IntRange(1, MAX_DUEL_GAMES),
    default=1000,
    show_default=True,
    help="Deals to play; each deal is played once per rotation of the seats.",
)
@click.option(
    "--seed", type=IntRange(0, 2**64 - 1), default=None, help="Base seed (default: the config's run.seed, else 1)."
)
@click.option(
    "--players",
    type=IntRange(1),
    default=None,
    help="Player count (default: the config's, else one per policy in --seats).",
)
@click.option(
    "--threads", type=IntRange(1), default=None, help="Worker threads (default: all cores). Never changes the results."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
def duel(config, game_id, seats, games, seed, players, threads, as_json):
    """Play policies against each other on the same deals: how much skill matters.

    Every deal is played once per rotation of the seat list, so each policy
    plays it from every seat it is given and neither the seat nor the deal
    favours anyone. Prints each policy's win share with its 95% confidence
    interval next to its fair share (its seats / players). CONFIG is an
    optional TOML experiment file giving the game and its rules.
    """
    from sim.duel import duel as play_duel
    from sim.duel import duel_table

    seat_list = [s.strip() for s in seats.split(",")] if seats is not None and seats.strip() else None
    if config:
        from sim.config import load_config

        cfg = load_config(config)
        if game_id is not None and game_id != cfg.game:
            raise ConfigError("--game", f"{shown(game_id)} differs from the config's game {shown(cfg.game)}; give one or the other")
        game = cfg.game_spec
        if seats is not None and seat_list is None:
            raise ConfigError("--seats", f"is empty: give one policy per seat, e.g. --seats {_seats_example(game)}")
        rules = cfg.rules
        seed = cfg.seed if seed is None else seed
        if seat_list is None:
            # The config's seats are for its player count: with another one, one policy for
            # every seat carries over, a list does not.
            if players is not None and players != rules.players and not isinstance(cfg.seats, str):
                raise ConfigError(
                    "--players", f"the config lists one policy per seat for {rules.players} players; "
                    f"give --seats for {players}"
                )
            seat_list = list(cfg.seat_policies) if isinstance(cfg.seats, tuple) else None
            if seat_list is None:
                seat_list = [cfg.seats] * (players or rules.players)
    else:
        game = _game(game_id)
        if seats is not None and seat_list is None:
            raise ConfigError("--seats", f"is empty: give one policy per seat, e.g. --seats {_seats_example(game)}")
        rules = game.Rules()
        if seat_list is None:
            seat_list = _seats_example(game, players or rules.players).split(",")
        if players is None:
            players = len(seat_list)
            if not game.min_players <= players <= game.max_players:
                raise ConfigError(
                    "--seats", f"lists {counted(players, 'policy', 'policies')}; a table of {game.title} seats "
                    f"{game.min_players} to {game.max_players}"
                )
    if players is not None and players != rules.players:
        rules = _rules_for(game, rules.to_dict(), players)
    result = play_duel(game, rules, seat_list, games, 1 if seed is None else seed, threads=threads,
                       progress=sys.stderr.isatty(), games_field="--games")
    if as_json:
        for row in result["policies"].values():
            row["win_share_ci"] = [None if x != x else x for x in row["win_share_ci"]]
        click.echo(json.dumps(result))
    else:
        click.echo(f"{game.title}: " + duel_table(result))


def _check_seats_carry_over(config: str, players: int) -> None:
    """Refuse, naming --players, a config whose seat list is one policy per seat of another count."""
    from sim.config import load_config

    try:
        own = load_config(config)
    except ConfigError:
        return  # wrong at its own count too: the file's error stands
    if not isinstance(own.seats, str) and len(own.seats) != players:
        raise ConfigError(
            "--players", f"the config lists one policy per seat for {own.rules.players} players; give "
            f"[policies] seats one policy name for every seat, or a list of {players}"
        )


def _rules_for(game, rules: dict, players: int):
    """The game's rules with ``players`` put in; a count the game does not allow names --players."""
    try:
        return game.Rules.from_mapping({**rules, "players": players})
    except ConfigError as err:
        if err.field != "rules.players":
            raise  # another rule that does not hold at this count names itself
        raise ConfigError("--players", f"{err.problem} for {game.title}") from None


@main.command()
@game_option("Only this game.", default="every game")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object keyed by game id.")
def games(game_id, as_json):
    """List the games: their rule knobs (defaults and values) and their policies.

    A config picks its game with `game = "<id>"` and sets any knob in its
    [rules] table; `policies.seats` takes the policy names.
    """
    from sim.games import all_games, get_game

    chosen = [get_game(game_id)] if game_id else all_games()
    if as_json:
        click.echo(json.dumps({g.id: g.describe() for g in chosen}))
        return
    import textwrap

    def item(name: str, text: str) -> list[str]:
        return textwrap.wrap(text, 100, initial_indent=f"    {name}  ", subsequent_indent=" " * 6)

    blocks = []
    for g in chosen:
        lines = [f"{g.id}: {g.title}, {g.min_players} to {g.max_players} players", "  rules ([rules] keys: default; values)"]
        for name, knob in g.knobs.items():
            lines += item(name, f"{json.dumps(knob.describe()['default'])}; {knob.values_text()}")
        lines.append("  policies ([policies] seats)")
        for name, syntax in g.policy_syntax.items():
            lines += item(syntax, g.policy_descriptions[name])
        blocks.append("\n".join(lines))
    click.echo("\n\n".join(blocks))


@main.command()
@click.argument("results_dir", type=click.Path(file_okay=False))
@click.option(
    "-o", "--out", "out_file", type=click.Path(dir_okay=False), default=None,
    help="HTML file to write (default: RESULTS_DIR/report.html).",
)
def report(results_dir, out_file):
    """Write the HTML balance report of the run in RESULTS_DIR and print its path.

    RESULTS_DIR is a directory written by `lvsim run`, of any game. The
    report is one self-contained HTML file (figures embedded, nothing
    fetched): the headline verdicts, seat and first-player advantage, the
    game's own sections (for Las Vegan: elimination, cabbage swings and
    what drives them, rule holes), skill, example games told move by move,
    and the config with the command that reproduces the run.
    """
    from analysis.report import write_report

    click.echo(write_report(results_dir, out_file))


@main.command()
@click.argument("sweep_file", metavar="SWEEP", type=click.Path(dir_okay=False))
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Sweep directory: new, empty, or that of an interrupted sweep to resume "
    "(default: reports/<sweep name>-<timestamp>/).",
)
@click.option("--games", type=IntRange(1, MAX_GAMES), default=None,
              help="Games per cell (overrides run.games of every cell).")
@click.option("--seed", type=IntRange(0, MAX_SEED), default=None, help="Seed of every cell (overrides run.seed).")
@click.option(
    "--threads", type=IntRange(1), default=None, help="Threads (overrides run.threads). Never changes the results."
)
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
    help="Column of sweep.parquet to sort the cells by (e.g. elimination_rate); -METRIC sorts from the largest.",
)
@click.option(
    "--baseline",
    type=IntRange(0),
    default=0,
    show_default=True,
    metavar="K",
    help="Cell the paired differences are taken from.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the cells and differences as one JSON object.")
def sweep(sweep_file, out, games, seed, threads, workers, scheduler, dry_run, target_ci, max_games, target_metric,
          sort_by, baseline, as_json):
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
    from sim.cluster import open_cluster
    from sim.runner import DEFAULT_OUT
    from sim.sweep import check_options, load_sweep, plan_sweep, plan_text, report_seconds, run_sweep

    swp = load_sweep(sweep_file, games=games, seed=seed, threads=threads)
    check_options(swp, target_ci=target_ci, max_games=max_games, baseline=baseline, sort_by=sort_by,
                  target_metric=target_metric)
    if dry_run:
        plan = plan_sweep(swp, out, target_ci=target_ci, max_games=max_games, target_metric=target_metric)
        report = report_seconds(swp)
        click.echo(json.dumps({"name": swp.name, "seed": swp.seed, "cells": plan, "report_seconds": report})
                   if as_json else plan_text(swp, plan, report))
        return
    with open_cluster(workers=workers, scheduler=scheduler) as cluster:
        results = run_sweep(
            swp, DEFAULT_OUT if out is None else out, cluster=cluster, target_ci=target_ci, max_games=max_games,
            baseline=baseline, sort_by=sort_by, target_metric=target_metric,
            say=lambda line: click.echo(line, err=True),
        )
    if as_json:
        click.echo(json.dumps(results.to_json()))
        return
    click.echo(sweep_text(results.table, results.paired, swp.parameters, game=swp.game, baseline=baseline,
                          sort_by=sort_by))
    resumed = f"; {len(results.resumed)} cells were already played" if results.resumed else ""
    click.echo(f"\nResults in {results.out_dir}/ (sweep.html, sweep.parquet, paired.parquet, cells/){resumed}")


@main.command()
@click.argument("tune_file", metavar="TUNE", type=click.Path(dir_okay=False))
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Tune directory: new, empty, or that of a stopped tune to resume (default: the newest unfinished "
    "reports/<tune name>-*/ of the same tune, else a new reports/<tune name>-<timestamp>/).",
)
@click.option("--budget", type=IntRange(1), default=None, help="Candidates to try (overrides tune.budget).")
@click.option("--games", type=IntRange(2), default=None,
              help="Games per candidate, player count and policy at first (overrides tune.games).")
@click.option("--seed", type=IntRange(0, MAX_SEED), default=None, help="Seed of the search (overrides tune.seed).")
@click.option(
    "--threads", type=IntRange(1), default=None, help="Threads (overrides run.threads). Never changes the results."
)
@cluster_options
@click.option("--dry-run", is_flag=True, help="Say what would be played and the estimated time; play and write nothing.")
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
    from sim.cluster import open_cluster
    from sim.runner import DEFAULT_OUT
    from sim.tune import load_tune, metric_names, plan_text, plan_tune, tune_text
    from sim.tune import tune as run_tune

    spec = load_tune(tune_file, budget=budget, games=games, seed=seed, threads=threads)
    if list_metrics:
        names = metric_names(spec)
        click.echo(json.dumps(names) if as_json else "\n".join(names))
        return
    if dry_run:
        plan = plan_tune(spec, report=not no_report)
        click.echo(json.dumps(plan) if as_json else plan_text(spec, plan))
        return
    with open_cluster(workers=workers, scheduler=scheduler) as cluster:
        results = run_tune(spec, DEFAULT_OUT if out is None else out, cluster=cluster, report=not no_report,
                           say=lambda line: click.echo(line, err=True))
    if as_json:
        click.echo(json.dumps(results.summary, default=str))
        return
    click.echo(tune_text(results))


def entry() -> None:
    """The ``lvsim`` program: :func:`main`, then leave without tearing the interpreter down.

    Once a command has finished, the interpreter's own teardown (freeing the
    compiled game kernels among the rest) takes 0.2 to 0.5 s, longer than
    some whole commands. The exit handlers still run and the output is
    flushed first; only the teardown is skipped, and only when no thread
    other than the main one is still at work (otherwise the usual exit
    waits for it).
    """
    try:
        main()
        code = 0
    except SystemExit as done:
        code = done.code
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    import atexit
    import os
    import threading

    if any(t is not threading.main_thread() and not t.daemon for t in threading.enumerate()):
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the reader went away, or the stream is closed
            pass
    os._exit(code)


if __name__ == "__main__":
    entry()
