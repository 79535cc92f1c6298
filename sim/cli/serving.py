"""``lvsim serve``: the designer's workbench, a local web page to change a rule and see what it does."""

from __future__ import annotations

import click

from sim.cli.common import IntRange
from sim.cli.group import main


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. The default answers this machine only; another address lets anyone "
                   "who reaches it play on this machine.")
@click.option("--port", type=IntRange(0, 65535), default=8765, show_default=True,
              help="Port to listen on (0: any free port, printed).")
def serve(host, port):
    """Serve the workbench: a local web page to change a rule and see what it does.

    Pick a game, change any rule in a form made from its knobs, and play:
    the headline metrics appear with their 95% intervals within seconds.
    Every rule set played stays on the page, and any two are compared game
    by game on the same deals. The page's address holds the whole setup;
    it downloads the config as TOML (which `lvsim run` takes) and each
    run's full HTML report. Prints the address; Ctrl-C stops it and removes
    every file it wrote.
    """
    from sim.workbench import serve as serve_workbench

    serve_workbench(host, port, say=lambda line: click.echo(line))
