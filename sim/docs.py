"""The Knobs and Policies sections of ``docs/games/<id>.md``, written from each game's declaration.

Each game's page holds its knob and policy tables between markers::

    <!-- generated: knobs -->
    ...
    <!-- end generated -->

and the same for ``policies``. The text between them comes from
``Game.describe()`` (what ``lvsim games --json`` prints), so a knob or
policy added to a game appears on its page when the pages are rewritten,
and ``tests/test_docs.py`` fails until they are:

    python -m sim.docs --check    # exit 1 naming every page that is out of date
    python -m sim.docs --write    # rewrite the generated sections in place

Only the text between the markers is touched; the rest of a page is
written by hand.

The pages under ``docs/games/`` are those of the games shipped in this
repository (their Game in a ``sim.`` module). A game from another package
keeps its page in its own package; name it to check or rewrite it too:

    python -m sim.docs --check --page highcard=examples/highcard/README.md
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from sim.config import toml_value
from sim.games import GAME_MODULES, get_game

DOCS_GAMES = Path(__file__).resolve().parent.parent / "docs" / "games"
SECTIONS = ("knobs", "policies")
END = "<!-- end generated -->"
# A default longer than this is shown in the [rules] block under the table, not in it.
CELL_WIDTH = 40
LINE_WIDTH = 88


def game_doc_tables(game) -> dict[str, str]:
    """Markdown for the page's generated sections: ``{"knobs": ..., "policies": ...}``."""
    described = game.describe()
    return {"knobs": _knobs(described), "policies": _policies(described, getattr(game, "default_policy", None))}


def shipped_games() -> list:
    """The games shipped in this repository, whose pages are under ``docs/games/``."""
    return [get_game(g) for g, module in GAME_MODULES.items() if module.startswith("sim.")]


def page_path(game) -> Path:
    return DOCS_GAMES / f"{game.id}.md"


def _knobs(described: dict[str, Any]) -> str:
    knobs = described["knobs"]
    rows = []
    for name, info in knobs.items():
        default = toml_value(info["default"])
        shown = f"`{default}`" if len(default) <= CELL_WIDTH else "in the block below"
        rows.append([f"`{name}`", shown, str(info.get("values", ""))])
    block = "\n".join(_toml_line(name, info["default"]) for name, info in knobs.items())
    low, high = described["players"]
    return "\n".join([
        f"Every knob goes under `[rules]` in a config; a config that leaves one out gets its default. "
        f"Players: {low} to {high}.",
        "",
        _table(["Knob", "Default", "Values"], rows),
        "",
        "Every default, as a config's `[rules]` table:",
        "",
        "```toml",
        "[rules]",
        block,
        "```",
    ])


def _policies(described: dict[str, Any], default_policy: str | None) -> str:
    rows = [[f"`{name}`", f"`{info['syntax']}`", str(info.get("description", ""))]
            for name, info in described["policies"].items()]
    lines = [_table(["Policy", "Written", "How it plays"], rows)]
    if default_policy:
        lines += ["", f"Default player: `{default_policy}`, at every seat of a config without `[policies]`."]
    return "\n".join(lines)


def _table(head: list[str], rows: list[list[str]]) -> str:
    def line(cells):
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(head), line(["---"] * len(head)), *(line(r) for r in rows)])


def _toml_line(name: str, value: Any) -> str:
    """``name = value``; an array too long for one line is spread over lines, as many entries a line as fit."""
    one = f"{name} = {toml_value(value)}"
    if len(one) <= LINE_WIDTH or not isinstance(value, (list, tuple)):
        return one
    lines = [f"{name} = ["]
    row = ""
    for entry in (f"{toml_value(v)}," for v in value):
        if row and len(row) + 1 + len(entry) > LINE_WIDTH:
            lines.append(row)
            row = ""
        row = f"{row} {entry}" if row else f"  {entry}"
    return "\n".join([*lines, row, "]"])


def _replace(text: str, section: str, body: str, where: Path) -> str:
    start = f"<!-- generated: {section} -->"
    pattern = re.compile(re.escape(start) + r"\n.*?" + re.escape(END), re.DOTALL)
    if len(pattern.findall(text)) != 1:
        raise ValueError(f"{where}: needs exactly one '{start}' ... '{END}' section")
    return pattern.sub(lambda _: f"{start}\n{body}\n{END}", text)


def rendered(game, path: Path | None = None) -> tuple[Path, str, str]:
    """The game's page (``path``, else its page under ``docs/games/``): its path, its text now and its text with
    fresh generated sections."""
    path = page_path(game) if path is None else Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no page for game {game.id!r}")
    text = path.read_text(encoding="utf-8")
    fresh = text
    for section, body in game_doc_tables(game).items():
        fresh = _replace(fresh, section, body, path)
    return path, text, fresh


def _pages(extra: dict[str, Path] | None) -> list[tuple[Path, str, str]]:
    """Every shipped game's page, then the pages named in ``extra`` (game id -> page of a game of another package)."""
    return [*(rendered(g) for g in shipped_games()), *(rendered(get_game(g), p) for g, p in (extra or {}).items())]


def stale_pages(extra: dict[str, Path] | None = None) -> list[Path]:
    """The game pages whose generated sections differ from what the games declare."""
    return [path for path, text, fresh in _pages(extra) if text != fresh]


def write_pages(extra: dict[str, Path] | None = None) -> list[Path]:
    """Rewrite every game page's generated sections; the pages that changed."""
    changed = []
    for path, text, fresh in _pages(extra):
        if text != fresh:
            path.write_text(fresh, encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sim.docs", description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 if a page's generated sections are out of date")
    mode.add_argument("--write", action="store_true", help="rewrite the generated sections")
    parser.add_argument("--page", action="append", default=[], metavar="GAME=PATH",
                        help="also the page of a game from another package (repeatable)")
    args = parser.parse_args(argv)
    extra = {}
    for entry in args.page:
        game_id, sep, path = entry.partition("=")
        if not sep or not path:
            parser.error(f"--page {entry!r}: write GAME=PATH")
        if game_id not in GAME_MODULES:
            parser.error(f"--page {entry!r}: no game {game_id!r} is registered")
        extra[game_id] = Path(path)
    if args.write:
        for path in write_pages(extra):
            print(f"rewrote {path}")
        return 0
    stale = stale_pages(extra)
    for path in stale:
        print(f"{path}: out of date; run `python -m sim.docs --write`", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
