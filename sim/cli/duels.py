"""``lvsim duel``: policies against each other on the same deals, every deal from every seat."""

from __future__ import annotations

import json
import sys

import click

from sim.cli.common import (
    GivenPath, IntRange, _game, _rules_for, _seats_example, game_option, players_option, threads_option,
)
from sim.cli.group import main
from sim.config import MAX_SEED
from sim.errors import ConfigError, counted, shown

# A duel keeps one number per deal and policy in memory.
MAX_DUEL_GAMES = 100_000_000


@main.command()
@click.argument("config", required=False, type=GivenPath(dir_okay=False))
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
    "--seed", type=IntRange(0, MAX_SEED), default=None, help="Base seed (default: the config's run.seed, else 1)."
)
@players_option("Player count (default: the config's, else one per policy in --seats).")
@threads_option("Worker threads (default: all cores). Never changes the results.")
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
    from sim.reference import unlike_the_kernel, unlike_warning

    seat_list = [s.strip() for s in seats.split(",")] if seats is not None and seats.strip() else None
    if config:
        from sim.config import load_config

        cfg = load_config(config)
        if game_id is not None and game_id != cfg.game:
            raise ConfigError("--game", f"{shown(game_id)} differs from the config's game {shown(cfg.game)}; "
                                        "give one or the other")
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
    if len(set(seat_list)) < 2:
        # Every seat one policy: its win share is its fair share whatever it plays, and answers nothing.
        raise ConfigError("--seats" if seats is not None else "policies.seats",
                          f"every seat plays {seat_list[0]}: a duel needs at least two different policies; give "
                          f"them with --seats, e.g. --seats {_seats_example(game, max(2, len(seat_list)))}")
    seed = 1 if seed is None else seed
    result = play_duel(game, rules, seat_list, games, seed, threads=threads, progress=sys.stderr.isatty(),
                       games_field="--games")
    if as_json:
        for row in result["policies"].values():
            row["win_share_ci"] = [None if x != x else x for x in row["win_share_ci"]]
        click.echo(json.dumps(result))
    else:
        click.echo(f"{game.title}: " + duel_table(result))
    # Once the answer is shown: the numbers come from the jitted core alone, and its first deal, played again by the
    # reference engine, vouches for them.
    unlike = unlike_the_kernel(game, rules, seed, seat_list)
    if unlike:
        click.echo(unlike_warning(unlike, "this duel"), err=True)
