"""The HTML balance report: what a designer reads after a run.

:func:`write_report` turns a results directory into one self-contained
HTML file (figures embedded as PNG data, styles inline, no script, nothing
fetched), so it opens from disk or from an e-mail attachment. The report
is made of the run's records and summary only; the two example games are
played again from their game index and seed by the reference engine
(``sim.lasvegan.story``), and the report says whether the replay matches
the stored record of each.

The headline numbers carry ``data-metric`` / ``data-value`` attributes
holding the summary's exact values (JSON), so a test can read them back.
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from sim.lasvegan import figures, tables
from analysis.report import write_report  # noqa: F401  (kept importable from here)
from analysis.player_sections import report_page
from analysis.report_html import (  # noqa: F401  (first_player_verdict: kept importable from here)
    CLOSING_SECTIONS, PLAYER_SECTIONS, ci_pct as _ci_pct, decimals as _decimals, e as _e, fair_pct as _fair_pct,
    figure as _figure, first_player_card, first_player_verdict, headline, method_section,
    examples_section, num as _num, pct as _pct, pm_pct as _pm_pct, metric as _metric,
    seat_cells, section as _section, setup_facts, signed_cell as _signed_cell, table as _table,
)
from analysis.results import RunResults
from analysis.stats import wilson_interval
from sim.lasvegan.enums import SUIT_NAMES
from sim.lasvegan.params import Rules
from sim.lasvegan.rules import parse_card, suit_of
from sim.lasvegan.story import GameStory, replay_game, signed, tell_game

HOLE_TEXT = {
    "shortfall": (
        "The reserve could not pay a gain",
        "a player won cabbages the finite reserve no longer held; the unpaid part is lost",
    ),
    "seven_no_slot": (
        "A 7 found no free slot",
        "a 7 was won while every machine already held a token and the golden token was placed",
    ),
    "zero_playing_on": (
        "A player at 0 cabbages played on",
        "a round began with a player at 0 cabbages (possible only when elimination does not end the game)",
    ),
}


def build_report(results: RunResults) -> str:
    """The report of a run as one HTML document."""
    own = [
        _headline(results),
        _first_player_section(results),
        _elimination_section(results),
        _swings_section(results),
        _drivers_section(results),
    ]
    return report_page(results, "Las Vegan", SECTIONS, own, _examples_section, _method_section,
                       after=[_rule_holes_section], extra_css=_CSS)


# --- the page ----------------------------------------------------------------------


SECTIONS = (
    ("first-player", "First-player advantage"),
    ("elimination", "Elimination"),
    ("swings", "Cabbage swings"),
    ("drivers", "What drives the swings"),
    *PLAYER_SECTIONS,
    ("rule-holes", "Rule holes"),
    *CLOSING_SECTIONS,
)


# --- headline ---------------------------------------------------------------------------


def elimination_verdict(summary: dict, ends: pd.DataFrame, end_on_elimination: bool) -> str:
    """One sentence on how often someone runs out of cabbages, and when."""
    rate, (low, high) = summary["elimination_rate"], summary["elimination_rate_ci"]
    games = summary["games"]
    if not rate:
        return (
            f"Nobody ran out of cabbages in any of the {games:,} games "
            f"(the rate is at most {_pct(high, _decimals(100 * high, 1, 4))}, 95% upper bound)."
        )
    d = _decimals(100 * (high - low) / 2)
    ran_out = ends[ends["reason"] != tables.END_REASONS[2]].groupby("round")["count"].sum()
    text = f"Someone runs out of cabbages in {_pct(rate, d)} of games (95% CI {_ci_pct(low, high, d)})"
    if end_on_elimination:
        return f"{text}, which ends the game; {_peak_round_words(ran_out)}."
    return f"{text}; elimination does not end the game here, so they play on at 0."


def _peak_round_words(ran_out: pd.Series) -> str:
    """In which round most eliminations come, as far as the games tell: "most" when the round's share of them has
    a 95% interval above one half; "more … than in any other" when, of the eliminations in it and in each other
    round, its part has a 95% interval above one half (two counts of the same games compared, as a sign test
    does); else the rounds the games do not tell apart from it."""
    total = int(ran_out.sum())
    order = ran_out.sort_values(ascending=False, kind="stable")
    peak, count = int(order.index[0]), int(order.iloc[0])
    share = count / total
    if wilson_interval(count, total)[0] > 0.5:
        return f"most such games ({_pct(share, 0)}) end in round {peak}"
    close = [(int(r), int(c)) for r, c in order.iloc[1:].items()
             if c and wilson_interval(count, count + int(c))[0] <= 0.5]
    if not close:
        return f"more such games end in round {peak} ({_pct(share, 0)}) than in any other"
    rounds = " or ".join(f"round {r} ({_pct(c / total, 0)})" for r, c in [(peak, count), *close])
    return f"{total:,} such games cannot tell in which round most of them end: {rounds}"


def length_verdict(summary: dict) -> str:
    """One sentence on how long games last."""
    rounds = summary["rounds"]
    mean, (low, high) = summary["mean_rounds"], summary["mean_rounds_ci"]
    full = summary["end_round_share"][-1]
    plural = "s" if rounds != 1 else ""
    if full == 1:
        return f"Every game is played to the last of its {rounds} round{plural}."
    if low is None or high is None:
        return f"Games last {_num(mean, 2)} of {rounds} round{plural} on average."
    half = (high - low) / 2
    d = _decimals(half, 2, 3)
    return (
        f"Games last {_num(mean, d)} ± {_num(half, d)} of {rounds} round{plural} on average; "
        f"{_pct(full)} are played to the last round."
    )


def _headline(results: RunResults) -> str:
    s = results.summary
    rules = results.config.rules
    ends = tables.game_ends(results.tally)
    elim, elim_ci = s["elimination_rate"], s["elimination_rate_ci"]
    d_elim = _decimals(100 * (elim_ci[1] - elim_ci[0]) / 2)
    rounds, rounds_ci = s["mean_rounds"], s["mean_rounds_ci"]
    d_rounds = _decimals((rounds_ci[1] - rounds_ci[0]) / 2, 2) if None not in rounds_ci else 2
    cards = [
        first_player_card(s),
        (
            "Elimination rate",
            _metric("elimination_rate", elim, _pct(elim, d_elim)),
            "95% CI " + _metric("elimination_rate_ci", elim_ci, _ci_pct(*elim_ci, d_elim)),
            elimination_verdict(s, ends, rules.end_on_elimination),
        ),
        (
            "Mean game length",
            _metric("mean_rounds", rounds, f"{_num(rounds, d_rounds)} rounds"),
            "95% CI "
            + _metric(
                "mean_rounds_ci", rounds_ci,
                f"{_num(rounds_ci[0], d_rounds)}–{_num(rounds_ci[1], d_rounds)}" if None not in rounds_ci else "n/a",
            )
            + f" · of {s['rounds']}",
            length_verdict(s),
        ),
    ]
    return headline(setup_facts(results), cards)


# --- sections ---------------------------------------------------------------------------


def _first_player_section(results: RunResults) -> str:
    rec = results.tally
    s = results.summary
    by_seat = tables.win_share_by_seat(rec)
    by_last = tables.win_share_by_last_leader(rec)
    by_position = tables.round_change_by_leader_position(rec)
    finals = tables.final_cabbages_by_seat(rec)
    rows = [[*seat_cells(results, seat, "leads round 1"), _num(f["mean"], 2), f"{_num(f['low'], 2)}–{_num(f['high'], 2)}"]
            for seat, f in finals.iterrows()]
    table = _table(["seat", "policy", "win share", "95% CI", "final cabbages", "95% CI"], rows, numeric_from=2)
    leader = by_last.iloc[0]
    body = [
        f'<p class="lead">{_e(first_player_verdict(s))}</p>',
        _figure(
            lambda: figures.win_share_figure(by_seat, by_last),
            "Bar charts of win share by seat and by place after the last round's leader, with 95% intervals",
            "Bars: share of games won (a tie shares the win); black: 95% interval; dashed: the fair share. "
            "Left: by seat; seat 0 leads the first trick of the game. Right: counted clockwise from the seat "
            "that led the game's last round (the winner of the round before's last trick) — "
            f"that seat wins {_pm_pct(leader['mean'], leader['low'], leader['high'])} of games. "
            "That is not an advantage of leading the last round: the leader is whoever won the previous "
            "round's last trick, so the seat is picked by how its game went (a selection effect). The seat "
            "advantage the rules give is on the left.",
        ),
        table,
        _figure(
            lambda: figures.leader_edge_figure(by_position),
            "Grouped bars of the mean cabbage change in each round by place from the round's leader",
            "Mean cabbage change of a seat in one round, by its place clockwise from the seat leading that "
            "round (round 1: seat 0; later rounds: the winner of the previous round's last trick), with 95% "
            "intervals over the games that played the round.",
        ),
    ]
    return _section("first-player", "First-player advantage", "\n".join(body))


def _elimination_section(results: RunResults) -> str:
    rec = results.tally
    s = results.summary
    rules = results.config.rules
    ends = tables.game_ends(rec)
    ran_out = tables.ran_out_by_seat(rec, rules.seat_starting)
    # A way of ending that never happened (playing on at 0 when elimination
    # ends the game) would only add a column of zeros.
    reasons = [r for r in tables.END_REASONS if ends.loc[ends["reason"] == r, "count"].sum()]
    rows = []
    for r in range(1, results.config.rules.rounds + 1):
        cells = [f"round {r}"]
        for reason in reasons:
            row = ends[(ends["round"] == r) & (ends["reason"] == reason)].iloc[0]
            if row["count"]:
                cells.append(f"{_pct(row['rate'])} <span class=\"muted\">({_ci_pct(row['low'], row['high'])})</span>")
            else:
                cells.append('<span class="muted">none</span>')
        rows.append(cells)
    end_table = _table(["game ends after", *reasons], rows)
    seat_rows = [
        [f"seat {int(r.seat)}", f"{int(r['count']):,}", _pct(r["rate"]), _ci_pct(r["low"], r["high"])]
        for _, r in ran_out.iterrows()
    ]
    body = [
        f'<p class="lead">{_e(elimination_verdict(s, ends, rules.end_on_elimination))}</p>',
        _figure(
            lambda: figures.elimination_figure(ends, ran_out),
            "Stacked bars of the round games end in, and bars of how often each seat runs out of cabbages",
            "Left: share of all games ending after each round, by whether a seat reached 0 cabbages. "
            "Right: share of games in which each seat reached 0 cabbages at some point, with 95% Wilson "
            "intervals.",
        ),
        end_table,
        _table(["seat", "games at 0", "share", "95% CI"], seat_rows),
    ]
    return _section("elimination", "Elimination", "\n".join(body))


def _has_extra(rules) -> bool:
    return any(n != rules.starting_cabbages for n in rules.seat_starting)


def _starting_text(rules) -> str:
    """``15 starting cabbages``, and the seats that start with more: ``(seat 0: 16)``."""
    text = f"{rules.starting_cabbages} starting cabbages"
    if not _has_extra(rules):
        return text
    more = ", ".join(f"seat {s}: {n}" for s, n in enumerate(rules.seat_starting) if n != rules.starting_cabbages)
    return f"{text} ({more})"


def _swings_section(results: RunResults) -> str:
    rec = results.tally
    s = results.summary
    rules = results.config.rules
    hist = tables.swing_histogram(rec)
    by_seat = tables.swing_by_seat(rec)
    trajectory = tables.trajectory_quantiles(rec, rules.starting_cabbages)
    swing = s["swing"]
    rows = [
        [f"seat {int(r.seat)}", _num(r["mean"], 2, sign=True), f"{_num(r['low'], 2)} to {_num(r['high'], 2)}",
         _num(r["sd"], 2), f"{_num(r['p05'], 0)} to {_num(r['p95'], 0)}"]
        for _, r in by_seat.iterrows()
    ]
    lead = (
        f"In one round a seat's cabbages change by {_num(swing['mean'], 2, sign=True)} on average "
        f"(sd {_num(swing['sd'], 2)}); 90% of changes lie between {_num(swing['p05'], 0)} and "
        f"{_num(swing['p95'], 0)}. Over the game the median seat ends with {_num(s['final_cabbages']['p50'], 0)} "
        f"of its {_starting_text(rules)}."
    )
    body = [
        f'<p class="lead">{_e(lead)}</p>',
        _figure(
            lambda: figures.swing_figure(hist),
            "Histogram of the cabbage change of one seat in one round",
            "Every seat in every round played counts once. Green: gains, vermillion: losses, grey: no change.",
        ),
        _table(["seat", "mean change per round", "95% CI", "sd", "5th–95th percentile"], rows),
        _figure(
            lambda: figures.cabbages_figure(tables.final_cabbages_by_seat(rec), trajectory, rules.starting_cabbages),
            "Box plots of final cabbages by seat and the median cabbage trajectory with percentile bands",
            "Left: final cabbages; box: quartiles, line: median, dot: mean, whiskers: 5th and 95th percentiles, "
            f"dashed: the {rules.starting_cabbages} starting cabbages. Right: cabbages of a seat (all seats "
            "together) at the start and after each round; a game that has ended keeps its final count."
            + (f" Each seat's cabbages are counted from the {rules.starting_cabbages} starting cabbages, its extra "
               "ones left out." if _has_extra(rules) else ""),
        ),
    ]
    return _section("swings", "Cabbage swings", "\n".join(body))


def loss_words(drivers: pd.DataFrame) -> str:
    """The kind of machine most cabbages are lost on, as far as the games tell: "most" only when more than half
    are, the share's 95% interval above one half; "more … than on any other kind" only when its interval lies
    above every other kind's. Two shares of the same losses are correlated, but intervals apart tell them apart
    whatever the correlation (the difference's standard error is at most the sum of theirs)."""
    if not drivers["losses"].sum():
        return ""
    order = drivers.sort_values("loss_share", ascending=False, kind="stable")
    biggest = order.iloc[0]
    share, low = biggest["loss_share"], biggest["loss_low"]
    if low > 0.5:
        return f" Most cabbages lost come from {biggest['kind']} machines ({_pct(share)} of all losses)."
    close = [r for _, r in order.iloc[1:].iterrows() if r["losses"] and not low > r["loss_high"]]
    if not close:
        return (f" More cabbages are lost on {biggest['kind']} machines than on any other kind ({_pct(share)} of "
                "all losses).")
    kinds = " or ".join(f"{r['kind']} machines ({_pct(r['loss_share'])})" for r in [biggest, *close])
    return (f" These games do not tell which kind of machine most cabbages are lost on: {kinds} of all losses, "
            "their 95% intervals overlapping.")


def _drivers_section(results: RunResults) -> str:
    rec = results.tally
    drivers = tables.swing_drivers(rec)
    tokens = tables.token_placements(rec)
    golden = tables.golden_placements(rec)
    rows = [
        [f"{r['kind']} machines",
         f"{_pct(r['gain_share'])} <span class=\"muted\">({_ci_pct(r['gain_low'], r['gain_high'])})</span>",
         f"{_pct(r['loss_share'])} <span class=\"muted\">({_ci_pct(r['loss_low'], r['loss_high'])})</span>",
         f"{_num(r['mean'], 3, sign=True)} <span class=\"muted\">({_num(r['low'], 3)} to {_num(r['high'], 3)})</span>"]
        for _, r in drivers.iterrows()
    ]
    lead = "Every amount a seat scores in a round, before settlement, comes from one kind of machine." + \
        loss_words(drivers)
    placed = golden[golden["side"] != "not placed"].groupby("side")["count"].sum()
    golden_text = ""
    if placed.sum():
        golden_text = (
            f"The golden token went on MAX in {_pct(placed.get('MAX', 0) / placed.sum())} of the rounds it was "
            "placed in."
        )
    body = [
        f'<p class="lead">{_e(lead)}</p>',
        _figure(
            lambda: figures.drivers_figure(drivers),
            "Stacked bars of the share of gains and of losses from colour, points and golden machines",
            "Share of all positive (gains) and negative (losses) amounts scored by colour, points and golden "
            "machines.",
        ),
        _table(["machines", "share of gains (95% CI)", "share of losses (95% CI)",
                "mean per seat and round (95% CI)"], rows),
        _figure(
            lambda: figures.tokens_figure(tokens, golden),
            "Bars of the face values placed on colour and points machines, and MIN versus MAX for the golden token",
            "Left: for each kind of ordinary machine, the face value of the token it ended the round with "
            "(none: no 7 put a token there). Right: where the golden token went, by the face it showed. "
            + golden_text,
        ),
    ]
    return _section("drivers", "What drives the swings", "\n".join(body))


def _rule_holes_section(results: RunResults) -> str:
    holes = tables.rule_holes(results.tally)
    rules = results.config.rules
    games = results.games
    items = []
    for _, row in holes.iterrows():
        title, what = HOLE_TEXT[row["hole"]]
        count = int(row["count"])
        if count == 0:
            upper = wilson_interval(0, games)[1]
            finding = (
                f"never, in {games:,} games (at most {_pct(upper, _decimals(100 * upper, 1, 4))} of games, "
                "95% upper bound)"
            )
        else:
            finding = (
                f"in {count:,} of {games:,} games: {_pct(row['rate'], 2)} "
                f"(95% CI {_ci_pct(row['low'], row['high'], 2)})"
            )
            if row["hole"] == "shortfall":
                finding += f"; {int(row['events']):,} rounds, {int(row['amount']):,} cabbages unpaid in all"
            elif row["hole"] == "seven_no_slot":
                finding += f"; {int(row['events']):,} sevens in all"
            else:
                finding += f"; {int(row['events']):,} seat-rounds in all"
        note = ""
        if row["hole"] == "shortfall" and not rules.finite_reserve:
            note = " It cannot happen here: the reserve is unlimited."
        if row["hole"] == "zero_playing_on" and rules.end_on_elimination:
            note = " It cannot happen here: a player at 0 ends the game."
        state = "zero" if count == 0 else "seen"
        items.append(
            f'<li class="hole {state}" data-hole="{row["hole"]}" data-count="{count}">'
            f"<strong>{_e(title)}</strong>: {_e(finding)}.<br>"
            f'<span class="muted">When {_e(what)}.{_e(note)}</span></li>'
        )
    body = (
        "<p>Situations the rulebook does not settle, and how often this run met them. The simulator applies "
        "the documented choice; a frequent hole is a rule a designer should write down.</p>"
        f'<ul class="holes">{"".join(items)}</ul>'
    )
    return _section("rule-holes", "Rule holes", body)


# --- example games ----------------------------------------------------------------------------


def _examples_section(results: RunResults) -> str:
    rec = results.tally
    picks = [("typical", "A typical game", *tables.typical_game(rec))]
    quickest = tables.quickest_elimination(rec)
    if quickest is not None:
        picks.append(("quickest-elimination", "The quickest elimination", *quickest))
    notes = []
    if quickest is None:
        notes.append("<p>No game of this run saw anyone run out of cabbages, so there is no elimination to show.</p>")
    notes.append(
        '<p class="muted">Cards: suit letter (G green, B blue, R red, P purple) and value. In a trick, '
        "▸ marks the card led and the highlighted card took the trick.</p>"
    )
    return examples_section(results, picks, "Two games of this run told move by move.", notes, _replay, _story)


def _replay(config, game: int):
    replayed = replay_game(config.rules, config.seed, game, config.seat_policies)
    return replayed.records, replayed


def _story(config, replayed) -> str:
    """An example game's rounds, trick by trick, and how it ended."""
    story = tell_game(config.rules, replayed)
    rounds = "\n".join(_round_html(config.rules, story, r) for r in range(len(story.rounds)))
    return (
        f"{rounds}\n<p class=\"outcome\">{_e(story.outcome)} Final cabbages: "
        + ", ".join(f"seat {s} {c}" for s, c in enumerate(story.final_cabbages))
        + ".</p>"
    )


def _card_html(card: str, marks: Sequence[str] = ()) -> str:
    classes = " ".join(["pcard", SUIT_NAMES[suit_of(parse_card(card))], *marks])
    return f'<span class="{classes}">{card}</span>'


def _round_html(rules: Rules, story: GameStory, r: int) -> str:
    rd = story.rounds[r]
    players = len(story.seats)
    faces = ", ".join(
        f"{signed(v)} ({'/'.join(signed(f) for f in pair)})" for v, pair in zip(rd.token_faces, rules.tokens)
    )
    head = (
        f"<h4>Round {rd.number} · seat {rd.leader} leads</h4>"
        f'<p class="muted">Tokens this round: {_e(faces)}; golden token: penalty {rd.golden_value}.</p>'
    )
    hands = _table(
        ["seat", "hand dealt"],
        [[f"seat {s}", " ".join(_card_html(c) for c in hand)] for s, hand in enumerate(rd.hands)],
        cls="data hands", numeric_from=99,
    )
    if rd.set_aside:
        hands += f'<p class="muted">Set aside: {" ".join(_card_html(c) for c in rd.set_aside)}</p>'
    trick_rows = []
    for t in rd.tricks:
        by_seat = {p.seat: p.card for p in t.plays}
        cells = [str(t.number)]
        for seat in range(players):
            marks = []
            if seat == t.leader:
                marks.append("led")
            if seat == t.winner:
                marks.append("won")
            prefix = "▸" if seat == t.leader else ""
            cells.append(prefix + _card_html(by_seat[seat], marks))
        taken = f"seat {t.winner} <span class=\"muted\">({_e(t.why)})</span>"
        if t.placements:
            taken += "<br>" + "<br>".join(f"7: {_e(p)}" for p in t.placements)
        cells.append(taken)
        trick_rows.append(cells)
    tricks = _table(["trick", *[f"seat {s}" for s in range(players)], "taken by"], trick_rows, cls="data tricks",
                    numeric_from=99)
    machine_heads = [
        f"{_e(_short_machine(label))}<br><span class=\"token\">{_e(token)}</span>"
        for label, token in zip(rd.machines, rd.machine_tokens)
    ]
    score_rows = [
        [f"seat {sc.seat}", str(sc.tricks), *(_signed_cell(a) for a in sc.machine_amounts), _signed_cell(sc.net),
         _signed_cell(sc.change), f"<strong>{sc.cabbages}</strong>"]
        for sc in rd.scores
    ]
    score = _table(["seat", "tricks", *machine_heads, "net", "change", "cabbages"], score_rows, cls="data score")
    reserve = "unlimited" if rd.reserve is None else f"{rd.reserve}"
    after = f"Reserve after the round: {reserve}."
    if rd.shortfall:
        after += f" The reserve could not pay {rd.shortfall} cabbage{'s' * (rd.shortfall != 1)} of gains."
    if rd.ending:
        after += " " + rd.ending
    return (
        f'<div class="round">{head}<details><summary>Hands dealt</summary>{hands}</details>'
        f"{tricks}{score}<p>{_e(after)}</p></div>"
    )


def _short_machine(label: str) -> str:
    """"points machine 6" -> "points 6", "green colour machine" -> "green colour": a column header."""
    return label.replace("points machine", "points").removesuffix(" machine")


# --- method and styles -------------------------------------------------------------------------


def _method_section() -> str:
    return method_section([
        "Rates counted over games (elimination, rule holes, how games end, a seat running out): "
        "Wilson score interval, which stays sound near 0% and 100%.",
        "Means of one value per game (win shares, final cabbages, rounds played, change by place from the "
        "round's leader): mean ± t · sd / √games, t Student's with games − 1 degrees of freedom (1.96 over "
        "many games, more over few; below 4 games no interval).",
        "Means and shares over seats and rounds (change per round, gains and losses by machine): a "
        "cluster-robust standard error, games as clusters, since the rounds and seats of one game are not "
        "independent, and Student's t over the games.",
        "Win share: each of the k seats tied for most cabbages gets 1/k of a win; the first-player "
        "advantage is seat 0's win share minus 1/players, in percentage points.",
        "Amounts are what a seat scores from a kind of machine in a round before settlement; changes are "
        "after settlement (nobody goes below 0, a finite reserve may pay less).",
    ])


# What Las Vegan's report shows beyond the shared shell: cards, tricks, score sheets and rule holes.
_CSS = """
table.score th:not(:first-child), table.score td:not(:first-child) { text-align: right; padding-left: 14px; }
table.tricks td, table.tricks th { padding-right: 16px; }
table.score th { white-space: nowrap; }
table.score .token { font-weight: 400; }
.pcard { font-family: "SFMono-Regular", Menlo, Consolas, monospace; font-size: 13px; font-weight: 700;
  padding: 0 4px; border-radius: 3px; border: 1px solid transparent; }
.pcard.green { color: #00664a; }
.pcard.blue { color: #005a8c; }
.pcard.red { color: #a84300; }
.pcard.purple { color: #8e3f72; }
.pcard.won { background: #fff1c7; border-color: #e6c35c; }
.holes { padding-left: 20px; }
.holes li { margin: 6px 0; }
"""
