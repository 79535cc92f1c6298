"""``lvsim games`` and ``lvsim report``: what the games are, and the report of a finished run."""

from __future__ import annotations

import json

import click

from sim.cli.common import GivenPath, game_option
from sim.cli.group import main


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
            lines += item(syntax, g.policies.listed[name])
        blocks.append("\n".join(lines))
    click.echo("\n\n".join(blocks))


@main.command()
@click.argument("results_dir", type=GivenPath(file_okay=False))
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
