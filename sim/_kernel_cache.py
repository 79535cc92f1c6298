"""Where the compiled kernels are cached, keyed by the source they came from.

numba checks a cached kernel only against the file that defines it, so a
change to a policy would leave the game kernel that calls it running the old
code. Keying the cache directory by a hash of the source the kernels can
reach makes any change to it compile afresh, and an unchanged one reuse its
kernels. The hash covers the files below, read (never imported) on every
``import sim``:

- every file of a package of ``sim/`` that has a module importing numba
  (a game's kernels, policies, and the constants and weights they read),
  and every module of ``sim/`` or ``analysis/`` that imports numba (the
  random streams, the bit tricks, the statistics' and tallies' kernels);
- every file of the top-level package of each game another distribution
  registers under ``lvsim.games`` (a plugin: ``lvsim_highcard/`` for
  ``highcard = "lvsim_highcard.game:GAME"``), installed from its source
  tree (``pip install -e``) or into site-packages alike. The package is
  found from the entry point's module name without importing it, so
  ``import sim`` stays light and numba is not loaded before
  ``NUMBA_CACHE_DIR`` is set;
- what those modules import at module level (unindented ``import`` and
  ``from ... import`` lines), and what that imports in turn, wherever it
  lies in ``sim/``, ``analysis/``, a registered game's package, or another
  package found outside the standard library and site-packages (a source
  tree on the path, an editable install): a kernel reading a helper from
  ``analysis/`` or from a package of the plugin's own is covered.

Not covered: the machinery around the kernels (config, runner, command
line, tune, sweep, workbench: no numba, and not imported by a module with
it), so editing it keeps the compiled kernels; and libraries installed in
site-packages other than a registered game's package (numpy; numba keeps
its own cache per numba version): upgrading one leaves the kernels as they
are, ``make clean`` removes them.

The cache lives in ``.kernel-cache/<digest>`` beside the package, else (an
install that cannot write there) in ``~/.cache/lvsim/kernels/<digest>``;
``LVSIM_KERNEL_CACHE`` names another directory to keep the digests in. A
``NUMBA_CACHE_DIR`` set by the user is left alone.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
from importlib.metadata import entry_points
from importlib.util import find_spec
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
# sim.games.GROUP: importing sim.games here would load the game registry on every `import sim`.
GAMES_GROUP = "lvsim.games"
# The directory the digests' caches go in, when set: an install that cannot write beside itself, a test.
ROOT_VARIABLE = "LVSIM_KERNEL_CACHE"

_IMPORTS_NUMBA = re.compile(rb"^(?:from|import)[ \t]+numba\b", re.M)
# An unindented import: `import a.b as c, d` or `from ..a import b, c`, its names perhaps in parentheses over lines.
_IMPORT = re.compile(rb"^(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\((?:[^)#]|#.*)*\)|.*)|import[ \t]+(.*))", re.M)
_COMMENT = re.compile(rb"#.*")
_LIBRARY_DIRS = {"site-packages", "dist-packages"}

# Paths are strings below: the digest runs on every `import sim`, and pathlib's objects cost more than the reading.


def project_packages() -> list[str]:
    """This project's top-level packages: ``sim/`` and ``analysis/`` beside it."""
    return [p for p in (str(PACKAGE), os.path.join(PACKAGE.parent, "analysis"))
            if os.path.isfile(os.path.join(p, "__init__.py"))]


def _located(top: str) -> list[str]:
    """Where the top-level module ``top`` is, found without importing it: its package's directories (several
    for a namespace package), or its file; none if it is not found or is not Python source."""
    try:
        spec = find_spec(top)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [os.path.realpath(p) for p in spec.submodule_search_locations]
    if spec.origin and spec.origin.endswith(".py"):
        return [os.path.realpath(spec.origin)]
    return []


def game_packages() -> list[str]:
    """The top-level package (or lone module's file) of every game registered under ``lvsim.games`` outside
    this project, wherever it is installed."""
    own = {os.path.basename(p) for p in project_packages()}
    # "package.module:GAME": a malformed value is the registry's to report, when a game is asked for
    tops = {ep.value.partition(":")[0].partition(".")[0].strip() for ep in entry_points(group=GAMES_GROUP)} - own
    return sorted({where for top in tops for where in _located(top)})


def _python_files(top: str) -> list[str]:
    if not os.path.isdir(top):
        return [top]
    return [os.path.join(here, name) for here, _, names in os.walk(top) for name in names if name.endswith(".py")]


def _defines_kernels(text: bytes) -> bool:
    return b"numba" in text and _IMPORTS_NUMBA.search(text) is not None


class _Sources:
    """The files hashed, each named by its path from the directory holding its top-level package."""

    def __init__(self):
        self.files: dict[str, str] = {}
        self.texts: dict[str, bytes] = {}
        self.tops: dict[str, list[str]] = {}  # top-level name -> where it is; [] when its imports are not followed
        self.modules: dict[tuple[str, tuple[str, ...]], str | None] = {}

    def text(self, path: str) -> bytes:
        if path not in self.texts:
            with open(path, "rb") as f:
                self.texts[path] = f.read()
        return self.texts[path]

    def add(self, path: str, top: str) -> bool:
        """Hash ``path``, of the top-level package at ``top``; False if it already is."""
        if path in self.files:
            return False
        self.files[path] = path[len(os.path.dirname(top)) + 1:].replace(os.sep, "/")
        return True

    def where(self, top: str) -> list[str]:
        if top not in self.tops:
            found = [] if top in sys.stdlib_module_names or top in sys.builtin_module_names else _located(top)
            self.tops[top] = [p for p in found if not _LIBRARY_DIRS & set(p.split(os.sep))]
        return self.tops[top]

    def module(self, base: str, parts: tuple[str, ...]) -> str | None:
        """The file of module ``parts`` under ``base`` (a package's directory, or a lone module's file)."""
        key = (base, parts)
        if key not in self.modules:
            where = os.path.join(base, *parts)
            candidates = ([where + ".py"] if parts else [base]) + [os.path.join(where, "__init__.py")]
            self.modules[key] = next((c for c in candidates if c.endswith(".py") and os.path.isfile(c)), None)
        return self.modules[key]

    def imports(self, path: str, top: str) -> list[tuple[str, str]]:
        """The modules ``path`` (of the package at ``top``) imports at module level that are followed, each with
        the top-level package it is in."""
        out = []
        for dots, module, names, plain in _IMPORT.findall(self.text(path)):
            if plain:  # import a.b as c, d
                for item in _COMMENT.sub(b"", plain).split(b","):
                    if item.split():
                        first, *parts = item.split()[0].decode().split(".")
                        out += [(f, root) for root in self.where(first) if (f := self.module(root, tuple(parts)))]
                continue
            parts = tuple(module.decode().split(".")) if module else ()
            if dots:  # from .a import b: from the package len(dots) - 1 levels above this file's
                base = path
                for _ in dots:
                    base = os.path.dirname(base)
                bases = [(base, parts, top)]
            else:
                bases = [(root, parts[1:], root) for root in self.where(parts[0])]
            named = [n.split()[0].decode() for n in _COMMENT.sub(b"", names).strip(b"()").split(b",") if n.split()]
            for base, parts, root in bases:
                imported = self.module(base, parts)
                if imported is None:
                    continue
                out.append((imported, root))
                if imported.endswith("__init__.py"):  # `from a import b` imports module a.b if there is one
                    out += [(f, root) for n in named if n != "*" and (f := self.module(base, parts + (n,)))]
        return out


def kernel_sources() -> dict[str, Path]:
    """The files compiled kernels can depend on (the module docstring says which), by the name they are hashed
    under: their path from the directory holding their top-level package (``sim/rng.py``)."""
    return {label: Path(path) for label, path, _ in _hashed()}


def _hashed() -> list[tuple[str, str, bytes]]:
    """(name, path, text) of every file hashed, in the order of their names."""
    sources = _Sources()
    with_numba: list[tuple[str, str]] = []
    for top in project_packages():
        sources.tops[os.path.basename(top)] = [top]
        paths = _python_files(top)
        kernels = {p for p in paths if _defines_kernels(sources.text(p))}
        with_numba += [(p, top) for p in kernels]
        # Every file of a package of sim/ with kernels (a game's), whether or not an import below reaches it.
        packages = {os.path.dirname(p) for p in kernels} - {top} if top == str(PACKAGE) else set()
        for path in paths:
            if path in kernels or os.path.dirname(path) in packages:
                sources.add(path, top)
    for top in game_packages():
        sources.tops.setdefault(os.path.basename(top).removesuffix(".py"), []).append(top)
        for path in _python_files(top):
            sources.add(path, top)
            if _defines_kernels(sources.text(path)):
                with_numba.append((path, top))
    todo = with_numba
    while todo:
        path, top = todo.pop()
        todo += [(f, root) for f, root in sources.imports(path, top) if sources.add(f, root)]
    return sorted((label, path, sources.text(path)) for path, label in sources.files.items())


def source_digest() -> str:
    h = hashlib.sha256()
    for label, _, text in _hashed():
        h.update(b"%s\0%d\0" % (label.encode(), len(text)))
        h.update(text)
    return h.hexdigest()[:16]


def cache_roots() -> list[Path]:
    """Where the caches of every digest may go, first choice first."""
    if os.environ.get(ROOT_VARIABLE):
        return [Path(os.environ[ROOT_VARIABLE])]
    return [PACKAGE.parent / ".kernel-cache", Path.home() / ".cache" / "lvsim" / "kernels"]


def use_keyed_cache() -> None:
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    digest = source_digest()
    for root in cache_roots():
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
        if "numba" in sys.modules:
            # numba was loaded first (by a caller's import): it reads the variable again before the next kernel
            # is declared, rather than keeping its cache beside the sources.
            sys.modules["numba"].core.config.reload_config()
        return

