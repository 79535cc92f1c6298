"""The ``lvsim`` group: the commands' parent, inside the error boundary (``sim.boundary``)."""

from __future__ import annotations

import click

from sim import __version__
from sim.boundary import BoundedGroup


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
