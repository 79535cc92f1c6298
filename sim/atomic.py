"""Files that are never seen half-written, and directories that one process at a time may write.

A file is written beside its destination under a hidden ``.<name>.<token>.partial``
name and renamed over it, which a reader sees as all or nothing even if the
writer is killed; what a killed writer leaves is named so that the next
writer, holding the lock, can sweep it away (:data:`sim.layout.PARTIAL_SUFFIX`).
"""

from __future__ import annotations

import os
import secrets
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sim.errors import ConfigError
from sim.layout import PARTIAL_SUFFIX


def partial_path(path: Path) -> Path:
    """A hidden name beside ``path`` for writing it: ``.<name>.<8 hex digits>.partial``."""
    return path.with_name(f".{path.name}.{secrets.token_hex(4)}{PARTIAL_SUFFIX}")


def write_text_atomically(path: Path, text: str) -> None:
    """Write ``path`` so that it is never seen half-written, even if the process is killed."""
    with _staged(path) as staging:
        staging.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")


def write_parquet_atomically(path: Path, table) -> None:
    """Write the pandas DataFrame ``table`` to ``path`` as Parquet, all at once as :func:`write_text_atomically`."""
    with _staged(path) as staging:
        table.to_parquet(staging, index=False)


@contextmanager
def _staged(path: Path) -> Iterator[Path]:
    """The hidden name to write ``path`` under, renamed over it when the block succeeds and removed when it
    fails: a full disk leaves no half-written file behind, only the error."""
    staging = partial_path(path)
    try:
        yield staging
        os.replace(staging, path)
    except BaseException:
        staging.unlink(missing_ok=True)
        raise


@contextmanager
def locked(path: Path, what: str) -> Iterator[None]:
    """Hold an exclusive lock on ``path``; the system drops it when the process dies, even by kill -9.

    Another process asking for it is refused with a ConfigError saying the
    directory is in use by another lvsim ``what`` (a sweep, a tune).
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no protection against two writers at once
        yield
        return
    with path.open("a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigError("--out", f"{path.parent} is in use by another lvsim {what}") from None
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
