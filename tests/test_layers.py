"""The layers stay apart: only the registry names a game, and no module imports itself back.

Shared modules (``sim/*.py`` and ``analysis/*.py``) serve every game through
``sim.games``; a game package (``sim/<game>/``) may use the shared ones and its
own. The import graph has no cycle, counting every import, lazy ones included,
and every module a ``"module:name"`` string names for a lazy import
(docs/architecture.md draws the layers).
"""

import ast
from functools import cache
from pathlib import Path

import pytest

from sim.games import GAME_MODULES

ROOT = Path(__file__).resolve().parents[1]
# The games shipped here (a game installed from another package lives outside this tree).
GAME_PACKAGES = sorted({module.split(".")[1] for module in GAME_MODULES.values() if module.startswith("sim.")})
REGISTRY = "sim.games"
# The modules ``sim.game.laid_out(package)`` imports when first used.
LAID_OUT = ("enums", "params", "policies", "records", "nb", "replay", "summary", "report")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(p): p for top in ("sim", "analysis") for p in (ROOT / top).rglob("*.py")}


@cache
def imports(path: Path, *, top_level_only: bool, named: bool = False) -> frozenset[str]:
    """Modules of this project that ``path`` imports (module level only, or anywhere); with ``named``, also those
    a string names as ``"module:name"``, the way a game declares what is imported when first used."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif named and isinstance(node, ast.Constant) and isinstance(node.value, str) and ":" in node.value:
            found.add(node.value.split(":", 1)[0])
        elif (named and isinstance(node, ast.Call) and getattr(node.func, "id", None) == "laid_out" and node.args
              and isinstance(node.args[0], ast.Constant)):
            found.update(f"{node.args[0].value}.{part}" for part in LAID_OUT)
    known = modules()
    return frozenset(m for m in found if m in known)


def is_game_module(name: str) -> bool:
    parts = name.split(".")
    return len(parts) >= 2 and parts[0] in ("sim", "analysis") and parts[1] in GAME_PACKAGES


def test_every_registered_game_is_one_package():
    """Rules, kernel, policies, tally, summary and report sections together, as a plugin game's are."""
    for package in GAME_PACKAGES:
        for part in ("game", "rules", "nb", "policies", "summary", "report"):
            assert (ROOT / "sim" / package / f"{part}.py").is_file(), f"sim/{package}/{part}.py"
        assert not (ROOT / "analysis" / package).exists(), f"analysis/{package}/: a game keeps its analysis in sim/{package}/"


@pytest.mark.parametrize("name", sorted(n for n in modules() if not is_game_module(n) and n != REGISTRY))
def test_shared_modules_import_no_game(name):
    """Anywhere in the module, lazy imports included: the machinery reaches a game through the registry."""
    games = sorted(m for m in imports(modules()[name], top_level_only=False) if is_game_module(m))
    assert games == [], f"{name} imports {games}; ask sim.games for the game instead"


def test_imports_have_no_cycle():
    graph = {name: imports(path, top_level_only=False, named=True) for name, path in modules().items()}
    # A module's import of a package also runs the package's __init__: an edge to it.
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycle = trail[trail.index(nxt):] + [nxt] if nxt in trail else [node, nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def test_shared_modules_name_no_game_nor_what_only_some_games_have():
    """What a shared module knows of a game comes from the game's declarations, never from its words: no game id,
    and no knob, metric or policy name that only some games have (tools/game_words.py lists any it finds)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("game_words", ROOT / "tools" / "game_words.py")
    census = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(census)
    found = census.census()
    assert found == [], "\n".join(f"{f}:{line}: [{words}] {text}" for f, line, words, text in found)
