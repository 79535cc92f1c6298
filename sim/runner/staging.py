"""Where a run's results go: the results directory, refused if it would overwrite anything, and built
in a hidden staging directory that becomes it all at once.

A run that writes results builds them next to the destination and renames
the staging directory into place as soon as the records, summary and tally
are complete, so an error or Ctrl-C while the games play leaves nothing
half-written; a run killed outright leaves a ``.partial`` directory the next
run into the same place names.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import sys
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Iterator

from sim.errors import ConfigError, shown
from sim.layout import (
    CONFIG_FILE, DECISIONS_FILE, META_FILE, PARTIAL_SUFFIX, RECORDS_FILE, SUMMARY_FILE, TALLY_FILE,
)

REPORTS_DIR = Path("reports")
# The longest file name Linux, macOS and Windows file systems take, in bytes.
MAX_NAME_BYTES = 255
RESULT_NAMES = frozenset({CONFIG_FILE, META_FILE, RECORDS_FILE, SUMMARY_FILE, TALLY_FILE, DECISIONS_FILE})


class _DefaultOut:
    """Marker for "a new directory under reports/": distinct from None (write nothing)."""

    def __repr__(self) -> str:
        return "reports/<config name>-<timestamp>"


DEFAULT_OUT = _DefaultOut()


def default_out_dir(name: str, now: datetime | None = None) -> Path:
    """``reports/<name>-<YYYYmmdd-HHMMSS>``, with a suffix if a run of the same second took it."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    name = os.fsencode(name)[:200].decode("utf-8", errors="ignore")  # the stamp and a suffix must fit too
    path = REPORTS_DIR / f"{name}-{stamp}"
    n = 2
    while path.exists():
        path = REPORTS_DIR / f"{name}-{stamp}-{n}"
        n += 1
    return path


def out_path(out: str | os.PathLike, field: str = "--out") -> Path:
    """The results directory ``out`` names, refused now if no directory could ever be made there.

    Checked before any game is played: an empty name, a NUL byte, a name
    longer than the file system allows.
    """
    text = os.fsdecode(out)
    if not text.strip():
        raise ConfigError(field, "is empty: name a directory (e.g. results/run1, or . for this one)")
    if "\0" in text:
        raise ConfigError(field, f"{shown(text)} holds a NUL byte, which no file name may")
    path = Path(text)
    for part in path.parts:
        size = len(os.fsencode(part))
        if size > MAX_NAME_BYTES:
            raise ConfigError(field, f"{shown(part, 60)} is a name of {size} bytes; the file system takes at most "
                                     f"{MAX_NAME_BYTES}")
    return path


def check_creatable(out_dir: Path) -> None:
    """Refuse a results directory that could never be made: a file, or a path under one (said by a dry run too,
    also of a sweep or tune, which may resume into a directory of its own)."""
    try:
        exists, is_dir = out_dir.exists(), out_dir.is_dir()
    except OSError as err:
        raise ConfigError("--out", f"{out_dir}: {err.strerror or err}") from None
    if exists and not is_dir:
        raise ConfigError("--out", f"{out_dir} exists and is not a directory")
    if not exists:
        above = next((p for p in out_dir.absolute().parents if p.exists()), None)
        if above is not None and not above.is_dir():
            raise ConfigError("--out", f"cannot create {out_dir}: Not a directory")
        _try_making(out_dir)


def _try_making(out_dir: Path) -> None:
    """Make ``out_dir`` and its missing parents, then remove them again: a place the file system refuses
    (under /proc, on a read-only disk, without permission) is refused before any game, not after them all."""
    try:
        made = _make_parents(out_dir)
    except OSError as err:
        raise ConfigError("--out", f"cannot create {out_dir}: {err.strerror or err}") from None
    for directory in reversed(made):
        directory.rmdir()


def check_out_dir(out_dir: Path) -> None:
    """Refuse a results directory that would overwrite something, or could never be made."""
    check_creatable(out_dir)
    _refuse_overwriting(out_dir)


def _refuse_overwriting(out_dir: Path) -> None:
    """Refuse a results directory that holds something, or is not a directory (but never make it: a directory
    made to be tried would be seen, empty, by whoever looks then)."""
    try:
        if out_dir.exists() and not out_dir.is_dir():
            raise ConfigError("--out", f"{out_dir} exists and is not a directory")
        entries = sorted(p.name for p in out_dir.iterdir()) if out_dir.is_dir() else []
    except OSError as err:
        raise ConfigError("--out", f"{out_dir}: {err.strerror or err}") from None
    if entries and all(name.endswith(PARTIAL_SUFFIX) for name in entries):
        raise ConfigError("--out", f"{out_dir} holds only the unfinished results of a run that was killed "
                                 f"({', '.join(entries)}); remove them or choose a new directory")
    if entries:
        raise ConfigError("--out", f"{out_dir} already exists and is not empty; choose a new directory or remove it")


def partial_runs(out_dir: Path) -> list[Path]:
    """Staging directories that runs into ``out_dir`` left behind when they were killed."""
    found = []
    if out_dir.is_dir():  # a run into an existing empty directory stages inside it
        found += out_dir.glob(f".*{PARTIAL_SUFFIX}")
    if out_dir.parent.is_dir():
        found += out_dir.parent.glob(f".{glob_escape(_staging_stem(out_dir.name))}.*{PARTIAL_SUFFIX}")
    return sorted(found)


def warn_about_partial_runs(out_dir: Path) -> None:
    """Say so when an earlier run into ``out_dir`` was killed and left its partial results."""
    for leftover in partial_runs(out_dir):
        print(
            f"warning: an earlier run into {out_dir} was killed before it finished and left its partial "
            f"results in {leftover}; they are incomplete, remove that directory when you no longer need it",
            file=sys.stderr,
        )


def glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def _staging_stem(name: str) -> str:
    """``name``, cut so that ``.<stem>.<8 hex digits>.partial`` fits in a file name."""
    room = MAX_NAME_BYTES - len(f"..{'0' * 8}{PARTIAL_SUFFIX}")
    return os.fsencode(name)[:room].decode("utf-8", errors="ignore")


@contextmanager
def staged_directory(out_dir: Path) -> Iterator[Path]:
    """A hidden staging directory whose contents become ``out_dir`` if the block succeeds.

    A new ``out_dir`` is staged beside it, under a name that always fits,
    and renamed into place; an existing empty one (``--out .`` included) is
    staged inside it and the files are moved out of the staging directory.
    On any failure, Ctrl-C and SIGTERM included, the staging directory and
    any parent directories made for it are removed again (a process killed
    outright cannot do that: the next run into ``out_dir`` names what it
    left, see :func:`warn_about_partial_runs`).
    """
    token = secrets.token_hex(4)
    inside = out_dir.is_dir()
    # Not tempfile.mkdtemp: its private permissions would stick to the results.
    if inside:
        staging = out_dir / f".{token}{PARTIAL_SUFFIX}"
    else:
        staging = out_dir.parent / f".{_staging_stem(out_dir.name)}.{token}{PARTIAL_SUFFIX}"
    made: list[Path] = []
    try:
        try:
            made = [] if inside else _make_parents(out_dir.parent)
            staging.mkdir()
        except OSError as err:
            raise ConfigError("--out", f"cannot create {out_dir}: {err.strerror or err}") from None
        yield staging
        # Again: something may have appeared while the games ran.
        if inside:
            others = [p.name for p in out_dir.iterdir() if p != staging]
            if others:
                raise ConfigError("--out", f"{out_dir} is no longer empty ({', '.join(sorted(others))} appeared "
                                         "while the games were played); nothing was written")
            for path in sorted(staging.iterdir()):
                path.rename(out_dir / path.name)
            staging.rmdir()
        else:
            # Not check_out_dir: it would make out_dir to try it, and a process killed then leaves it there, empty
            # (a sweep's cell, then not one it can resume). The staging directory's parent is writable.
            _refuse_overwriting(out_dir)
            if out_dir.exists():
                out_dir.rmdir()
            staging.rename(out_dir)
    except BaseException as err:
        shutil.rmtree(staging, ignore_errors=True)
        if inside:  # files already moved out of the staging directory
            for path in out_dir.iterdir():
                if path.name in RESULT_NAMES:
                    path.unlink(missing_ok=True)
        for directory in reversed(made):
            try:
                directory.rmdir()
            except OSError:
                break
        if isinstance(err, KeyboardInterrupt):
            print(f"interrupted: the unfinished results in {staging} were removed; nothing was written",
                  file=sys.stderr)
        if isinstance(err, OSError) and _in_writing(err, staging):
            problem = os.strerror(err.errno) if err.errno else err.strerror or str(err)
            raise ConfigError("--out", f"cannot write the results to {out_dir}: {problem}; nothing was "
                                       "written") from None
        raise


# A write that fails with one of these names no file (Parquet's writer names none): the disk is full, over its
# quota, read-only or failing.
_WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS})


def _in_writing(err: OSError, staging: Path) -> bool:
    """Whether ``err`` is the failure of a result file being written in ``staging``: a line naming the results
    directory says more than one naming a hidden staging file, or nothing."""
    if err.filename is None:
        return err.errno in _WRITE_ERRNOS
    written = Path(os.fsdecode(err.filename)).absolute()
    return written == staging.absolute() or staging.absolute() in written.parents


def _make_parents(directory: Path) -> list[Path]:
    """Create ``directory`` and its missing parents; return those created, outermost first."""
    missing = []
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    missing.reverse()
    made = []
    try:
        for d in missing:
            d.mkdir()
            made.append(d)
    except OSError:
        for d in reversed(made):
            d.rmdir()
        raise
    return made
