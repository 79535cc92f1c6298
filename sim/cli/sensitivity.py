"""``lvsim sensitivity``: which printed number of the rules moves each headline metric, and by how much."""

from __future__ import annotations

import json

import click

from sim.cli.common import (
    GivenPath, IntRange, comma_list_options, dry_run_option, out_dir_option, player_counts, threads_option,
)
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


def _seated(items: list[str] | None):
    return None if items is None else (items[0] if len(items) == 1 else items)


def _is_config(path: str) -> bool:
    """A TOML file with no ``[search]`` table: a config, not a tune file (an unreadable one is left to its
    loader, which says why)."""
    from sim.inputs import read_toml

    try:
        data = read_toml(path, lambda problem: ConfigError(str(path), problem), what="file")
    except ConfigError:
        return False
    return "search" not in data


METHODS = ("one-step", "morris")


@main.command()
@click.argument("config", type=GivenPath(dir_okay=False))
@click.option("--method", type=click.Choice(METHODS), default="one-step", show_default=True,
              help="one-step: every printed value of CONFIG moved one step. morris: CONFIG is a tune file, and its "
                   "[search] domains are screened with Morris elementary effects (SALib), the one-step view of the "
                   "same knobs beside it.")
@click.option("--games", type=IntRange(1, MAX_GAMES), default=None,
              help="Games per rule set: the rules as printed and each one-step change, or each Morris point "
                   "(default: 10,000; for morris the tune's [tune] games).")
@click.option("--seed", type=IntRange(0, MAX_SEED), default=None,
              help="Base seed (overrides run.seed, or the tune's; Morris draws its trajectories from it too).")
@comma_list_options(
    ("--players", "players_text", "N",
     "Player counts, each a study of its own on its own deals (e.g. 3,4,5; default: the config's, or the tune's)."),
    ("--seats", "seats_text", "POLICY",
     "One policy for every seat, or one per seat (overrides [policies] seats; for morris the default is the tune's "
     "first policy at every seat)."),
    ("--also-seats", "also_text", "POLICY",
     "One-step only: play every table again with these seats (one policy or one per seat), on the same deals, and "
     "say which levers hold under both."),
    ("--knobs", "knobs_text", "PATH",
     "One-step only: only the changes at or under these dotted paths, as `lvsim games` names the knobs "
     "(rules.KNOB, or one entry: rules.KNOB[1])."),
)
@click.option("--trajectories", type=IntRange(2, 1000), default=None,
              help="Morris only: trajectories, each one rule set more than the [search] values (default: 10).")
@click.option("--levels", type=IntRange(2, 64), default=None,
              help="Morris only: the grid's levels, even (default: the largest domain's size rounded up to even, "
                   "at most 8).")
@threads_option("Worker threads (overrides run.threads). Never changes the results.")
@out_dir_option("Write sensitivity.parquet and sensitivity.html (morris: morris.parquet and morris.html) into "
                "this new or empty directory.")
@dry_run_option
@click.option("--json", "as_json", is_flag=True, help="Print the study as one JSON object.")
def sensitivity(config, method, games, seed, players_text, seats_text, also_text, knobs_text, trajectories, levels,
                threads, out, dry_run, as_json):
    """Move every printed value of CONFIG's rules one step and say what each does to the headline metrics.

    Each integer knob (and each face of a token, each entry of a list) one
    up and one down within its range, each other option of a choice, each
    sticker of a list swapped for each other kind: every change is played
    on the config's seed, the same deals and the same players as the rules
    as printed, and compared game by game (the paired difference of every
    headline metric, with its 95% interval). A knob that cannot matter
    under these rules (inert) is exactly zero and not played. Each effect's
    `knob` is the dotted path a sweep or tune accepts.

    With --method morris, CONFIG is a tune file: its [search] domains are
    screened with Morris elementary effects on the same deals (mu*, mu,
    sigma per knob and metric, per printed step), and the report names the
    knobs a one-step view at the base rules would have misjudged.
    """
    from sim.runner import check_out_dir, out_path

    players = player_counts(players_text)
    seats = _list(seats_text, "--seats")
    also = _list(also_text, "--also-seats")
    knobs = _list(knobs_text, "--knobs")
    if method == "morris":
        for given, option in ((also, "--also-seats"), (knobs, "--knobs")):
            if given is not None:
                raise ConfigError(option, "is for --method one-step: Morris screens the tune file's [search] values")
        if _is_config(config):
            raise ConfigError("--method", f"morris screens a tune file's [search] domains, and {config} has no "
                                          "[search] table (give a tune file, e.g. configs/tune_tokens.toml, or "
                                          "--method one-step)")
    else:
        for given, option in ((trajectories, "--trajectories"), (levels, "--levels")):
            if given is not None:
                raise ConfigError(option, "is for --method morris (a tune file's [search] screened)")
    out_dir = None
    if out is not None:  # refused now, by the dry run too, rather than after the games
        out_dir = out_path(out)
        check_out_dir(out_dir)
    if method == "morris":
        _morris(config, games, seed, players, _seated(seats), trajectories, levels, threads, out_dir, dry_run, as_json,
                writes=out is not None)
        return

    from sim.config import load_config
    from sim.sensitivity.study import DEFAULT_GAMES, HTML_FILE, PARQUET_FILE, plan_study, plan_text, study, write_study

    cfg = load_config(config).with_overrides(seed=seed, threads=threads)
    games = games or DEFAULT_GAMES
    if dry_run:
        plan = plan_study(cfg, games, players=players, seats=_seated(seats), knobs=knobs, also_seats=_seated(also))
        click.echo(json.dumps(plan) if as_json else plan_text(plan))
        return
    from analysis.sensitivity import study_text

    result = study(cfg, games, players=players, seats=_seated(seats), knobs=knobs, also_seats=_seated(also))
    _say(result, out_dir, write_study, cfg, lambda: study_text(result, cfg.game_spec), (PARQUET_FILE, HTML_FILE),
         as_json)


def _say(result, out_dir, write, source, text, files, as_json) -> None:
    """Print the result (one JSON object, or the text), and write its files when asked: the table first, then the
    result on screen, and only then the page, so that a page that fails or takes long never keeps the answer
    from disk or screen; then where the files are."""

    def answered() -> None:
        click.echo(json.dumps(result) if as_json else text())

    if out_dir is None:
        answered()
        return
    write(result, source, out_dir, answered=answered, say=lambda line: click.echo(line, err=True))
    if not as_json:
        written = [f for f in files if (out_dir / f).is_file()]
        click.echo(f"\nResults in {out_dir}/ ({', '.join(written)})")


def _morris(path, games, seed, players, seats, trajectories, levels, threads, out_dir, dry_run, as_json, writes):
    from sim.sensitivity import morris
    from sim.tune import load_tune

    tune = load_tune(path, seed=seed, threads=threads)
    trajectories = trajectories or morris.DEFAULT_TRAJECTORIES
    kwargs = dict(trajectories=trajectories, levels=levels, games=games, seed=seed, players=players, seats=seats)
    if dry_run:
        plan = morris.plan_screen(tune, page=writes, **kwargs)
        click.echo(json.dumps(plan) if as_json else morris.plan_text(plan))
        return
    from analysis.sensitivity import morris_text

    result = morris.screen(tune, **kwargs)
    _say(result, out_dir, morris.write_screen, tune, lambda: morris_text(result, tune.game),
         (morris.PARQUET_FILE, morris.HTML_FILE), as_json)
