"""``python -m sim.cli``: the ``lvsim`` program."""

from sim.cli import entry

entry()
