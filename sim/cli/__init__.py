"""The ``lvsim`` command: a thin click layer over the library.

Every command parses its options, calls one library function and prints.
Every command runs inside one error boundary (``sim.boundary``, the
group's class): a failure a user can cause prints one line on stderr and
exits with code 2; an unexpected one prints one line saying it is a bug
and where its traceback was written. Never a raw traceback.

The commands live in modules by what they do (``runs``, ``duels``, ``confirming``, ``deciding``,
``listing``, ``studies``, ``sensitivity``, ``serving``), each registered on the group of ``group``;
``common`` holds what they share.
"""

from __future__ import annotations

import sys

from sim.boundary import EXIT_BAD_INPUT  # noqa: F401  (part of the CLI's contract)
from sim.cli.confirming import confirm
from sim.cli.deciding import decisions
from sim.cli.duels import duel
from sim.cli.group import main
from sim.cli.listing import games, report
from sim.cli.runs import bench, replay, run
from sim.cli.sensitivity import sensitivity
from sim.cli.serving import serve
from sim.cli.studies import sweep, tune

# Importing a command's module registers it on ``main``.
__all__ = ["EXIT_BAD_INPUT", "bench", "confirm", "decisions", "duel", "entry", "games", "main", "replay", "report", "run",
           "sensitivity", "serve", "sweep", "tune"]


def entry() -> None:
    """The ``lvsim`` program: :func:`main`, then leave without tearing the interpreter down.

    Once a command has finished, the interpreter's own teardown (freeing the
    compiled game kernels among the rest) takes 0.2 to 0.5 s, longer than
    some whole commands. The exit handlers still run and the output is
    flushed first; only the teardown is skipped, and only when no thread
    other than the main one is still at work (otherwise the usual exit
    waits for it).
    """
    try:
        main()
        code = 0
    except SystemExit as done:
        code = done.code
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    import atexit
    import os
    import threading

    if any(t is not threading.main_thread() and not t.daemon for t in threading.enumerate()):
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the reader went away, or the stream is closed
            pass
    os._exit(code)
