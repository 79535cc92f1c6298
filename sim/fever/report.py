"""The HTML balance report of $ Fever: what a designer reads after a run.

Built on the shared shell (:mod:`analysis.report_html`) from the run's
summary and its tally (:class:`~sim.fever.summary.Tally`, stored as
``tally.json``). Example games are played again from ``(rules, seed, game
index, seat policies)`` by the reference engine (:mod:`sim.fever.rules`),
told turn by turn and checked against the run's stored record of each.

Game length is also shown in minutes at a pace of seconds per turn:
``build_report(results, seconds_per_turn=...)``, or the environment
variable ``LVSIM_SECONDS_PER_TURN`` for ``lvsim run`` and ``lvsim report``
(default 15).

The headline numbers carry ``data-metric`` / ``data-value`` attributes
holding the summary's exact values (JSON), so a test can read them back.
"""

from __future__ import annotations

import os
from typing import Sequence

from sim.fever import figures, tables
from analysis.player_sections import report_page
from analysis.report_html import (
    CLOSING_SECTIONS, PLAYER_SECTIONS,
    ci_decimals, ci_pct, e, figure, first_player_card, first_player_verdict, headline,
    examples_section, is_missing, method_section, metric, num, pct, seat_cells, section, setup_facts,
    table,
)
from analysis.results import RunResults
from sim.errors import ConfigError, and_listed, counted
from sim.fever.params import DEFAULT_DECK, DEFAULT_PAYTABLE
from sim.fever.rules import play_game, player_named

DEFAULT_SECONDS_PER_TURN = 15.0
SECONDS_PER_TURN_VARIABLE = "LVSIM_SECONDS_PER_TURN"

SECTIONS = (
    ("standins", "Deck and pay table"),
    ("seats", "Seat advantage"),
    ("length", "Game length"),
    ("combinations", "Points by combination"),
    ("doubling", "Doubling"),
    ("droughts", "Droughts"),
    *PLAYER_SECTIONS,
    *CLOSING_SECTIONS,
)


def seconds_per_turn_setting() -> float:
    """The pace the report converts turns to minutes at: ``LVSIM_SECONDS_PER_TURN``, else 15 s."""
    text = os.environ.get(SECONDS_PER_TURN_VARIABLE)
    if text is None:
        return DEFAULT_SECONDS_PER_TURN
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise ConfigError(SECONDS_PER_TURN_VARIABLE, f"must be a number of seconds above 0 and at most 3600, got {text!r}")
    return value


def build_report(results: RunResults, seconds_per_turn: float | None = None) -> str:
    """The report of a $ Fever run as one HTML document."""
    pace = seconds_per_turn_setting() if seconds_per_turn is None else float(seconds_per_turn)
    own = [
        _headline(results, pace),
        _standins_section(results),
        _seats_section(results),
        _length_section(results, pace),
        _combinations_section(results),
        _doubling_section(results),
        _droughts_section(results),
    ]
    return report_page(results, "$ Fever", SECTIONS, own, _examples_section, _method_section)


# --- words ---------------------------------------------------------------------------


def uses_standins(rules) -> tuple[bool, bool]:
    """Whether the run plays the rules document's stand-in deck and pay table."""
    return tuple(rules.deck) == DEFAULT_DECK, tuple(rules.paytable) == DEFAULT_PAYTABLE


def standin_warning(rules) -> str:
    deck, paytable = uses_standins(rules)
    which = [w for w, used in (("symbol deck", deck), ("pay table", paytable)) if used]
    if not which:
        return ""
    return (
        f"[default] This run plays the rules document's stand-in {' and '.join(which)}: the designer's "
        "were lost with the post's pictures. Every number here is for the stand-in; give rules.deck and "
        "rules.paytable in the config to see the designer's game."
    )


def minutes(turns: float | None, pace: float) -> str:
    return "n/a" if is_missing(turns) else f"{turns * pace / 60:.1f} min"


def length_verdict(summary: dict, pace: float) -> str:
    t = summary["game_length_turns"]
    if is_missing(t["mean"]):
        return "No game reached the target, so no length can be given."
    who = "the player" if summary["players"] == 1 else "a player"
    return (
        f"A finished game lasts {num(t['mean'], 1)} turns on average until {who} reaches the target "
        f"(median {num(t['p50'], 0)}, 90% of games between {num(t['p05'], 0)} and {num(t['p95'], 0)}): about "
        f"{minutes(t['p50'], pace)} at the median at {pace:g} s a turn, against the designer's 10–15 minutes."
    )


def unfinished_verdict(summary: dict) -> str:
    rate, ci = summary["unfinished_rate"], summary["unfinished_rate_ci"]
    if rate is None:
        return "No game was played."
    d = ci_decimals(ci)
    return f"The turn cap ends {pct(rate, d)} of games with no winner (95% CI {ci_pct(*ci, d)})."


def double_verdict(summary: dict) -> str:
    rate, gain, ci = summary["double_rate"], summary["double_gain"], summary["double_gain_ci"]
    if rate is None:
        return "No turn was played."
    if not rate:
        return "No seat doubled in this run."
    text = f"Seats double on {pct(rate, 2)} of turns; a double "
    if not ci or None in ci:
        return text + f"gains {num(gain, 2, sign=True)} points on average."
    if ci[0] > 0:
        how = f"pays: {num(gain, 2, sign=True)} points"
    elif ci[1] < 0:
        how = f"costs: {num(gain, 2, sign=True)} points"
    else:
        how = f"neither pays nor costs that the games can tell ({num(gain, 2, sign=True)} points)"
    return text + f"{how} on average, scored minus given up (95% CI {num(ci[0], 2, sign=True)} to {num(ci[1], 2, sign=True)})."


def drought_verdict(summary: dict) -> str:
    rate, ci = summary["drought_rate"], summary["drought_rate_ci"]
    if rate is None:
        return "No full round was played."
    d = ci_decimals(ci)
    return (f"In {pct(rate, d)} of full rounds (95% CI {ci_pct(*ci, d)}) no seat had a play that scored on its "
            f"turn; a single turn could score {pct(summary['could_score_rate'])} of the time.")


# --- headline ------------------------------------------------------------------------------


def _headline(results: RunResults, pace: float) -> str:
    s = results.summary
    t = s["game_length_turns"]
    un_ci = s["unfinished_rate_ci"]
    d_un = ci_decimals(un_ci)
    cards = []
    if s["players"] > 1 and not is_missing(s["first_player_advantage"]):
        cards.append(first_player_card(s))
    elif s["players"] > 1:
        cards.append(("First-player advantage", "n/a", "no finished game",
                      "No game reached the target, so no seat's edge can be measured."))
    cards += [
        (
            "Game length" if s["players"] > 1 else "Turns to the target",
            metric("game_length_turns_p50", t["p50"], f"{num(t['p50'], 0)} turns") + " median",
            "mean " + metric("game_length_turns_mean", t["mean"], num(t["mean"], 1))
            + f" · {minutes(t['p50'], pace)} at {pace:g} s a turn · p95 "
            + metric("game_length_turns_p95", t["p95"], num(t["p95"], 0)),
            length_verdict(s, pace),
        ),
        (
            "Unfinished games",
            metric("unfinished_rate", s["unfinished_rate"], pct(s["unfinished_rate"], d_un)),
            "95% CI " + metric("unfinished_rate_ci", un_ci, ci_pct(*un_ci, d_un)) + " · ended by the turn cap",
            unfinished_verdict(s),
        ),
        (
            "Doubling",
            metric("double_gain", s["double_gain"], f"{num(s['double_gain'], 2, sign=True)} pts"),
            "a double's net gain · on " + metric("double_rate", s["double_rate"], pct(s["double_rate"], 2))
            + " of turns",
            double_verdict(s),
        ),
        (
            "Droughts",
            metric("drought_rate", s["drought_rate"], pct(s["drought_rate"], 1)),
            "of full rounds no seat could score",
            drought_verdict(s),
        ),
    ]
    facts = setup_facts(results)
    warning = standin_warning(results.config.rules)
    if warning:
        facts.append(("Stand-ins", f'<strong class="neg" id="standin-warning">{e(warning)}</strong>'))
    return headline(facts, cards)


# --- sections ----------------------------------------------------------------------------------


def _standins_section(results: RunResults) -> str:
    rules = results.config.rules
    deck, paytable = uses_standins(rules)
    warning = standin_warning(rules)
    total = len(rules.cards)
    deck_rows = [[f"<code>{e(name)}</code>", str(n), pct(n / total)] for name, n in rules.deck]
    order = "in any order" if not rules.reels_ordered else "left to right (rules.reels_ordered)"
    pay_rows = [[" · ".join(f"<code>{e(x)}</code>" for x in entries), str(points)]
                for entries, points in rules.paytable]
    body = [
        f'<p class="lead">{e(warning)}</p>' if warning else
        '<p class="lead">This run plays a deck and a pay table given in its config.</p>',
        f"<p>The machine's three reels match a pattern {order}; an entry <code>a|b</code> accepts either "
        "symbol, <code>*</code> any. The richest matching pattern scores (the first listed on equal points). "
        f"{total} cards{' (stand-in)' if deck else ''}:</p>",
        table(["symbol", "cards", "of the deck"], deck_rows),
        f"<p>Pay table{' (stand-in)' if paytable else ''}:</p>",
        table(["pattern (reels 1, 2, 3)", "points"], pay_rows),
    ]
    return section("standins", "Deck and pay table", "\n".join(body))


def _seats_section(results: RunResults) -> str:
    s = results.summary
    if s["players"] == 1:
        return section("seats", "Seat advantage",
                       "<p>One player races to the target alone: there is no seat to compare. Game length is the "
                       "number of turns the player needs.</p>")
    by_seat = results.tally.win_share_by_seat()
    rows = [[*seat_cells(results, seat, "plays first"), num(s["score_mean"][seat], 2)] for seat in range(s["players"])]
    body = [
        f'<p class="lead">{e(first_player_verdict(s))}</p>',
        "<p>Win shares are of the finished games (a game the turn cap ends has no winner).</p>",
        figure(lambda: figures.seats_figure(by_seat), "Bar chart of the win share of each seat with 95% intervals",
               "Share of finished games each seat won; black: 95% interval; dashed: the fair share."),
        table(["seat", "policy", "win share", "95% CI", "points at the end"], rows, numeric_from=2),
    ]
    return section("seats", "Seat advantage", "\n".join(body))


def _length_section(results: RunResults, pace: float) -> str:
    s = results.summary
    t, r = s["game_length_turns"], s["game_length_rounds"]
    minute_rows = [
        [f"{row.seconds_per_turn:g} s", minutes(t["mean"], row.seconds_per_turn), minutes(t["p05"], row.seconds_per_turn),
         minutes(t["p50"], row.seconds_per_turn), minutes(t["p95"], row.seconds_per_turn)]
        for row in tables.minutes_table(s, sorted({*tables.SECONDS_PER_TURN, pace})).itertuples()
    ]
    body = [
        f'<p class="lead">{e(length_verdict(s, pace))} {e(unfinished_verdict(s))}</p>',
        figure(lambda: figures.length_figure(tables.length_histogram(results.tally), s, pace),
               "Histogram of the number of turns finished games last",
               f"Share of finished games by turns played; the top axis reads the same in minutes at {pace:g} s a turn "
               f"(set <code>{SECONDS_PER_TURN_VARIABLE}</code> to change the pace)."),
        table(["", "mean", "5th percentile", "median", "95th percentile"], [
            ["turns", num(t["mean"], 1), num(t["p05"], 0), num(t["p50"], 0), num(t["p95"], 0)],
            ["rounds", num(r["mean"], 1), num(r["p05"], 0), num(r["p50"], 0), num(r["p95"], 0)],
        ]),
        "<p>Minutes at a given pace:</p>",
        table(["pace", "mean", "5th percentile", "median", "95th percentile"], minute_rows),
        f"<p>Over every game, the capped ones counted at the cap of {results.config.rules.turn_cap} turns: "
        + metric("turns_per_game", s["turns_per_game"], num(s["turns_per_game"], 1)) + " turns a game.</p>",
    ]
    return section("length", "Game length", "\n".join(body))


def _combinations_section(results: RunResults) -> str:
    combos = tables.combinations_table(results.tally, results.config.rules)
    rows = [[e(r.label), str(r.points), num(r.per_game, 3), pct(r.share, 1)] for r in combos.itertuples()]
    s = results.summary
    body = [
        f"<p class=\"lead\">Players score {num(s['points_per_game'], 2)} points a game in all (points a double "
        "later gives up included); how they split between the pay table's combinations:</p>",
        figure(lambda: figures.combinations_figure(combos), "Horizontal bars of each combination's share of the points scored",
               "Share of every point scored in the run, by the pay-table pattern that scored it."),
        table(["combination", "points", "scored per game", "share of points"], rows),
    ]
    never = results.config.rules.unreachable_patterns
    if never:
        why = "; ".join(f"{e(results.config.rules.pattern_label(p))} ({e(unreachable_reason(results.config.rules, p))})"
                        for p in never)
        body.insert(1, f'<p class="lead neg" id="unreachable">Never scored, whatever the play: {why}.</p>')
    return section("combinations", "Points by combination", "\n".join(body))


def unreachable_reason(rules, p: int) -> str:
    """Why pattern ``p`` is never scored (``Rules.why_unreachable``): the deck holds too few cards of a symbol it
    needs, or every machine showing it matches a pattern that pays more (or as much, listed first) — or both."""
    short, instead = rules.why_unreachable(p)
    held = and_listed(f"{counted(n, 'card')} of {rules.symbols[x]}" for x, n in short.items())
    one = len(instead) == 1
    if all(rules.points[q] > rules.points[p] for q in instead):
        first = "a richer pattern" if one else "richer patterns"
    else:
        first = "a pattern that pays as much and is listed before it" if one else \
            "patterns that pay more, or as much and are listed before it"
    first += ", " + and_listed(rules.pattern_label(q) for q in instead)
    if not instead:
        return f"the deck holds only {held}"
    if not short:
        return f"every machine the deck can show that matches it matches first {first}"
    return f"the deck holds only {held}, and every other machine that matches it matches first {first}"


def _doubling_section(results: RunResults) -> str:
    s = results.summary
    rules = results.config.rules
    if not rules.double_up:
        return section("doubling", "Doubling", "<p>This run plays without doubling (<code>rules.double_up = false</code>).</p>")
    rows = [
        ["turns that double", pct(s["double_rate"], 2), ci_pct(*s["double_rate_ci"], 2)],
        ["doubles per game", num(s["doubles_per_game"], 2), "—"],
        ["doubles that score a combination", pct(s["double_success_rate"], 1), "—"],
        ["net gain of a double (points)", num(s["double_gain"], 2, sign=True),
         "n/a" if None in s["double_gain_ci"] else
         f"{num(s['double_gain_ci'][0], 2, sign=True)} to {num(s['double_gain_ci'][1], 2, sign=True)}"],
    ]
    body = [
        f'<p class="lead">{e(double_verdict(s))}</p>',
        f"<p>A seat holding a combination may give it up (the cheapest it holds, out of the game) to draw "
        f"{rules.double_extra_cards} more cards and play up to {rules.double_max_cards} of one symbol; it then "
        "keeps at most 3. The gain is the points scored on the doubling turn minus the points given up.</p>",
        table(["", "value", "95% CI"], rows),
    ]
    return section("doubling", "Doubling", "\n".join(body))


def _droughts_section(results: RunResults) -> str:
    s = results.summary
    rows = [
        ["full rounds in which no seat could score", pct(s["drought_rate"], 2),
         "n/a" if None in s["drought_rate_ci"] else ci_pct(*s["drought_rate_ci"], 2)],
        ["turns with a play that scores", pct(s["could_score_rate"], 2), "—"],
        ["turns that scored", pct(s["scoring_turn_rate"], 2), "—"],
        ["reshuffles of the discards per game", num(s["reshuffles_per_game"], 2), "—"],
        ["turns with no card to play, per game", num(s["passes_per_game"], 2), "—"],
    ]
    body = [f'<p class="lead">{e(drought_verdict(s))}</p>', table(["", "value", "95% CI"], rows)]
    return section("droughts", "Droughts", "\n".join(body))


# --- example games ---------------------------------------------------------------------------------


def replay_game(rules, seed: int, game: int, seats: Sequence[str]) -> tuple[dict, dict]:
    """Game ``game`` of ``seed`` played again by the reference engine, each seat by its policy: (record, trace)."""
    if len(seats) != rules.players:
        raise ValueError(f"{len(seats)} seat policies for {rules.players} players")
    return play_game(rules, seed, game, [player_named(rules, name) for name in seats], trace=True)


def _examples_section(results: RunResults) -> str:
    return examples_section(results, tables.example_games(results.tally), "Games of this run told turn by turn.", (),
                            _replay, _story)


def _replay(config, game: int) -> tuple[dict, dict]:
    return replay_game(config.rules, config.seed, game, config.seat_policies)


def _cards(cards) -> str:
    return " ".join(f"<code>{e(c) if c else '—'}</code>" for c in cards) or "—"


def _turn_row(i: int, t: dict) -> list[str]:
    play = "passes (no card)" if t["play"] is None else (
        f"{len(t['play']['reels'])} × <code>{e(t['play']['symbol'])}</code> on reel"
        f"{'s' if len(t['play']['reels']) > 1 else ''} {', '.join(map(str, t['play']['reels']))}")
    double = ""
    if t["double"]:
        double = f"doubles, gives up {e(t['given_up']['label'])} ({t['given_up']['points']} pts)"
    scored = f"<strong>{e(t['scored']['label'])}: +{t['scored']['points']}</strong>" if t["scored"] else ""
    machine = _cards(t.get("machine", []))
    return [str(i), f"seat {t['seat']}", _cards(t["hand"]), double, play, machine, scored,
            " ".join(map(str, t["scores"]))]


def _story(config, trace: dict) -> str:
    """An example game's turns, folded, and how it ended."""
    rows = [_turn_row(i, t) for i, t in enumerate(trace["turns"], start=1)]
    turns = table(["turn", "seat", "hand", "double", "plays", "machine after", "scores", "points"], rows,
                  numeric_from=99)
    if trace["finished"]:
        outcome = f"Seat {trace['winner']} reaches the target on turn {len(trace['turns'])}."
    else:
        outcome = f"Nobody reaches the target in {len(trace['turns'])} turns: the turn cap ends the game."
    return (
        f"<details><summary>Turns ({len(trace['turns'])})</summary>{turns}</details>\n"
        f'<p class="outcome">{e(outcome)} Final points: {" ".join(map(str, trace["scores"]))}; '
        f"{trace['reshuffles']} reshuffle{'s' * (trace['reshuffles'] != 1)}.</p>"
    )


def _method_section() -> str:
    return method_section([
        "Win share: the share of finished games each seat won (a game has one winner: the first to reach the "
        "target); the first-player advantage is seat 0's win share minus 1/players. At 1 player neither is given.",
        "Game length: turns (and rounds: every seat's turn) of finished games; exact percentiles from integer "
        "histograms. Minutes are turns times the pace in seconds, divided by 60.",
        "Unfinished games: the share of games the turn cap ended, with a Wilson score interval.",
        "Points by combination: exact shares of every point scored, points a double later gave up included.",
        "Doubling: the share of turns that double (Wilson interval over turns, which treats the turns of a game "
        "as independent: where they are not, it may be too narrow or too wide); a double's net gain is the points "
        "scored on the doubling turn minus the points given up, its interval a cluster-robust ratio over games.",
        "Droughts: the share of full rounds in which no seat, on its turn, had a play that scored; "
        "cluster-robust ratio interval over games.",
    ])
