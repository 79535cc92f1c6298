"""Where the compiled kernels are cached, keyed by the source they came from.

numba checks a cached kernel only against the file that defines it, so a
change to a policy would leave the game kernel that calls it running the old
code. Keying the cache directory by a hash of the source the kernels can
reach makes any change to it compile afresh, and an unchanged one reuse its
kernels: every file of a package that defines kernels (a game's kernels,
policies and the constants they read) and the shared modules that define
kernels (the random streams). The machinery around them (config, runner,
command line, tune, sweep, workbench: modules and packages with no kernel)
compiles nothing, so editing it keeps the cache. A ``NUMBA_CACHE_DIR`` set by the user is left
alone.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def kernel_sources() -> list[Path]:
    """The files compiled kernels can depend on: every file of a package that defines kernels (a game's), and the
    top-level modules that define kernels."""
    texts = {path: path.read_bytes() for path in sorted(PACKAGE.rglob("*.py"))}
    with_kernels = {path.parent for path, text in texts.items() if b"njit" in text}
    return [path for path, text in texts.items()
            if (path.parent != PACKAGE and path.parent in with_kernels) or b"njit" in text]


def source_digest() -> str:
    h = hashlib.sha256()
    for path in kernel_sources():
        h.update(str(path.relative_to(PACKAGE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def use_keyed_cache() -> None:
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    digest = source_digest()
    for root in (PACKAGE.parent / ".kernel-cache", Path.home() / ".cache" / "lvsim" / "kernels"):
        here = root / digest
        try:
            fresh = not here.is_dir()
            here.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue  # e.g. installed read-only: try the user's cache
        if fresh:
            # Kernels of earlier sources will not be loaded again.
            for old in root.iterdir():
                if old.name != digest:
                    shutil.rmtree(old, ignore_errors=True)
        os.environ["NUMBA_CACHE_DIR"] = str(here)
        return


def cached_kernels() -> int:
    """How many files the kernel cache holds now: a call that adds some compiled kernels (the next process loads
    them instead)."""
    where = os.environ.get("NUMBA_CACHE_DIR")
    if not where or not os.path.isdir(where):
        return 0
    return sum(len(files) for _, _, files in os.walk(where))
