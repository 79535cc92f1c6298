"""Where the shared machinery still names a game: the census behind "a game is a declaration".

Reads every shared module (``sim/`` and ``analysis/`` outside the game
packages and the registry) and lists each line whose code — names and
string literals, not comments or docstrings — says a game's id, a knob,
metric or policy that not every game has. Everything a shared module needs
to know of a game should come from the game's declarations instead.

    python tools/game_words.py          # the lines, then the count
    python tools/game_words.py --count  # the count alone
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import sim.metrics  # noqa: E402
from sim.games import GAME_MODULES, all_games  # noqa: E402

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def vocabulary() -> dict[str, str]:
    """Word -> what it is (``knob of lasvegan``), for the words that belong to some games and not all."""
    games = all_games()
    owners: dict[str, set[str]] = {}
    kinds: dict[str, str] = {}

    def add(word: str, game: str, kind: str) -> None:
        owners.setdefault(word, set()).add(game)
        kinds[word] = kind

    for g in games:
        add(g.id.replace("-", "_"), g.id, "game id")
        module = GAME_MODULES[g.id]
        add(module.split(".")[1] if module.startswith("sim.") else module.split(".")[0], g.id, "game package")
        for knob in g.knobs:
            add(knob, g.id, "knob")
        for metric in getattr(g, "metrics", ()):
            add(getattr(metric, "name", metric), g.id, "metric")
        for policy in g.policy_syntax:
            add(policy, g.id, "policy")
    every = {g.id for g in games}
    common = {m.name for m in vars(sim.metrics).values() if isinstance(m, sim.metrics.Metric)}  # declared for all
    return {w: f"{kinds[w]} of {', '.join(sorted(o))}" for w, o in owners.items() if o != every and w not in common}


def shared_modules() -> list[Path]:
    packages = {m.split(".")[1] for m in GAME_MODULES.values() if m.startswith("sim.")}
    registry = ROOT / "sim" / "games.py"
    out = []
    for top in ("sim", "analysis"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT / top).parts
            if len(rel) > 1 and rel[0] in packages or path == registry:
                continue
            out.append(path)
    return out


def code_words(path: Path, distinctive: set[str]) -> dict[int, set[str]]:
    """Line -> the words its code says of a game: attribute names (``rules.rounds``), and in string literals
    (not docstrings) the distinctive words (ids, names with an underscore) or a whole literal (``"rounds"``).

    A plain English word used for something else (a local variable ``target``, "every target met") is not
    counted.
    """
    found: dict[int, set[str]] = {}
    tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline))
    for i, tok in enumerate(tokens):
        if tok.type == tokenize.NAME:
            if i == 0 or tokens[i - 1].string != ".":
                continue
            words = {tok.string}
        elif tok.type == tokenize.STRING:
            before = next((t for t in reversed(tokens[:i]) if t.type not in (tokenize.NL, tokenize.COMMENT)), None)
            after = next((t for t in tokens[i + 1:] if t.type not in (tokenize.NL, tokenize.COMMENT)), None)
            lone = (before is None or before.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
                    or before.string == ":") and (after is None or after.type == tokenize.NEWLINE)
            if lone:
                continue  # a docstring
            body = tok.string.strip("rbfuRBFU").strip("\"'")
            words = {w for w in WORD.findall(tok.string) if w in distinctive or "_" in w} | {body}
        else:
            continue
        found.setdefault(tok.start[0], set()).update(words)
    return found


def census() -> list[tuple[str, int, str, str]]:
    """(file, line, word, what it is) for every shared line naming something of some games."""
    vocab = vocabulary()
    distinctive = {w for w, what in vocab.items() if what.startswith(("game id", "game package"))}
    rows = []
    for path in shared_modules():
        lines = path.read_text(encoding="utf-8").splitlines()
        for line, words in sorted(code_words(path, distinctive).items()):
            hits = sorted(w for w in words if w in vocab)
            if hits:
                rows.append((str(path.relative_to(ROOT)), line, ", ".join(hits), lines[line - 1].strip()))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", action="store_true", help="print the number of lines only")
    args = parser.parse_args()
    rows = census()
    if not args.count:
        for file, line, words, text in rows:
            print(f"{file}:{line}: [{words}] {text[:100]}")
    print(f"{len(rows)} lines of shared modules name a game, or a knob, metric or policy of some games")


if __name__ == "__main__":
    main()
