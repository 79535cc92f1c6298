"""The workbench in a real browser: `lvsim serve` on a free loopback port, driven by Playwright in Debian's Chromium.

A designer's session: set a rule, play, read the headline metric (it is
`sim.run`'s of the same config and seed), play a second rule set, compare
the two on the same deals, and see a malformed field refused. Then SIGTERM
stops the server and it leaves no file behind. Without Chromium or
Playwright the test is skipped and says which is missing.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

pytest.importorskip("fastapi")

import sim  # noqa: E402
from sim.workbench.fields import config_of  # noqa: E402
from tests.analysis.test_report_browser import browser  # noqa: E402, F401  (Debian's Chromium, or skipped)
from tests.workbench.conftest import PATIENCE_SECONDS, TUNE_TABLES  # noqa: E402

SCREENSHOT = Path(os.environ.get("WORKBENCH_SCREENSHOT", "/tmp/lvsim-workbench.png"))


@pytest.fixture
def server(tmp_path):
    """`lvsim serve --port 0` with its own temporary directory: its address, then what it left when stopped."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    process = subprocess.Popen([sys.executable, "-m", "sim.cli", "serve", "--port", "0"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)
    line = process.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if match is None:
        process.kill()
        pytest.fail(f"no address printed: {line!r} {process.stderr.read()}")
    state = {"address": match.group(0), "process": process, "scratch": scratch}
    yield state
    if process.poll() is None:
        process.kill()
        process.wait()


def opened(chromium, server):
    """The workbench's page, ready, and the list of page errors and console errors seen on it."""
    page = chromium.new_page(viewport={"width": 1200, "height": 1400})
    problems = []
    page.on("pageerror", lambda err: problems.append(str(err)))
    # A refusal is an answer of 400, which the browser's console notes; any other error is a problem.
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" and "status of 400" not in msg.text
            else None)
    page.goto(server["address"], wait_until="load")
    page.wait_for_selector("body[data-ready=true]")
    return page, problems


@pytest.mark.slow
def test_a_designer_sets_a_rule_plays_compares_and_is_refused_a_malformed_field(browser, server):  # noqa: F811
    page, problems = opened(browser, server)
    assert page.locator("select[name=game]").input_value() == "lasvegan"
    for key in ("rules.players", "run.games", "run.seed", "policies.seats", "rules.starting_cabbages"):
        assert page.locator(f"[name='{key}']").count() == 1, key

    page.fill("[name='run.games']", "4000")
    page.fill("[name='run.seed']", "3")

    # The rulebook first: the baseline, timed from pressing play to the first result.
    started = time.perf_counter()
    page.click("[data-action=play]")
    page.wait_for_selector("[data-metric=elimination_rate]", timeout=PATIENCE_SECONDS * 1000)
    first_result = time.perf_counter() - started
    page.wait_for_selector("#result[data-complete=true]", timeout=PATIENCE_SECONDS * 1000)
    baseline = json.loads(page.get_attribute("[data-metric=elimination_rate]", "data-value"))
    baseline_fields = {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}

    # A rule changed: marked, in the address, played.
    page.fill("[name='rules.starting_cabbages']", "10")
    assert "changed" in page.locator("label:has([name='rules.starting_cabbages'])").get_attribute("class")
    fields = {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}
    assert fields["rules.starting_cabbages"] == "10" and fields["run.games"] == "4000"
    page.click("[data-action=play]")
    page.wait_for_selector("#result[data-play=p2][data-complete=true]", timeout=PATIENCE_SECONDS * 1000)
    shown = json.loads(page.get_attribute("[data-metric=elimination_rate]", "data-value"))
    interval = json.loads(page.get_attribute("[data-metric=elimination_rate_ci]", "data-value"))
    verdict = page.text_content("[data-verdict]")

    expected = sim.run(config_of(fields), out=None, progress=False).summary
    assert shown == expected["elimination_rate"] and interval == expected["elimination_rate_ci"]
    # The play is written, so its verdict names its own config.toml in the command that would decide more.
    same_config = re.compile(r"--config \S+ ")
    assert same_config.sub("--config CONFIG ", verdict) == same_config.sub("--config CONFIG ",
                                                                          expected["strength"]["verdict"]["sentence"])
    # The main table alone: the measurements after it do not touch it.
    main_table = replace(config_of(baseline_fields), skill_gap_games=0, strength_games=0, strength_slow_games=0,
                         sensitivity_games=0)
    assert baseline == sim.run(main_table, out=None, progress=False, report=False).summary["elimination_rate"]

    # The two rule sets, compared game by game on the same deals.
    page.check("input[name=baseline][value=p1]")
    page.check("input[name=other][value=p2]")
    page.click("[data-action=compare]")
    row = page.wait_for_selector("[data-compare=elimination_rate]")
    low, high = json.loads(row.query_selector("[data-interval]").get_attribute("data-interval"))
    difference = json.loads(row.query_selector("[data-value]").get_attribute("data-value"))
    assert difference == pytest.approx(shown - baseline, abs=1e-12)
    assert 0 < low <= difference <= high

    # What moves the verdict: the report's section, its tornado figures drawn; the full report in the page.
    page.wait_for_selector("#sensitivity[data-play=p2]:not([hidden])")
    assert "What moves the verdict" in page.text_content("#sensitivity")
    page.click("[data-report-view] summary")
    frame = page.frame_locator("[data-report-frame]")
    assert frame.locator("[data-metric=elimination_rate]").first.get_attribute("data-value") is not None
    assert frame.locator("figure img").count() > 0

    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT), full_page=True)

    # A malformed field: refused in one line naming it, the field marked, nothing played.
    page.fill("[name='rules.players']", "7")
    page.click("[data-action=play]")
    error = page.wait_for_selector("[data-error]:not([hidden])")
    assert error.text_content() == "error: rules.players: must be between 2 and 5, got 7"
    assert page.get_attribute("[name='rules.players']", "aria-invalid") == "true"
    assert page.locator("[data-plays] tr").count() == 2
    assert problems == [], problems
    page.close()
    print(f"\nfirst result of 4,000 games {first_result:.1f} s after pressing play; screenshot {SCREENSHOT}")

    # Stopped as `kill` stops it: no file left behind.
    process = server["process"]
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 0, process.stderr.read()
    assert list(server["scratch"].iterdir()) == []




def reloaded(page):
    """The page reloaded, ready: its list rebuilt from what the server holds."""
    page.reload(wait_until="load")
    page.wait_for_selector("body[data-ready=true]")


def listed(page) -> dict[str, str]:
    """The plays the page lists: id -> state."""
    return {row.get_attribute("data-play"): row.locator("[data-state]").get_attribute("data-state")
            for row in page.locator("[data-plays] tr").all()}


@pytest.mark.slow
def test_a_reloaded_page_lists_the_servers_plays_compares_them_and_follows_one_still_playing(browser,  # noqa: F811
                                                                                              server):
    page, problems = opened(browser, server)
    page.fill("[name='run.games']", "1000")
    page.fill("[name='run.seed']", "5")
    page.fill("[name='policies.seats']", "greedy")
    page.click("[data-action=play]")
    page.wait_for_selector("#result[data-play=p1][data-complete=true]", timeout=PATIENCE_SECONDS * 1000)
    page.fill("[name='rules.starting_cabbages']", "10")
    page.click("[data-action=play]")
    page.wait_for_selector("#result[data-play=p2][data-complete=true]", timeout=PATIENCE_SECONDS * 1000)
    shown = json.loads(page.get_attribute("[data-metric=elimination_rate]", "data-value"))

    # Reloaded: both plays listed with their rules, the last one shown with its metrics, the setup still in the form.
    reloaded(page)
    assert listed(page) == {"p1": "done", "p2": "done"}
    assert "starting_cabbages = 10" in page.text_content("[data-plays] tr[data-play=p2]")
    assert "rulebook" in page.text_content("[data-plays] tr[data-play=p1]")
    assert page.get_attribute("#result", "data-play") == "p2" and page.is_visible("#result")
    assert json.loads(page.get_attribute("[data-metric=elimination_rate]", "data-value")) == shown
    assert page.input_value("[name='rules.starting_cabbages']") == "10"

    # The restored list compares as before, and the pair compared is in the address.
    page.check("input[name=baseline][value=p1]")
    page.check("input[name=other][value=p2]")
    page.click("[data-action=compare]")
    row = page.wait_for_selector("[data-compare=elimination_rate]")
    difference = json.loads(row.query_selector("[data-value]").get_attribute("data-value"))
    served = json.loads(page.evaluate("fetch('/api/compare?baseline=p1&other=p2').then(r => r.text())"))
    assert difference == next(m for m in served["metrics"] if m["key"] == "elimination_rate")["difference"]
    assert urlparse(page.url).fragment == "baseline=p1&other=p2"

    # Reloaded again: the pair checked and compared again from the address.
    reloaded(page)
    assert page.is_checked("input[name=baseline][value=p1]") and page.is_checked("input[name=other][value=p2]")
    assert page.is_visible("#compare") and page.text_content("[data-compare-title]") == "p2 minus p1"
    again = page.get_attribute("[data-compare=elimination_rate] [data-value]", "data-value")
    assert json.loads(again) == difference

    # A play still playing when the page is reloaded is shown playing, then done, as a play just asked for is.
    page.fill("[name='run.games']", "40000")
    page.click("[data-action=play]")
    page.wait_for_selector("[data-plays] tr[data-play=p3]")
    reloaded(page)
    assert listed(page)["p3"] in ("queued", "estimating", "playing", "measuring")
    assert page.is_visible("#progress") and page.text_content("#progress [data-play-id]") == "p3"
    page.wait_for_selector("#result[data-play=p3][data-complete=true]", timeout=PATIENCE_SECONDS * 1000)
    assert listed(page) == {"p1": "done", "p2": "done", "p3": "done"}
    assert page.is_hidden("#progress") and page.is_enabled("input[name=other][value=p3]")
    assert problems == [], problems
    page.close()


@pytest.mark.slow
def test_a_designer_tunes_the_forms_rules_and_loads_the_answer_into_the_form(browser, server):  # noqa: F811
    page, problems = opened(browser, server)
    # The page offers a small tune of the form's rules, which the tune reader takes as it is.
    assert "[search]" in page.input_value("[data-tune-tables]")

    # A malformed tune: refused in one line naming the key, nothing started.
    page.fill("[data-tune-tables]", TUNE_TABLES.replace("budget = 3", "budget = 0"))
    page.click("[data-action=tune]")
    error = page.wait_for_selector("[data-tune-error]:not([hidden])")
    assert error.text_content().startswith("error: tune.budget: ")

    page.fill("[name='run.seed']", "7")
    page.fill("[data-tune-tables]", TUNE_TABLES)
    page.click("[data-action=tune]")
    page.wait_for_selector("#tune[data-state=done]", timeout=PATIENCE_SECONDS * 1000)
    tune_id = page.get_attribute("#tune", "data-tune")
    answer = json.loads(page.evaluate(f"fetch('/api/tunes/{tune_id}').then(r => r.text())"))
    assert page.text_content("[data-tune-headline]") == answer["answer"]["verdict"]["headline"]
    assert page.text_content("[data-tune-sentence]") == answer["answer"]["recommendation"]["sentence"]
    # The progress line's games are the estimate's range, as the dry run says it, which held the games played.
    (low, likely, high), played = answer["games_said"], answer["games_played"]
    assert low <= played <= high
    assert page.text_content("[data-tune-status]").endswith(
        f"{played:,} games of likely {likely:,} ({low:,} to {high:,})")
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOT.with_name(SCREENSHOT.stem + "-tune.png")
    page.screenshot(path=str(shot), full_page=True)

    # The recommended rules, loaded into the form: what a play would now send.
    page.click("[data-action=tune-load]")
    best = answer["best_fields"]
    assert page.input_value("[name='rules.starting_cabbages']") == best.get("rules.starting_cabbages", "15")
    assert page.input_value("[name='policies.seats']") == "greedy"

    # Reloaded: the tune is the server's, shown again with its tables and answer, and listed.
    reloaded(page)
    assert page.get_attribute("#tune", "data-tune") == tune_id and page.get_attribute("#tune", "data-state") == "done"
    assert page.input_value("[data-tune-tables]") == TUNE_TABLES
    assert page.text_content("[data-tune-headline]") == answer["answer"]["verdict"]["headline"]
    assert page.get_attribute(f"[data-tunes] tr[data-tune={tune_id}] [data-state]", "data-state") == "done"
    assert problems == [], problems
    page.close()
    print(f"\ntune shown; screenshot {shot}")
