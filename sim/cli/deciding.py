"""``lvsim decisions``: which kinds of decision carry the skill — each made at random by one seat in turn."""

from __future__ import annotations

import json
import sys

import click

from sim.cli.common import (
    GivenPath, IntRange, _rules_for, config_at, dry_run_option, out_dir_option, players_option, threads_option,
)
from sim.cli.group import main
from sim.config import MAX_SEED
from sim.errors import ConfigError, counted

# Restricted play keeps two numbers per deal in memory.
MAX_DECISION_GAMES = 10_000_000


@main.command()
@click.argument("config", type=GivenPath(dir_okay=False))
@players_option("Player count (default: the config's).")
@click.option("--games", type=IntRange(1, MAX_DECISION_GAMES), default=2000, show_default=True,
              help="Deals to play; each kind of decision is restricted at every seat in turn on these deals.")
@click.option("--seed", type=IntRange(0, MAX_SEED), default=None,
              help="Base seed (default: the config's run.seed).")
@click.option("--seats", default=None,
              help="The table's policies, one for every seat or one per seat, comma-separated (default: the "
                   "config's [policies] seats).")
@threads_option("Worker threads (default: all cores). Never changes the results.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@out_dir_option("Also write decisions.json into this directory, new or empty (created if missing).")
@dry_run_option
def decisions(config, players, games, seed, seats, threads, as_json, out, dry_run):
    """Which decisions matter: each kind of decision made at random, one seat at a time.

    For each kind of decision the game declares (Las Vegan: lead, follow,
    token, golden), one seat plays the table's policy but makes decisions of
    that kind uniformly at random among the legal options; every seat takes
    that role in turn, on the same deals as the unrestricted table. Prints
    the win share each restriction costs (paired deal by deal, with its 95%
    interval), how often the kind offers more than one option, how often the
    game's slow policy decides alike, and which kind carries the most skill
    and which are near-free. CONFIG is a TOML experiment file.
    """
    from sim.config import load_config
    from sim.decisions import decisions as play
    from sim.decisions import decisions_table, restricted_tables, unlike_restricted
    from sim.reference import unlike_the_kernel, unlike_warning

    # Read at the count given, so that a rule holding only there (a deck that deals it) is judged there; a
    # config's seat list of another count is left to --seats when it is given.
    per_seat = players is not None and seats is not None and _lists_seats(config)
    cfg = config_at(config, players) if players is not None and not per_seat else load_config(config)
    game, rules = cfg.game_spec, cfg.rules
    if players is not None and players != rules.players:
        if seats is None and not isinstance(cfg.seats, str):
            raise ConfigError("--players", f"the config lists one policy per seat for {rules.players} players; "
                                           f"give --seats for {players}")
        rules = _rules_for(game, rules.to_dict(), players)
    if seats is not None:
        seat_list = [s.strip() for s in seats.split(",")]
        if not any(seat_list):
            raise ConfigError("--seats", "is empty: give one policy for every seat, or one per seat")
        table = seat_list[0] if len(seat_list) == 1 else seat_list
    else:
        table = cfg.seats if isinstance(cfg.seats, str) else list(cfg.seat_policies)
    seed = cfg.seed if seed is None else seed
    out_dir = None
    if out is not None:  # refused now, by the dry run too, rather than after the games
        from sim.runner import check_out_dir, out_path

        out_dir = out_path(out)
        check_out_dir(out_dir)
    if dry_run:
        from sim.decisions import kinds_played

        from sim.decisions import seconds_of
        from sim.estimates.compiling import compiled_seconds, compiled_since
        from sim.estimates.costs import about_text, band, compiled_text

        plan = kinds_played(game, rules, table, games)
        plan["seed"] = seed
        # What compiles is said to stderr as for every command (sim.cli.group), once.
        before = compiled_seconds()
        seconds = band(seconds_of(game, rules, table, games, seed, threads))
        compiled = compiled_since(before)
        plan["seconds"] = list(seconds)
        if as_json:
            click.echo(json.dumps(plan))
            return
        from sim.wording import wrapped

        click.echo(wrapped(f"{game.title} at {counted(rules.players, 'player')}: {plan['text']}."))
        for line in compiled_text(compiled, "command"):
            click.echo(line)
        click.echo(about_text(seconds))
        return
    result = play(game, rules, games, seed, seats=table, threads=threads, progress=sys.stderr.isatty())
    if out is not None:
        from sim.runner import staged_directory

        # Built in a staging directory renamed into place, as lvsim run's results: a run's own decisions.json, or
        # any directory that is not empty, is never written over.
        with staged_directory(out_dir) as staging:
            (staging / "decisions.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if as_json:
        click.echo(json.dumps(result))
    else:
        click.echo(decisions_table(result, game.title))
        if out is not None:
            click.echo(f"Written: {out_dir / 'decisions.json'}")
    # Once the answer is written and shown: the numbers come from the jitted core alone, and its first deal, played
    # again by the reference engine, vouches for them.
    unlike = unlike_the_kernel(game, rules, seed, result["seats"])
    if unlike:
        click.echo(unlike_warning(unlike, "this unrestricted table"), err=True)
    restricted = unlike_restricted(game, rules, result["seats"], seed)
    if restricted:  # and of each restricted table, the restricted player's own code included
        click.echo(unlike_warning([0], restricted_tables(restricted)), err=True)


def _lists_seats(config: str) -> bool:
    """Whether the config file lists one policy per seat (False when it cannot be read at its own count)."""
    from sim.config import load_config

    try:
        return not isinstance(load_config(config).seats, str)
    except ConfigError:
        return False
