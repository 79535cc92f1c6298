"""The docs say what the code does: generated game tables are current, every page has its sections, links resolve."""

import re
import tomllib
from pathlib import Path

import pytest

from sim import docs
from sim.games import GAME_IDS, get_game

ROOT = Path(__file__).resolve().parents[1]
GAME_SECTIONS = ["Knobs", "Policies", "Metrics", "Open decisions", "Order of events and draws", "Replay schema"]
PAGES = sorted([ROOT / "README.md", ROOT / "bench" / "README.md", *(ROOT / "docs").rglob("*.md")])
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def test_the_generated_sections_of_every_game_page_are_current():
    stale = [str(p.relative_to(ROOT)) for p in docs.stale_pages()]
    assert stale == [], f"out of date: {stale}; run `python -m sim.docs --write`"
    assert docs.main(["--check"]) == 0


# The pages under docs/games/ are the shipped games'; a game from another package keeps its page in its package.
@pytest.mark.parametrize("game", docs.shipped_games(), ids=lambda g: g.id)
def test_every_game_page_has_the_same_sections_in_the_same_order(game):
    text = docs.page_path(game).read_text(encoding="utf-8")
    assert re.findall(r"^## (.+)$", text, re.MULTILINE) == GAME_SECTIONS


@pytest.mark.parametrize("game", docs.shipped_games(), ids=lambda g: g.id)
def test_the_rules_block_of_a_page_reads_back_as_the_games_defaults(game):
    knobs = docs.game_doc_tables(game)["knobs"]
    block = re.search(r"```toml\n(.*?)```", knobs, re.DOTALL).group(1)
    defaults = {name: info["default"] for name, info in game.describe()["knobs"].items()}
    assert tomllib.loads(block)["rules"] == defaults
    for name in defaults:
        assert f"| `{name}` |" in knobs


def test_the_shipped_games_are_the_games_of_this_package():
    assert [g.id for g in docs.shipped_games()] == [g for g in GAME_IDS if docs.GAME_MODULES[g].startswith("sim.")]
    assert all(docs.page_path(g).is_file() for g in docs.shipped_games())


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_page_kept_elsewhere_is_checked_and_rewritten_when_named(tmp_path, game_id, capsys, monkeypatch):
    monkeypatch.setattr(docs, "shipped_games", lambda: [])  # --write leaves the pages of docs/games/ alone here
    page = tmp_path / "README.md"
    page.write_text("# A game\n\n<!-- generated: knobs -->\nold\n<!-- end generated -->\n\n"
                    "<!-- generated: policies -->\nold\n<!-- end generated -->\n", encoding="utf-8")
    named = ["--page", f"{game_id}={page}"]
    assert docs.main(["--check", *named]) == 1 and str(page) in capsys.readouterr().err
    assert docs.main(["--write", *named]) == 0
    assert docs.main(["--check", *named]) == 0
    assert docs.game_doc_tables(get_game(game_id))["knobs"] in page.read_text(encoding="utf-8")
    assert page.read_text(encoding="utf-8").startswith("# A game\n")


def test_a_rewrite_touches_only_the_text_between_the_markers():
    page = "intro\n<!-- generated: knobs -->\nold\nlines\n<!-- end generated -->\nhand text\n"
    assert docs._replace(page, "knobs", "new", Path("x.md")) == (
        "intro\n<!-- generated: knobs -->\nnew\n<!-- end generated -->\nhand text\n")
    with pytest.raises(ValueError, match="generated: policies"):
        docs._replace(page, "policies", "new", Path("x.md"))


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    return {slug(h) for h in re.findall(r"^#+ (.+)$", text, re.MULTILINE)}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_of_a_page_resolves(page):
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        path = (page.parent / file).resolve() if file else page
        if not path.exists() or (anchor and path.suffix == ".md" and anchor not in anchors(path)):
            broken.append(target)
    assert broken == []
