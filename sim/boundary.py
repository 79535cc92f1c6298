"""The one error boundary of the ``lvsim`` command: every failure ends as one line.

Every command of the ``lvsim`` group runs inside :func:`error_boundary`
(the group's and its commands' ``invoke``, so no command can leave it out):

* input a user can get wrong — a bad config or script, a file that cannot
  be read or written, text that is not UTF-8, input nested too deeply,
  more than memory holds, a usage error — prints one line on stderr,
  ``error: <file or field>: <problem>``, and exits with code 2;
* anything else is a bug: one line says so and names the file the
  traceback was written to; the exit code is 1. A game package at fault
  (``sim.errors.GameError``: it does not load, or declares what cannot be
  used) is named as such, not as a bug in lvsim, the same way.

Long values quoted in a message are shortened (:func:`sim.errors.shown`)
and the line as a whole is kept to :data:`MAX_LINE` characters, so a bad
10,000-item list never floods the terminal. ``LVSIM_TRACEBACK=1`` lets
unexpected errors through with their traceback, for debugging.
"""

from __future__ import annotations

import errno
import os
import sys
import tempfile
import traceback
from contextlib import contextmanager
from typing import Iterator

import click

from sim.errors import ConfigError, GameError, ScriptError, one_line

EXIT_BAD_INPUT = 2
EXIT_BUG = 1
# `lvsim` alone prints its help (click >= 8.2 raises this for it): shown as click shows it.
_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


class OneLineError(click.ClickException):
    """A refusal already worded as the one line to print."""

    exit_code = EXIT_BAD_INPUT

    def show(self, file=None) -> None:
        click.echo(f"error: {one_line(self.message)}", err=True)


def message_of(err: BaseException) -> str | None:
    """The one-line message of an error a user can cause, or None if it is unexpected."""
    if isinstance(err, (ConfigError, ScriptError)):
        return str(err)
    if isinstance(err, click.UsageError):
        command = err.ctx.command_path if err.ctx is not None else "lvsim"
        return f"{err.format_message()} (see '{command} --help')"
    if isinstance(err, click.ClickException):
        return err.format_message()
    if isinstance(err, OSError):
        return _os_message(err)
    if isinstance(err, UnicodeDecodeError):
        return f"a file is not UTF-8 text ({err.reason} at byte {err.start})"
    if isinstance(err, RecursionError):
        return "the input is nested too deeply to read"
    if isinstance(err, ValueError) and "null byte" in str(err):  # from os.stat() and open() of a path
        return "a path holds a NUL byte, which no file name may"
    if isinstance(err, MemoryError):
        return "not enough memory for this: ask for fewer games (or cells)"
    return None


def _os_message(err: OSError) -> str:
    problem = err.strerror or str(err)
    if err.errno == errno.ENAMETOOLONG:
        problem = "a name in the path is too long (at most 255 bytes)"
    if err.filename is None:
        return f"could not write to standard output: {problem}" if _printing(err) else problem
    path = os.fsdecode(err.filename)
    if err.filename2 is not None:
        return f"{path} -> {os.fsdecode(err.filename2)}: {problem}"
    return f"{path}: {problem}"


def _printing(err: OSError) -> bool:
    """Whether ``err`` was raised printing to standard output (``lvsim games > /dev/full``): by ``click.echo``
    without ``err=True``, the way every command prints its answer."""
    tb = err.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code is click.echo.__code__ and not frame.f_locals.get("err"):
            return True
        tb = tb.tb_next
    return False


def report_bug(err: BaseException) -> str:
    """Write ``err``'s traceback to a new file; the line that says so. A game package at fault (``GameError``)
    is named as its own, not as a bug in lvsim: its author reads the traceback of what it raised, if anything."""
    if isinstance(err, GameError) and err.__cause__ is None:
        return one_line(str(err), limit=400)
    try:
        fd, path = tempfile.mkstemp(prefix="lvsim-traceback-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(f"lvsim {' '.join(sys.argv[1:])}\n\n")
            traceback.print_exception(err, file=f)
        where = f"its traceback is in {path}"
    except OSError:
        where = "its traceback could not be written (set LVSIM_TRACEBACK=1 to see it)"
    if isinstance(err, GameError):
        return f"{one_line(str(err), limit=400)}; {where}"
    what = one_line(f"{type(err).__name__}: {err}", limit=200)
    return f"internal error, a bug in lvsim ({what}); {where}; please report it"


@contextmanager
def error_boundary() -> Iterator[None]:
    """Turn every exception but an exit or Ctrl-C into one line on stderr and an exit code."""
    try:
        yield
    except (click.exceptions.Exit, click.Abort, KeyboardInterrupt, OneLineError, _HELP):
        raise
    except BrokenPipeError:
        raise  # click's main() ends quietly when the reader of stdout goes away
    except Exception as err:
        message = message_of(err)
        if message is not None:
            raise OneLineError(message) from None
        if os.environ.get("LVSIM_TRACEBACK"):
            raise
        click.echo(f"error: {report_bug(err)}", err=True)
        raise click.exceptions.Exit(EXIT_BUG) from None


class BoundedCommand(click.Command):
    """A command whose options are parsed and whose body runs inside the error boundary."""

    def make_context(self, *args, **kwargs):
        with error_boundary():
            return super().make_context(*args, **kwargs)

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as err:
            # click's parser leaves out the context of an option given without its value:
            # the refusal would point at `lvsim --help` rather than this command's.
            if err.ctx is None:
                err.ctx = ctx
            raise

    def invoke(self, ctx):
        with error_boundary():
            return super().invoke(ctx)


class BoundedGroup(click.Group):
    """A group whose own parsing, callback and every command run inside the error boundary."""

    command_class = BoundedCommand

    def make_context(self, *args, **kwargs):
        with error_boundary():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx):
        with error_boundary():
            return super().invoke(ctx)
