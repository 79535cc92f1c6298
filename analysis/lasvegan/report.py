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

import base64
import html
import json
import math
from typing import Any, Iterable, Sequence

import pandas as pd

from analysis.lasvegan import figures, tables
from analysis.report import write_report  # noqa: F401  (kept importable from here)
from analysis.results import RunResults
from analysis.stats import wilson_interval
from analysis.strength import strength_table
from sim.lasvegan.enums import SUIT_NAMES
from sim.lasvegan.params import Rules
from sim.lasvegan.policies import POLICY_DESCRIPTIONS
from sim.lasvegan.rules import parse_card, suit_of
from sim.lasvegan.story import GameStory, record_differences, replay_game, signed, tell_game

MINUS = "\u2212"

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
    sections = [
        _headline(results),
        _first_player_section(results),
        _elimination_section(results),
        _swings_section(results),
        _drivers_section(results),
        _skill_section(results),
        _strength_section(results),
        _rule_holes_section(results),
        _examples_section(results),
        _config_section(results),
        _method_section(),
    ]
    title = f"Las Vegan balance report: {results.config.name}"
    return _PAGE.format(
        title=_e(title),
        css=_CSS,
        heading=_e(title),
        subtitle=_e(_subtitle(results)),
        contents=_contents(),
        body="\n".join(sections),
        footer=_footer(results),
    )


# --- formatting -------------------------------------------------------------------


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _decimals(half_width: float, lowest: int = 1, highest: int = 3) -> int:
    """Decimals that show an interval's half-width to two significant digits.

    Enough to keep both ends of an interval apart from a rounded 0, no more
    than the sample size supports.
    """
    if not half_width or not math.isfinite(half_width):
        return lowest
    return int(min(highest, max(lowest, 1 - math.floor(math.log10(abs(half_width))))))


def _num(x: float | None, decimals: int = 1, sign: bool = False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    text = f"{x:+.{decimals}f}" if sign else f"{x:.{decimals}f}"
    return text.replace("-", MINUS)


def _pct(x: float | None, decimals: int = 1, sign: bool = False) -> str:
    return "n/a" if x is None else _num(100 * x, decimals, sign) + ("%" if not sign else "")


def _fair_pct(fair: float) -> str:
    """1/4 -> "25%", 1/3 -> "33.3%"."""
    return f"{100 * fair:.1f}".rstrip("0").rstrip(".") + "%"


def _ci_pct(low: float | None, high: float | None, decimals: int = 1) -> str:
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return "n/a"
    return f"{_num(100 * low, decimals)}–{_num(100 * high, decimals)}%"


def _pm_pct(mean: float, low: float, high: float) -> str:
    """``27.1% ± 0.3%`` for a symmetric (normal) interval."""
    half = (high - low) / 2
    d = _decimals(100 * half)
    return f"{_num(100 * mean, d)}% ± {_num(100 * half, d)}%"


def _metric(name: str, value: Any, text: str, tag: str = "span", cls: str = "") -> str:
    """An element holding a headline number: what it shows, and the exact value for machines."""
    attrs = f' class="{cls}"' if cls else ""
    return f'<{tag}{attrs} data-metric="{_e(name)}" data-value="{_e(json.dumps(value))}">{text}</{tag}>'


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]], cls: str = "data", numeric_from: int = 1) -> str:
    """A plain HTML table; cells are HTML already (escape before)."""
    head = "".join(
        f'<th class="{"num" if i >= numeric_from else ""}">{h}</th>' for i, h in enumerate(header)
    )
    body = "".join(
        "<tr>" + "".join(f'<td class="{"num" if i >= numeric_from else ""}">{c}</td>' for i, c in enumerate(r))
        + "</tr>"
        for r in rows
    )
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _figure(fig, alt: str, caption: str = "") -> str:
    data = base64.b64encode(figures.png_bytes(fig)).decode("ascii")
    width, height = (int(round(v)) for v in fig.get_size_inches() * 100)
    cap = f"<figcaption>{caption}</figcaption>" if caption else ""
    return (
        f'<figure><img src="data:image/png;base64,{data}" alt="{_e(alt)}" width="{width}" height="{height}">'
        f"{cap}</figure>"
    )


def _section(anchor: str, title: str, body: str) -> str:
    return f'<section id="{anchor}">\n<h2>{_e(title)}</h2>\n{body}\n</section>'


def _policies_text(seats: Sequence[str]) -> str:
    if len(set(seats)) == 1:
        return f"<code>{_e(seats[0])}</code> at every seat"
    return ", ".join(f"seat {s}: <code>{_e(name)}</code>" for s, name in enumerate(seats))


def _subtitle(results: RunResults) -> str:
    s = results.summary
    started = results.meta.get("started_at", "")
    parts = [f"{s['games']:,} games", f"{s['players']} players", f"seed {s['seed']}"]
    if started:
        parts.append(f"run {started.replace('T', ' ')}")
    return " · ".join(parts)


SECTIONS = (
    ("first-player", "First-player advantage"),
    ("elimination", "Elimination"),
    ("swings", "Cabbage swings"),
    ("drivers", "What drives the swings"),
    ("skill", "Skill"),
    ("strength", "Does it hold for stronger players?"),
    ("rule-holes", "Rule holes"),
    ("examples", "Example games"),
    ("config", "Config and reproduction"),
    ("method", "How the numbers are computed"),
)


def _contents() -> str:
    items = "".join(f'<li><a href="#{a}">{_e(t)}</a></li>' for a, t in SECTIONS)
    return f'<nav aria-label="Contents"><ol>{items}</ol></nav>'


# --- headline ---------------------------------------------------------------------------


def first_player_verdict(summary: dict) -> str:
    """"Seat 0 wins 27.1% ± 0.3% of games against a fair 25%: a first-player edge of 2.1 points."."""
    players = summary["players"]
    share, (low, high) = summary["win_share"][0], summary["win_share_ci"][0]
    adv, (adv_low, adv_high) = summary["first_player_advantage"], summary["first_player_advantage_ci"]
    fair = _fair_pct(1 / players)
    if None in (low, high, adv_low, adv_high):
        return f"Seat 0 wins {_pct(share)} of games against a fair {fair}; too few games to tell an edge from chance."
    d = _decimals(100 * (high - low) / 2)
    opening = f"Seat 0 wins {_pm_pct(share, low, high)} of games against a fair {fair}"
    if adv_low > 0:
        return f"{opening}: a first-player edge of {_num(100 * adv, d)} points."
    if adv_high < 0:
        return f"{opening}: a first-player handicap of {_num(-100 * adv, d)} points."
    return (
        f"{opening}: no first-player edge that {summary['games']:,} games can tell from chance "
        f"(between {_num(100 * adv_low, d, sign=True)} and {_num(100 * adv_high, d, sign=True)} points)."
    )


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
        peak = int(ran_out.idxmax())
        return f"{text}, which ends the game; most such games end in round {peak}."
    return f"{text}; elimination does not end the game here, so they play on at 0."


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
    differences = rules.differences()
    if differences:
        rules_html = "<ul class=\"plain\">" + "".join(
            f"<li><code>{_e(k)} = {_e(json.dumps(v))}</code></li>" for k, v in differences.items()
        ) + "</ul>"
    else:
        rules_html = "none: the rulebook game"
    ends = tables.game_ends(results.tally)
    facts = [
        ("Players", _metric("players", s["players"], str(s["players"]))),
        ("Rules that differ from the rulebook", rules_html),
        ("Policies", _policies_text(results.config.seat_policies)),
        ("Games", _metric("games", s["games"], f"{s['games']:,}")),
        ("Seed", _metric("seed", s["seed"], str(s["seed"]))),
    ]
    facts_html = "".join(f"<dt>{_e(k)}</dt><dd>{v}</dd>" for k, v in facts)

    adv, adv_ci = s["first_player_advantage"], s["first_player_advantage_ci"]
    d_adv = _decimals(100 * (adv_ci[1] - adv_ci[0]) / 2) if None not in adv_ci else 1
    elim, elim_ci = s["elimination_rate"], s["elimination_rate_ci"]
    d_elim = _decimals(100 * (elim_ci[1] - elim_ci[0]) / 2)
    rounds, rounds_ci = s["mean_rounds"], s["mean_rounds_ci"]
    d_rounds = _decimals((rounds_ci[1] - rounds_ci[0]) / 2, 2) if None not in rounds_ci else 2
    cards = [
        (
            "First-player advantage",
            _metric("first_player_advantage", adv, f"{_num(100 * adv, d_adv, sign=True)} pts"),
            "95% CI "
            + _metric(
                "first_player_advantage_ci", adv_ci,
                f"{_num(100 * adv_ci[0], d_adv, sign=True)} to {_num(100 * adv_ci[1], d_adv, sign=True)} points"
                if None not in adv_ci else "n/a",
            )
            + " · seat 0 win share "
            + _metric("win_share_0", s["win_share"][0], _pct(s["win_share"][0], d_adv)),
            first_player_verdict(s),
        ),
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
    cards_html = "".join(
        f'<div class="metric-card"><div class="label">{_e(label)}</div><div class="big">{big}</div>'
        f'<div class="ci">{ci}</div><p class="verdict">{_e(verdict)}</p></div>'
        for label, big, ci, verdict in cards
    )
    return (
        f'<section id="headline" aria-label="Headline">\n<dl class="facts">{facts_html}</dl>\n'
        f'<div class="cards">{cards_html}</div>\n</section>'
    )


# --- sections ---------------------------------------------------------------------------


def _first_player_section(results: RunResults) -> str:
    rec = results.tally
    s = results.summary
    seats = results.config.seat_policies
    by_seat = tables.win_share_by_seat(rec)
    by_last = tables.win_share_by_last_leader(rec)
    by_position = tables.round_change_by_leader_position(rec)
    finals = tables.final_cabbages_by_seat(rec)
    rows = []
    for seat in range(results.players):
        share, (low, high) = s["win_share"][seat], s["win_share_ci"][seat]
        f = finals.iloc[seat]
        rows.append([
            f"seat {seat}" + (" (leads round 1)" if seat == 0 else ""),
            f"<code>{_e(seats[seat])}</code>",
            _pct(share, 2), _ci_pct(low, high, 2),
            _num(f["mean"], 2), f"{_num(f['low'], 2)}–{_num(f['high'], 2)}",
        ])
    table = _table(["seat", "policy", "win share", "95% CI", "final cabbages", "95% CI"], rows, numeric_from=2)
    leader = by_last.iloc[0]
    body = [
        f'<p class="lead">{_e(first_player_verdict(s))}</p>',
        _figure(
            figures.win_share_figure(by_seat, by_last),
            "Bar charts of win share by seat and by place after the last round's leader, with 95% intervals",
            "Bars: share of games won (a tie shares the win); black: 95% interval; dashed: the fair share. "
            "Left: by seat; seat 0 leads the first trick of the game. Right: counted clockwise from the seat "
            "that led the game's last round (the winner of the round before's last trick) — "
            f"that seat wins {_pm_pct(leader['mean'], leader['low'], leader['high'])} of games.",
        ),
        table,
        _figure(
            figures.leader_edge_figure(by_position),
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
    ran_out = tables.ran_out_by_seat(rec, rules.starting_cabbages)
    # A way of ending that never happened (playing on at 0 when elimination
    # ends the game) would only add a column of zeros.
    reasons = [r for r in tables.END_REASONS if ends.loc[ends["reason"] == r, "count"].sum()]
    rows = []
    for r in range(1, results.rounds + 1):
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
            figures.elimination_figure(ends, ran_out),
            "Stacked bars of the round games end in, and bars of how often each seat runs out of cabbages",
            "Left: share of all games ending after each round, by whether a seat reached 0 cabbages. "
            "Right: share of games in which each seat reached 0 cabbages at some point, with 95% Wilson "
            "intervals.",
        ),
        end_table,
        _table(["seat", "games at 0", "share", "95% CI"], seat_rows),
    ]
    return _section("elimination", "Elimination", "\n".join(body))


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
        f"of its {rules.starting_cabbages} starting cabbages."
    )
    body = [
        f'<p class="lead">{_e(lead)}</p>',
        _figure(
            figures.swing_figure(hist),
            "Histogram of the cabbage change of one seat in one round",
            "Every seat in every round played counts once. Green: gains, vermillion: losses, grey: no change.",
        ),
        _table(["seat", "mean change per round", "95% CI", "sd", "5th–95th percentile"], rows),
        _figure(
            figures.cabbages_figure(tables.final_cabbages_by_seat(rec), trajectory, rules.starting_cabbages),
            "Box plots of final cabbages by seat and the median cabbage trajectory with percentile bands",
            "Left: final cabbages; box: quartiles, line: median, dot: mean, whiskers: 5th and 95th percentiles, "
            f"dashed: the {rules.starting_cabbages} starting cabbages. Right: cabbages of a seat (all seats "
            "together) at the start and after each round; a game that has ended keeps its final count.",
        ),
    ]
    return _section("swings", "Cabbage swings", "\n".join(body))


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
    biggest_loss = drivers.loc[drivers["loss_share"].idxmax()] if drivers["losses"].sum() else None
    lead = "Every amount a seat scores in a round, before settlement, comes from one kind of machine."
    if biggest_loss is not None:
        lead += (
            f" Most cabbages lost come from {biggest_loss['kind']} machines "
            f"({_pct(biggest_loss['loss_share'])} of all losses)."
        )
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
            figures.drivers_figure(drivers),
            "Stacked bars of the share of gains and of losses from colour, points and golden machines",
            "Share of all positive (gains) and negative (losses) amounts scored by colour, points and golden "
            "machines.",
        ),
        _table(["machines", "share of gains (95% CI)", "share of losses (95% CI)",
                "mean per seat and round (95% CI)"], rows),
        _figure(
            figures.tokens_figure(tokens, golden),
            "Bars of the face values placed on colour and points machines, and MIN versus MAX for the golden token",
            "Left: for each kind of ordinary machine, the face value of the token it ended the round with "
            "(none: no 7 put a token there). Right: where the golden token went, by the face it showed. "
            + golden_text,
        ),
    ]
    return _section("drivers", "What drives the swings", "\n".join(body))


def _skill_section(results: RunResults) -> str:
    seats = results.config.seat_policies
    s = results.summary
    body = []
    if len(set(seats)) > 1:
        by_policy = tables.win_share_by_policy(results.tally, seats)
        by_policy["label"] = [f"{p} (seat{'s' * (',' in st)} {st})" for p, st in zip(by_policy["policy"], by_policy["seats"])]
        rows = [
            [f"<code>{_e(r['policy'])}</code>", _e(r["seats"]), _pct(r["mean"], 2), _ci_pct(r["low"], r["high"], 2),
             _fair_pct(r["fair"])]
            for _, r in by_policy.iterrows()
        ]
        body += [
            "<p>Share of all wins taken by each policy's seats, against the share its number of seats would "
            "get by chance. The seats are fixed in this run, so a policy's result includes its seats' "
            "positional edge.</p>",
            _figure(figures.skill_figure(by_policy, "Win share by policy"),
                    "Horizontal bars of the win share of each policy with 95% intervals"),
            _table(["policy", "seats", "win share", "95% CI", "fair share"], rows),
        ]
    else:
        body.append(
            f"<p>Every seat played <code>{_e(seats[0])}</code>, so this run does not compare policies. "
            "Give the seats different policies (<code>[policies] seats = [...]</code>) to measure skill.</p>"
        )
    gap = s.get("skill_gap")
    if isinstance(gap, dict) and gap:
        entries = []
        sentences = []
        for key, entry in gap.items():
            if not isinstance(entry, dict) or "win_share" not in entry:
                continue
            low, high = (entry.get("win_share_ci") or [None, None])[:2]
            strong, weak = entry.get("policy", key), entry.get("against", "the rest")
            fair = entry.get("fair_share", 1 / results.players)
            entries.append({
                "label": f"one {strong} vs {weak}", "mean": entry["win_share"],
                "low": entry["win_share"] if low is None else low,
                "high": entry["win_share"] if high is None else high, "fair": fair,
            })
            interval = f" ({_ci_pct(low, high)})" if low is not None else ""
            games = f" over {entry['games']:,} deals" if entry.get("games") else ""
            sentences.append(
                f"One <code>{_e(strong)}</code> seat among <code>{_e(weak)}</code> seats wins "
                f"{_pct(entry['win_share'])}{interval} of games{games}, against a fair {_fair_pct(fair)}."
            )
        if entries:
            body += [
                "<h3>Skill gap under these rules</h3>",
                "<p>Short duels played on the same deals with every seat rotation, so that seat and deal luck "
                "cancel out: how much a stronger policy gains over a weaker one.</p>",
                "<ul>" + "".join(f"<li>{x}</li>" for x in sentences) + "</ul>",
                _figure(figures.skill_figure(pd.DataFrame(entries), "Skill gap: one strong seat against the rest"),
                        "Horizontal bars of the skill-gap duels' win shares with 95% intervals"),
            ]
    described = [name.split(":")[0] for name in dict.fromkeys(seats)]
    body.append(
        "<dl class=\"policies\">" + "".join(
            f"<dt><code>{_e(name)}</code></dt><dd>{_e(POLICY_DESCRIPTIONS.get(base, ''))}</dd>"
            for name, base in zip(dict.fromkeys(seats), described)
        ) + "</dl>"
    )
    return _section("skill", "Skill", "\n".join(body))


def _strength_section(results: RunResults) -> str:
    strength = results.summary.get("strength")
    if not isinstance(strength, dict) or not strength.get("profiles"):
        return _section(
            "strength", "Does it hold for stronger players?",
            "<p>This run skipped the strength profile (<code>run.strength_games = 0</code> and "
            "<code>run.strength_lookahead_games = 0</code>). Leave them at <code>\"auto\"</code> to see "
            "whether its verdicts hold for stronger players.</p>",
        )
    metrics = results.config.game_spec.strength_metrics
    strength_metrics = {m: (spec.label, spec.kind) for m, spec in metrics.items()}
    table = strength_table(strength, metrics)
    policies = [p["policy"] for p in strength["profiles"]]
    header = ["metric", *[f"{p} ({g:,} games)" for p, g in
                          zip(policies, (p["games"] for p in strength["profiles"]))]]
    rows = []
    for metric, (label, kind) in strength_metrics.items():
        cells = [label]
        for policy in policies:
            row = table[(table["metric"] == metric) & (table["policy"] == policy)].iloc[0]
            cells.append(f'{_strength_value(row["value"], kind)} <span class="muted">'
                         f'({_strength_value(row["low"], kind)} to {_strength_value(row["high"], kind)})</span>')
        rows.append(cells)
    verdict_text = strength.get("verdict", {}).get("sentence", "")
    moved = strength.get("verdict", {}).get("moved", [])
    body = [
        f'<p class="lead" id="strength-verdict" data-moved="{_e(json.dumps(moved))}">{_e(verdict_text)}</p>',
        "<p>The same rules and the same deals, every seat played by one policy in turn: <code>random</code>, "
        "<code>greedy</code> and <code>expert</code> on the same sample, <code>lookahead</code> (the strongest "
        "and slowest player) on a smaller one. A metric is said to move when the difference is clear (its 95% "
        "interval excludes 0) and large enough to change a decision.</p>",
        _figure(figures.strength_figure(table, strength_metrics),
                "Dot plots of each headline metric with 95% intervals under random, greedy, expert and lookahead seats",
                "Each panel: one headline metric with every seat played by each policy (95% intervals); the "
                "lookahead subsample is small, so its intervals are wide."),
        _table(header, rows),
    ]
    return _section("strength", "Does it hold for stronger players?", "\n".join(body))


def _strength_value(x: float | None, kind: str) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if kind == "pct":
        return _pct(x)
    if kind == "pts":
        return f"{_num(100 * x, 1, sign=True)} pts"
    return _num(x, 2)


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
    stored = dict(zip((p[2] for p in picks), results.game_rows([p[2] for p in picks])))
    body = [
        "<p>Two games of this run told move by move. Each was played again from its game index and the run's "
        "seed by the reference engine, with each seat's policy, and the replay's record is compared with the "
        "row the run stored for that game.</p>"
    ]
    if quickest is None:
        body.append("<p>No game of this run saw anyone run out of cabbages, so there is no elimination to show.</p>")
    body.append(
        '<p class="muted">Cards: suit letter (G green, B blue, R red, P purple) and value. In a trick, '
        "▸ marks the card led and the highlighted card took the trick.</p>"
    )
    for anchor, title, game, why in picks:
        body.append(_example_game(results, anchor, title, game, why, stored[game]))
    return _section("examples", "Example games", "\n".join(body))


def _example_game(results: RunResults, anchor: str, title: str, game: int, why: str, stored: dict) -> str:
    config = results.config
    try:
        replayed = replay_game(config.rules, config.seed, game, config.seat_policies)
    except Exception as err:  # the report must still be written; say what went wrong instead
        return (
            f'<article class="example" id="example-{anchor}" data-game="{game}" data-replay-match="false">'
            f"<h3>{_e(title)}: game {game}</h3><p class=\"check bad\">This game could not be replayed: "
            f"{_e(err)}</p></article>"
        )
    differences = record_differences(replayed.records, stored)
    if differences:
        check = (
            f'<p class="check bad">The replay does <strong>not</strong> match the stored record: '
            f"{_e(', '.join(differences))} differ. The story below is the reference engine's game.</p>"
        )
    else:
        check = (
            f'<p class="check ok">✓ Replayed from game index {game} and seed {config.seed}: the reference '
            "engine's record of this game equals the run's stored row, field for field.</p>"
        )
    story = tell_game(config.rules, replayed)
    seats = ", ".join(f"seat {s} <code>{_e(p)}</code>" for s, p in enumerate(story.seats))
    rounds = "\n".join(_round_html(config.rules, story, r) for r in range(len(story.rounds)))
    match = "false" if differences else "true"
    return (
        f'<article class="example" id="example-{anchor}" data-game="{game}" data-replay-match="{match}">\n'
        f"<h3>{_e(title)}: game {game}</h3>\n<p>Picked because {_e(why)}. Seats: {seats}.</p>\n{check}\n"
        f"{rounds}\n<p class=\"outcome\">{_e(story.outcome)} Final cabbages: "
        + ", ".join(f"seat {s} {c}" for s, c in enumerate(story.final_cabbages))
        + ".</p>\n</article>"
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


def _signed_cell(value: int) -> str:
    cls = "pos" if value > 0 else ("neg" if value < 0 else "zero")
    return f'<span class="{cls}">{signed(value)}</span>'


# --- config, method, footer --------------------------------------------------------------------


def _config_section(results: RunResults) -> str:
    meta = results.meta
    reproduce = meta.get("reproduce") or "lvsim run config.toml"
    body = (
        "<p>The run's config with every rule spelled out (<code>config.toml</code> in the results directory):</p>"
        f'<pre class="toml">{_e(results.config_text)}</pre>'
        "<p>To play the same games again — the same seed gives the same records, whatever the machine or the "
        "number of threads:</p>"
        f'<pre class="command">{_e(reproduce)} --out &lt;new directory&gt;</pre>'
        "<p>Next to this report: <code>records.parquet</code> (one row per game), <code>summary.json</code> "
        "(the summary), <code>meta.json</code> (versions, timing and the command line).</p>"
    )
    return _section("config", "Config and reproduction", body)


def _method_section() -> str:
    body = (
        "<ul>"
        "<li>Exact and approximate: every count, share, mean and percentile in this report is exact — computed "
        "from integer counts, sums and histograms of all the games, chunk by chunk, never from a sample of "
        "them. What is approximate is only what the method says is: the 95% intervals (normal or Wilson "
        "approximations, as below) and the skill-gap duels, which play a subsample of deals.</li>"
        "<li>Every interval is a 95% confidence interval.</li>"
        "<li>Rates counted over games (elimination, rule holes, how games end, a seat running out): "
        "Wilson score interval, which stays sound near 0% and 100%.</li>"
        "<li>Means of one value per game (win shares, final cabbages, rounds played, change by place from the "
        "round's leader): normal approximation, mean ± 1.96 · sd / √games.</li>"
        "<li>Means and shares over seats and rounds (change per round, gains and losses by machine): normal "
        "approximation with a cluster-robust standard error, games as clusters, since the rounds and seats of "
        "one game are not independent.</li>"
        "<li>Win share: each of the k seats tied for most cabbages gets 1/k of a win; the first-player "
        "advantage is seat 0's win share minus 1/players, in percentage points.</li>"
        "<li>Amounts are what a seat scores from a kind of machine in a round before settlement; changes are "
        "after settlement (nobody goes below 0, a finite reserve may pay less).</li>"
        "</ul>"
    )
    return _section("method", "How the numbers are computed", body)


def _footer(results: RunResults) -> str:
    meta = results.meta
    versions = meta.get("versions", {})
    parts = [f"lvsim {versions.get('lvsim', '')}".strip()]
    if versions.get("source_commit"):
        parts.append(f"source {versions['source_commit'][:12]}")
    for name in ("python", "numba", "numpy"):
        if versions.get(name):
            parts.append(f"{name} {versions[name]}")
    if meta.get("seconds"):
        parts.append(f"games played in {meta['seconds']:.1f} s on {meta.get('threads', '?')} threads")
    return _e(" · ".join(parts))


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<header>
<h1>{heading}</h1>
<p class="subtitle">{subtitle}</p>
</header>
<main>
{contents}
{body}
</main>
<footer>{footer}</footer>
</body>
</html>
"""

_CSS = """
:root { --ink: #1d2327; --muted: #5f6b73; --line: #dde3e8; --soft: #f4f7f9; --accent: #0072B2;
  --good: #00785a; --bad: #b84a00; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff;
  font: 15px/1.5 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
header, main, footer { max-width: 980px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 28px; }
h1 { font-size: 26px; margin: 0 0 2px; }
h2 { font-size: 20px; margin: 40px 0 10px; padding-top: 12px; border-top: 2px solid var(--line); }
h3 { font-size: 17px; margin: 26px 0 6px; }
h4 { font-size: 15px; margin: 20px 0 4px; }
.subtitle, .muted { color: var(--muted); }
nav ol { display: flex; flex-wrap: wrap; gap: 4px 18px; padding: 0; margin: 14px 0 0; list-style: none;
  font-size: 14px; }
nav a { color: var(--accent); text-decoration: none; }
nav a:hover { text-decoration: underline; }
code, pre { font-family: "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace; font-size: 13px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px;
  overflow-x: auto; }
#headline { margin-top: 18px; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 18px; margin: 0 0 18px;
  padding: 14px 18px; background: var(--soft); border-radius: 8px; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; }
ul.plain { margin: 0; padding: 0; list-style: none; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 14px; }
.metric-card { border: 1px solid var(--line); border-top: 4px solid var(--accent); border-radius: 8px;
  padding: 12px 16px; }
.metric-card .label { font-weight: 600; color: var(--muted); font-size: 13px; text-transform: uppercase;
  letter-spacing: .04em; }
.metric-card .big { font-size: 30px; font-weight: 700; margin: 2px 0; font-variant-numeric: tabular-nums; }
.metric-card .ci { color: var(--muted); font-size: 13px; }
.metric-card .verdict { margin: 8px 0 0; }
p.lead { font-size: 16px; }
figure { margin: 14px 0 18px; }
figure img { display: block; max-width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: 13px; margin-top: 4px; max-width: 760px; }
table.data { border-collapse: collapse; margin: 8px 0 16px; font-size: 14px;
  font-variant-numeric: tabular-nums; }
table.data th, table.data td { padding: 4px 12px 4px 0; border-bottom: 1px solid var(--line);
  text-align: left; vertical-align: top; }
table.data th { font-weight: 600; color: var(--muted); font-size: 13px; border-bottom-color: #b9c3cb; }
table.data .num { text-align: right; padding-left: 12px; }
table.score th:not(:first-child), table.score td:not(:first-child) { text-align: right; padding-left: 14px; }
table.tricks td, table.tricks th { padding-right: 16px; }
table.data td:first-child { white-space: nowrap; }
table.score th { white-space: nowrap; }
table.score .token { font-weight: 400; }
.pos { color: var(--good); font-weight: 600; }
.neg { color: var(--bad); font-weight: 600; }
.zero { color: var(--muted); }
.pcard { font-family: "SFMono-Regular", Menlo, Consolas, monospace; font-size: 13px; font-weight: 700;
  padding: 0 4px; border-radius: 3px; border: 1px solid transparent; }
.pcard.green { color: #00664a; }
.pcard.blue { color: #005a8c; }
.pcard.red { color: #a84300; }
.pcard.purple { color: #8e3f72; }
.pcard.won { background: #fff1c7; border-color: #e6c35c; }
.holes { padding-left: 20px; }
.holes li { margin: 6px 0; }
.check { padding: 6px 10px; border-radius: 6px; display: inline-block; margin: 4px 0; }
.check.ok { background: #e3f4ee; color: #005c45; }
.check.bad { background: #fbe9e0; color: #8a3500; }
.example { border-left: 3px solid var(--line); padding-left: 16px; margin: 18px 0 30px; }
.round { margin-bottom: 8px; }
details summary { cursor: pointer; color: var(--accent); font-size: 14px; }
.outcome { font-weight: 600; }
dl.policies dt { margin-top: 6px; }
dl.policies dd { margin-left: 18px; color: var(--muted); }
footer { color: var(--muted); font-size: 12px; padding-top: 18px; padding-bottom: 28px;
  border-top: 1px solid var(--line); margin-top: 36px; }
@media print { nav { display: none; } details { display: block; } .example { break-inside: avoid-page; } }
"""
