"""The docs say what the code does: generated game tables are current, every page has its sections, links resolve,
and a figure the code declares (a default, a limit, a compile time) reads the same on the page that states it."""

import ast
import re
import tomllib
from pathlib import Path

import pytest

from sim import docs
from sim.games import GAME_IDS, get_game

ROOT = Path(__file__).resolve().parents[1]
GAME_SECTIONS = ["Knobs", "Policies", "Metrics", "Open decisions", "Order of events and draws", "Replay schema"]
NOTES = sorted((ROOT / "bench" / "notes").glob("*.md"))
PAGES = sorted([ROOT / "README.md", ROOT / "bench" / "README.md", *NOTES, *(ROOT / "docs").rglob("*.md")])
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


# A page a user reads in one sitting; an investigation's log is cut to its conclusions (bench/notes/).
@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_page_is_short_enough_to_read(page):
    lines = len(page.read_text(encoding="utf-8").splitlines())
    assert lines <= (250 if page == ROOT / "bench" / "README.md" else 400)


def test_the_investigation_notes_live_beside_the_benchmarks():
    assert NOTES and not list((ROOT / "docs").rglob("notes/*.md"))


def page(relative: str) -> str:
    """A page's text with its line breaks as spaces, so a phrase is found however the page wraps it."""
    return " ".join((ROOT / relative).read_text(encoding="utf-8").split())


def one(pattern: str, text: str, where: str) -> str:
    """The single match of ``pattern``'s group in ``text``: a figure said once on its page."""
    found = re.findall(pattern, text)
    assert len(found) == 1, f"{where}: expected one match of {pattern!r}, got {found}"
    return found[0]


def chosen_defaults() -> dict[str, list[str]]:
    """bench/README.md's table of default players: game title -> the candidates marked chosen."""
    text = (ROOT / "bench" / "README.md").read_text(encoding="utf-8")
    table = text.split("\n## Default players\n")[1].split("\n## ")[0]
    chosen, title = {}, None
    for row in re.findall(r"^\|(.*)\|$", table, re.MULTILINE):
        cells = [c.strip() for c in row.split("|")]
        if cells[0].endswith(")") and " (reference" in cells[0]:
            title = cells[0].split(" (reference")[0]
        marked = re.fullmatch(r"\*\*`([^`]+)`\*\*", cells[-1])
        if marked:
            chosen.setdefault(title, []).append(marked.group(1))
    return chosen


@pytest.mark.parametrize("game", docs.shipped_games(), ids=lambda g: g.id)
def test_every_page_that_names_a_games_default_player_names_the_one_it_declares(game):
    game_page = " ".join(docs.page_path(game).read_text(encoding="utf-8").split())
    assert one(r"\*\*Default player: `([^`]+)`", game_page, f"{game.id}'s page") == game.default_policy
    readme = page("README.md")
    paragraph = readme[readme.index(f"(`{game.id}`"):].split("**", 1)[0]
    assert one(r"Default player: `([^`]+)`", paragraph, f"README's {game.id}") == game.default_policy
    assert chosen_defaults()[game.title] == [game.default_policy]


def test_the_cost_limit_of_a_default_player_is_the_one_bench_defaults_applies():
    tree = ast.parse((ROOT / "bench" / "bench_defaults.py").read_text(encoding="utf-8"))
    limit = next(node.value.value for node in tree.body if isinstance(node, ast.Assign)
                 and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["COST_LIMIT"])
    rule = page("docs/policies.md").split("## Default players")[1]
    assert float(one(r"costs at most (\d+(?:\.\d+)?)× the game's", rule, "docs/policies.md")) == limit


def test_the_default_run_is_described_as_configs_default_toml_plays_it():
    import sim

    config = sim.load_config(ROOT / "configs" / "default.toml")
    seats = set(config.seat_policies)
    assert len(seats) == 1 and config.players == 4
    (policy,) = seats
    assert f"{config.games:,} games of the rulebook game at {config.players} players, every seat played by " \
           f"`{policy}`" in page("README.md")
    assert f"`configs/default.toml` is the rulebook game at {config.players} players, every seat `{policy}`" \
        in page("docs/games/lasvegan.md")
    slow_policy = get_game(config.game).strength_slow_policy
    assert f"so `make run` ({config.games:,} games) plays {config.strength_sizes[1]} `{slow_policy}` games" \
        in page("docs/running.md")


@pytest.mark.parametrize("game", docs.shipped_games(), ids=lambda g: g.id)
def test_a_games_compile_seconds_are_the_times_measured_on_the_first_run_page(game):
    """``compile_seconds`` (what the notice calls usual) is the CPU time the page's table measured, rounded."""
    running = page("docs/running.md")
    row = one(rf"\| {re.escape(game.title)} \(`{re.escape(game.id)}`\) \| ([^|]+\|[^|]+\|[^|]+) \|", running,
              "docs/running.md's compile table")
    player, cpu, _wall = (cell.strip() for cell in row.split("|"))
    assert player == f"`{game.default_policy}`"
    measured = [float(x) for x in cpu.split(",")]
    assert min(measured) - 0.5 <= game.compile_seconds <= max(measured) + 0.5
    if game.compile_every_seconds is not None:  # its kernel of every policy, measured alone
        low, high = (float(x) for x in one(r"\((\d+)–(\d+) s into an empty cache alone", running,
                                            "docs/running.md's kernel of every policy"))
        assert low - 0.5 <= game.compile_every_seconds <= high + 0.5
    if game.id == "lasvegan":
        from sim.estimates.compiling import QUIET_SECONDS, usual_text

        assert f"Compiling the kernels of {game.title} (the first use after an install or a change to them; " \
               f"{usual_text(game.id)};" in running
        assert f"once nothing has compiled for {QUIET_SECONDS:g} s" in running


def test_the_tune_page_states_the_searchs_constants_and_defaults():
    from sim.tune import spec
    from sim.tune.tunefile import tune_from_mapping

    tune = page("docs/tune.md")
    assert f"The sampler proposes {spec.SEARCH_BATCH} trials (`SEARCH_BATCH`)" in tune
    assert f"(the tune's seed + {spec.FRESH_SEED_STEP:,})" in tune
    assert re.search(rf"their games multiplied by {spec.FINAL_GROWTH} until", tune)
    assert spec.HALVING == 3 and "the best third of the distinct candidates is played again with three times" in tune
    plain = tune_from_mapping({"base": "default.toml", "search": {"rules.golden_token": {"faces": [1, 6]}},
                               "targets": {"elimination_rate": [0.4, 0.6]}}, base_dir=ROOT / "configs")
    table = (ROOT / "docs" / "tune.md").read_text(encoding="utf-8").split("### `[tune]`")[1].split("\n## ")[0]
    default = dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", table, re.MULTILINE))
    assert default["budget"].strip() == f"{plain.budget:,}"
    assert default["games"].strip() == f"{plain.games:,}"
    assert default["finalists"].strip() == f"{plain.finalists:,}"
    assert default["max_games"].strip() == f"{plain.max_games // plain.games} × `games`"


def test_the_confirm_page_states_its_budgets_defaults():
    from analysis.sequential import FIRST_LOOK
    from sim.confirm.running import DEFAULT_MAX_GAMES, DEFAULT_MAX_MINUTES, DEFAULT_MAX_SLOW_GAMES, PILOT

    options = page("docs/confirm.md")
    assert (f"| `--max-games N` | most games of the judged policy at each setting (default {DEFAULT_MAX_GAMES:,}; "
            f"at least {FIRST_LOOK:,}, the first look); with `--config` alone it plays only the stronger tables' "
            "deals: at most `--max-slow-games` |") in options
    assert f"(default {DEFAULT_MAX_SLOW_GAMES:,}; 0 plays none, else at least {FIRST_LOOK:,})" in options
    assert f"time budget for the whole confirmation (default {DEFAULT_MAX_MINUTES:g})" in options
    assert f"(a slow table plays {PILOT:,} games to measure its speed first)" in options


def test_the_openspiel_page_states_the_most_games_a_reference_engine_seat_plays():
    from sim.policy_spec import MOST_REFERENCE_GAMES

    assert f"refused above {MOST_REFERENCE_GAMES:,} games" in page("docs/openspiel.md")
