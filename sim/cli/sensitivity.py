"""``lvsim sensitivity``: which printed number of the rules moves each headline metric, and by how much."""

from __future__ import annotations

import json

import click

from sim.cli.common import IntRange
from sim.cli.group import main
from sim.config import MAX_GAMES, MAX_SEED
from sim.errors import ConfigError


def _list(text: str | None, option: str) -> list[str] | None:
    if text is None:
        return None
    items = [t.strip() for t in text.split(",")]
    if not all(items):
        raise ConfigError(option, f"must be a comma-separated list with no empty entry, got {text!r}")
    return items


def _counts(text: str | None) -> list[int] | None:
    items = _list(text, "--players")
    if items is None:
        return None
    if not all(t.isdigit() for t in items):
        raise ConfigError("--players", f"must be player counts separated by commas (e.g. 3,4,5), got {text!r}")
    return list(dict.fromkeys(int(t) for t in items))


@main.command()
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--games", type=IntRange(1, MAX_GAMES), default=None,
              help="Games per rule set: the rules as printed and each one-step change (default: 10,000).")
@click.option("--seed", type=IntRange(0, MAX_SEED), default=None, help="Base seed (overrides run.seed).")
@click.option("--players", "players_text", default=None, metavar="N[,N...]",
              help="Player counts, each a study of its own on its own deals (e.g. 3,4,5; default: the config's).")
@click.option("--seats", "seats_text", default=None, metavar="POLICY[,POLICY...]",
              help="One policy for every seat, or one per seat (overrides [policies] seats).")
@click.option("--knobs", "knobs_text", default=None, metavar="PATH[,PATH...]",
              help="Only the one-step changes at or under these dotted paths, as `lvsim games` names the knobs "
                   "(rules.KNOB, or one entry: rules.KNOB[1]).")
@click.option("--threads", type=IntRange(1), default=None,
              help="Worker threads (overrides run.threads). Never changes the results.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Write sensitivity.parquet and sensitivity.html into this new or empty directory.")
@click.option("--dry-run", is_flag=True, help="Say what would be played and the estimated time; play and write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the study as one JSON object.")
def sensitivity(config, games, seed, players_text, seats_text, knobs_text, threads, out, dry_run, as_json):
    """Move every printed value of CONFIG's rules one step and say what each does to the headline metrics.

    Each integer knob (and each face of a token, each entry of a list) one
    up and one down within its range, each other option of a choice, each
    sticker of a list swapped for each other kind: every change is played
    on the config's seed, the same deals and the same players as the rules
    as printed, and compared game by game (the paired difference of every
    headline metric, with its 95% interval). A knob that cannot matter
    under these rules (inert) is exactly zero and not played. Each effect's
    `knob` is the dotted path a sweep or tune accepts.
    """
    from sim.config import load_config
    from sim.runner import check_out_dir, out_path
    from sim.sensitivity.study import DEFAULT_GAMES, plan_study, plan_text, study, write_study

    players = _counts(players_text)
    seats = _list(seats_text, "--seats")
    knobs = _list(knobs_text, "--knobs")
    cfg = load_config(config).with_overrides(seed=seed, threads=threads)
    games = games or DEFAULT_GAMES
    seated = None if seats is None else (seats[0] if len(seats) == 1 else seats)
    if dry_run:
        plan = plan_study(cfg, games, players=players, seats=seated, knobs=knobs)
        click.echo(json.dumps(plan) if as_json else plan_text(plan))
        return
    out_dir = None
    if out is not None:
        out_dir = out_path(out)
        check_out_dir(out_dir)
    result = study(cfg, games, players=players, seats=seated, knobs=knobs)
    if out_dir is not None:
        write_study(result, cfg, out_dir)
    if as_json:
        click.echo(json.dumps(result))
        return
    from analysis.sensitivity import study_text

    click.echo(study_text(result, cfg.game_spec))
    if out_dir is not None:
        click.echo(f"\nResults in {out_dir}/ (sensitivity.parquet, sensitivity.html)")
