"""``lvsim run``, ``lvsim replay`` and ``lvsim bench``: playing games of one config, one script, or the
jitted core alone."""

from __future__ import annotations

import json

import click

from sim.cli.common import (
    GivenPath,
    IntRange,
    _game,
    _rules_for,
    cluster_options,
    config_at,
    dry_run_option,
    game_option,
    out_dir_option,
    players_option,
    threads_option,
)
from sim.cli.group import main
from sim.config import MAX_GAMES, MAX_SEED
from sim.errors import ConfigError, ScriptError, and_listed, counted

# Games `lvsim bench` times by default: a second or so of the fast policies, and of the
# slow ones (a search per move, tens of games a second) a minute, not a day.
BENCH_GAMES = 1_000_000
BENCH_GAMES_SLOW = 1_000


@main.command()
@click.argument("config", required=False, type=GivenPath(dir_okay=False))
@click.option("--games", type=IntRange(1, MAX_GAMES), default=None, help="Games to play (overrides run.games).")
@click.option("--seed", type=IntRange(0, MAX_SEED), default=None, help="Base seed (overrides run.seed).")
@players_option("Player count (overrides rules.players; the rules are checked again for it).")
@threads_option("Worker threads (overrides run.threads; default: all cores). Never changes the results.")
@out_dir_option("Results directory; must be new or empty (default: reports/<config name>-<timestamp>/).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object instead of a table.")
@click.option("--no-report", is_flag=True,
              help="Write no report.html (`lvsim report DIR` writes it later from the results).")
@dry_run_option
@cluster_options
def run(config, games, seed, players, threads, out, as_json, no_report, dry_run, workers, scheduler):
    """Play the games of CONFIG, print a summary and write the results.

    CONFIG is a TOML experiment file; its `game` says which game (default:
    configs/default.toml, the rulebook Las Vegan at 4 players). The results
    directory gets the per-game records (records.parquet), the resolved
    config (config.toml), the summary (summary.json), the report's tallies
    (tally.json), what is needed to reproduce the run (meta.json) and the
    HTML report (report.html). The results are in place before the report
    is written: if it fails, or with --no-report, `lvsim report DIR` writes it.
    """
    from sim.cluster import open_cluster
    from sim.config import default_config, load_config
    from sim.runner import DEFAULT_OUT
    from sim.runner import run as run_config

    if config and players is not None:
        cfg = config_at(config, players)
    else:
        cfg = load_config(config) if config else default_config()
        if players is not None:
            _rules_for(cfg.game_spec, cfg.rules.to_dict(), players)  # a bad count names --players
            cfg = cfg.with_overrides(players=players)
    cfg = cfg.with_overrides(games=games, seed=seed, threads=threads)
    if dry_run:
        from sim.cluster import cluster_shape
        from sim.estimates import plan_run, run_plan_text
        from sim.runner import check_out_dir, out_path

        if out is not None:  # the run's refusals of its --out and its cluster, said by the dry run too
            check_out_dir(out_path(out))
        cluster_shape(workers=workers, scheduler=scheduler)
        plan = plan_run(cfg, report=not no_report)
        click.echo(json.dumps(plan) if as_json else run_plan_text(plan))
        return
    import time

    from sim.decisions import run_plays_decisions

    decided = run_plays_decisions(cfg)  # as run_decisions decides: said before the run and after it
    with open_cluster(workers=workers, scheduler=scheduler) as cluster:
        started = time.perf_counter()
        results = run_config(cfg, out=DEFAULT_OUT if out is None else out, cluster=cluster, report=not no_report,
                             on_played=None if as_json else _say_first_result(cfg, decided, report=not no_report))
        wall = time.perf_counter() - started
    if as_json:
        click.echo(json.dumps(results.summary))
        return
    click.echo(cfg.game_spec.summary_table({**results.summary, "wall_seconds": wall, "decisions_played": decided,
                                            "report_written": results.report_seconds is not None}))
    files = ", ".join(sorted(p.name for p in results.out_dir.iterdir()))
    click.echo(f"\nResults in {results.out_dir}/ ({files})")
    report = results.out_dir / "report.html"
    if report.is_file():
        took = f" (written in {results.report_seconds:.1f} s)" if results.report_seconds is not None else ""
        click.echo(f"Report: {report}{took}")
    elif no_report:
        click.echo(f"No report written (--no-report): lvsim report {results.out_dir} writes it")


def _say_first_result(cfg, decided: bool, report: bool = True):
    """What ``lvsim run`` says as soon as the run's own games are played (on stderr: the whole summary table
    follows on stdout once the rest is done): the summary table's title and win shares, and what is to come."""
    from analysis.common import played_line
    from sim.sensitivity.deviations import run_plan

    rest = [name for wanted, name in ((cfg.skill_gap_deals > 0, "the skill gap"),
                                      (any(cfg.strength_sizes), "the strength profile"),
                                      (run_plan(cfg)[1] > 0, "what moves the verdict"),
                                      (decided, "which decisions matter"),
                                      (report, "the report")) if wanted]
    coming = f"; {and_listed(rest)} follow{'s' if len(rest) == 1 else ''} …" if rest else ""

    def say(summary):
        head = cfg.game_spec.summary_table(summary).split("\n\n")[:2]
        click.echo("\n\n".join(head) + f"\n{played_line(summary, coming)}\n", err=True)

    return say


@main.command()
@click.argument("script", type=GivenPath(dir_okay=False))
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
    """The other game whose replay takes the script ``refused_by`` refused (a --game left out), else None; none
    for a script of no key but those every game's has (``{}`` is an unfinished game of $ Fever's, of no one's in
    particular)."""
    from sim.games import loaded_games
    from sim.scripts import read_script

    try:
        if not set(read_script(script)) - {"players", "rules"}:
            return None
    except ScriptError:
        return None
    for game in loaded_games():
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
@click.option("--players", type=IntRange(1), default=None,
              help="Player count (default: the rulebook's of --game, its players in `lvsim games`).")
@click.option("--policy", default=None,
              help="Policy for every seat (e.g. random, greedy; default: the game's default player, "
              "expert for Las Vegan).")
@click.option("--games", type=IntRange(1), default=None,
              help=f"Games to time (default: {BENCH_GAMES:,}, or {BENCH_GAMES_SLOW:,} with a slow policy such as "
              "lookahead or montecarlo; at most 20,000,000: their records are held in memory).")
@click.option("--threads", type=IntRange(1), default=None,
              help="Threads (default: all cores; more than the machine's cores are not used, and the line says so).")
@click.option("--seed", type=IntRange(0, MAX_SEED), default=1, show_default=True, help="Base seed.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def bench(game_id, players, policy, games, threads, seed, as_json):
    """Time the jitted core alone on the rulebook rules of --game: no file output, compilation excluded."""
    from sim.bench import bench_core

    game = _game(game_id)
    players = game.Rules().players if players is None else players
    rules = _rules_for(game, {}, players)
    policy = game.default_policy if policy is None else policy
    if games is None:
        games = BENCH_GAMES_SLOW if game.is_slow([policy]) else BENCH_GAMES
    result = bench_core(game, rules, policy=policy, games=games, threads=threads, seed=seed)
    if as_json:
        click.echo(json.dumps(result))
        return
    used = counted(result["threads"], "thread")
    if threads is not None and result["threads"] < threads:
        used += f" ({threads:,} asked: at most one a core of this machine)"
    click.echo(f"{game.title}: {counted(result['games'], 'game')} at {counted(players, 'player')} ({policy}), {used}: "
               f"{result['seconds']:.2f} s, {result['games_per_second']:,.0f} games/s")
