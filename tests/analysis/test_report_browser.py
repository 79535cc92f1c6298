"""The report in a real browser: headless Chromium loads it cleanly and shows the summary's numbers.

Uses Debian's ``chromium`` (the project's setup installs it when it can)
driven by Playwright; no browser is downloaded. Without Chromium or
Playwright the test is skipped and says which is missing.
"""

import json
import os
import re
import shutil
from pathlib import Path

import pytest

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def chromium_path() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    executable = chromium_path()
    if executable is None:
        pytest.skip("no Chromium: install Debian's chromium package (`make test` does it when run as root)")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


def shown_number(text: str) -> float:
    """The first number of a text as displayed: a true minus sign, thousands separators, dollars."""
    match = re.search(r"[+\u2212-]?\d[\d,]*(\.\d+)?", text.replace("$", ""))
    assert match, f"no number in {text!r}"
    return float(match.group().replace("\u2212", "-").replace(",", ""))


def decimals_shown(text: str) -> int:
    match = re.search(r"\d(?:\.(\d+))?", text)
    return len(match.group(1) or "") if match else 0


def headline(s: dict, names: str, quantiles: str = "") -> dict:
    """The headline numbers a report shows: those every game's shows (the setup, seat 0's wins, the first-player
    advantage), the summary's own ``names`` and the mean, p50 and p95 of its distribution ``quantiles``."""
    shown = {"players": s["players"], "games": s["games"], "seed": s["seed"], "win_share_0": s["win_share"][0]}
    for name in ["first_player_advantage", "first_player_advantage_ci", *names.split()]:
        shown[name] = s[name]
    for stat in ("mean", "p50", "p95") if quantiles else ():
        shown[f"{quantiles}_{stat}"] = s[quantiles][stat]
    return shown


def las_vegan_metrics(s: dict) -> tuple[dict, set]:
    """The headline numbers of a Las Vegan report, and those shown in percent."""
    expected = headline(s, "elimination_rate mean_rounds elimination_rate_ci mean_rounds_ci")
    return expected, {"win_share_0", "first_player_advantage", "elimination_rate"}


def las_vegas_metrics(s: dict) -> tuple[dict, set]:
    """The headline numbers of a Las Vegas (dice) report, and those shown in percent."""
    expected = headline(s, "first_card_advantage first_card_advantage_ci first_card_share tie_cancel_rate "
                           "tie_cancel_rate_ci white_dice_share unclaimed_share money_tie_rate tie_rate",
                        quantiles="winner_margin")
    percent = {"win_share_0", "first_player_advantage", "first_card_share", "tie_cancel_rate", "white_dice_share",
               "unclaimed_share", "money_tie_rate", "tie_rate"}
    return expected, percent


def fever_metrics(s: dict) -> tuple[dict, set]:
    """The headline numbers of a $ Fever report, and those shown in percent."""
    expected = headline(s, "unfinished_rate unfinished_rate_ci double_gain double_rate drought_rate turns_per_game",
                        quantiles="game_length_turns")
    return expected, {"win_share_0", "first_player_advantage", "unfinished_rate", "double_rate", "drought_rate"}


GAMES = {
    # game: (run fixture, expected headline numbers, figures at least, a section only it has)
    "lasvegan": ("small_run", las_vegan_metrics, 7, "elimination"),
    "vegas-dice": ("small_dice_run", las_vegas_metrics, 5, "ties-white"),
    "fever": ("small_fever_run", fever_metrics, 4, "droughts"),
}


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.slow("end to end")
def test_the_report_loads_cleanly_and_shows_the_summary(browser, request, game):
    fixture, metrics_of, min_figures, own_section = GAMES[game]
    small_run = request.getfixturevalue(fixture)
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    problems, requests = [], []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type in ("error", "warning") else None)
    page.on("pageerror", lambda err: problems.append(str(err)))
    page.on("request", lambda request: requests.append(request.url))
    page.goto(small_run.report.resolve().as_uri(), wait_until="load")

    assert problems == []
    assert all(url.startswith(("file:", "data:")) for url in requests), requests

    images = page.eval_on_selector_all(
        "img", "imgs => imgs.map(i => ({complete: i.complete, width: i.naturalWidth, height: i.naturalHeight}))"
    )
    assert len(images) >= min_figures
    assert all(img["complete"] and img["width"] > 0 and img["height"] > 0 for img in images), images

    shown = page.eval_on_selector_all(
        "[data-metric]", "els => els.map(e => [e.dataset.metric, e.dataset.value, e.innerText])"
    )
    s = small_run.summary
    expected, percent_scaled = metrics_of(s)
    assert {name for name, _, _ in shown} == set(expected)
    for name, value, text in shown:
        assert json.loads(value) == expected[name], name
        if isinstance(expected[name], list):
            continue
        # What a reader sees is the summary's value, rounded to the digits shown.
        scale = 100 if name in percent_scaled else 1
        tolerance = 0.5 * 10 ** -decimals_shown(text) + 1e-9
        assert shown_number(text) == pytest.approx(scale * expected[name], abs=tolerance), (name, text)

    sections = page.eval_on_selector_all("section[id]", "els => els.map(e => e.id)")
    assert sections[0] == "headline" and "examples" in sections and "strength" in sections
    assert own_section in sections
    # The strength section says, in words a reader sees, the summary's verdict on stronger players.
    verdict = page.eval_on_selector("#strength-verdict", "e => [e.innerText, e.dataset.moved]")
    assert verdict[0].strip() == s["strength"]["verdict"]["sentence"]
    assert json.loads(verdict[1]) == s["strength"]["verdict"]["moved"]
    strength_figure = page.eval_on_selector("#strength img", "i => i.naturalWidth")
    assert strength_figure > 0
    # The example games were replayed and match the run's records.
    matches = page.eval_on_selector_all("article.example", "els => els.map(e => e.dataset.replayMatch)")
    assert matches and set(matches) == {"true"}
    page.close()


@pytest.fixture(scope="module")
def small_sweep(tmp_path_factory) -> Path:
    """The report of a small sweep over one key and two keys varied together (six cells)."""
    from sim.sweep import load_sweep, run_sweep

    directory = tmp_path_factory.mktemp("small-sweep")
    (directory / "base.toml").write_text(
        'game = "lasvegan"\n[run]\ngames = 100\nseed = 3\nskill_gap_games = 0\nstrength_games = 0\n'
        'strength_lookahead_games = 0\n[policies]\nseats = "greedy"\n')
    (directory / "s.toml").write_text(
        'base = "base.toml"\n[sweep]\n"rules.golden_token[1]" = [4, 5]\n'
        '"rules.players, rules.starting_cabbages" = [[3, 20], [4, 16], [5, 12]]\n')
    run_sweep(load_sweep(directory / "s.toml"), directory / "out", progress=False)
    return directory / "out" / "sweep.html"


@pytest.mark.slow("end to end")
def test_the_sweep_report_loads_cleanly_and_fits_the_window(browser, small_sweep):
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    problems, requests = [], []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type in ("error", "warning") else None)
    page.on("pageerror", lambda err: problems.append(str(err)))
    page.on("request", lambda request: requests.append(request.url))
    page.goto(small_sweep.resolve().as_uri(), wait_until="load")
    assert problems == []
    assert all(url.startswith(("file:", "data:")) for url in requests), requests
    images = page.eval_on_selector_all(
        "img", "imgs => imgs.map(i => ({complete: i.complete, width: i.naturalWidth, shown: i.clientWidth}))")
    # One figure per axis (the zipped keys are one) and the heat map over both.
    assert len(images) == 3
    assert all(img["complete"] and img["width"] > 0 and 0 < img["shown"] <= 1200 for img in images), images
    headings = page.eval_on_selector_all("h2", "hs => hs.map(h => h.innerText)")
    assert "Against rules.players, rules.starting_cabbages" in headings
    # Nothing runs off the side of the window: wide tables scroll inside their own box.
    assert page.evaluate("document.documentElement.scrollWidth") <= 1200
    page.close()
