"""The ``lvsim`` group: the commands' parent, inside the error boundary (``sim.boundary``)."""

from __future__ import annotations

import click

from sim import __version__
from sim.boundary import BoundedGroup


class _Main(BoundedGroup):
    """The group whose help names the games installed, read from the registry when the help is shown."""

    def format_help_text(self, ctx, formatter):
        from sim.games import loaded_games

        games = [f'{g.title} (`game = "{g.id}"`)' for g in loaded_games()]
        listed = games[0] if len(games) == 1 else ", ".join(games[:-1]) + " and " + games[-1]
        template, self.help = self.help, self.help.replace("{games}", listed)
        try:  # read afresh each time: the games that load may change within one process
            super().format_help_text(ctx, formatter)
        finally:
            self.help = template


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="lvsim")
@click.pass_context
def main(ctx):
    """Monte Carlo rules-balance simulator for a family of tabletop games.

    The games installed: {games}. Run batches of games from TOML configs
    and read their HTML reports, sweep rule parameters on the same deals,
    search the rules for the smallest change that meets a designer's
    targets, measure how much skill matters with duels, replay a game given by hand,
    and time the jitted core. `lvsim games` lists the games, their rule
    knobs and their policies.
    """
    _stop_on_sigterm()
    _say_compiling(ctx)


def _say_compiling(ctx: click.Context) -> None:
    """For as long as the command runs, say on stderr when it compiles a game's kernels, and how long that took."""
    from sim.estimates.compiling import said_to

    ctx.with_resource(said_to(said_over_the_bars))


def said_over_the_bars(line: str) -> None:
    """``line`` on stderr, on a line of its own: a progress bar showing there is cleared first and drawn again
    below it (a compilation's done line comes from a timer's thread, whatever is showing then)."""
    import sys

    from tqdm import tqdm

    with tqdm.external_write_mode(file=sys.stderr):
        click.echo(line, err=True)


def _stop_on_sigterm() -> None:
    """Let SIGTERM (``kill``, ``timeout``) stop a command the way Ctrl-C does: cleaning up after itself."""
    import signal
    import threading

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, interrupt)
