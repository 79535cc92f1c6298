"""The HTML balance report of Las Vegas (the dice game): what a designer reads after a run.

Built on the shared shell (:mod:`analysis.report_html`) from the run's
summary and its tally (:class:`~sim.vegasdice.summary.Tally`, stored
as ``tally.json``), so a run of any size reports in bounded memory. Two
example games — a typical one and the closest finish — are played again
from ``(rules, seed, game index, seat policies)`` by the reference engine
(:mod:`sim.vegasdice.rules`), told round by round, and checked against the
run's stored record of each.

The headline numbers carry ``data-metric`` / ``data-value`` attributes
holding the summary's exact values (JSON), so a test can read them back.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from analysis.player_sections import report_page
from analysis.report_html import (
    CLOSING_SECTIONS, PLAYER_SECTIONS,
    ci_decimals, ci_pct, e, figure, first_player_card, first_player_verdict, headline,
    examples_section, is_missing, method_section, metric, num, pct, seat_cells, section, setup_facts,
    signed_cell, table,
)
from analysis.results import RunResults
from analysis.stats import mean_interval
from sim.errors import counted
from sim.vegasdice import figures, tables
from sim.vegasdice.rules import play_game, player_named

SECTIONS = (
    ("seats", "Seat and first-player advantage"),
    ("money", "Money"),
    ("ties-white", "Ties and white dice"),
    *PLAYER_SECTIONS,
    *CLOSING_SECTIONS,
)


def build_report(results: RunResults) -> str:
    """The report of a Las Vegas run as one HTML document."""
    own = [_headline(results), _seats_section(results), _money_section(results), _ties_section(results)]
    return report_page(results, "Las Vegas", SECTIONS, own, _examples_section, _method_section, extra_css=_CSS)


# --- words --------------------------------------------------------------------------


def dollars(x: float | None, sign: bool = False) -> str:
    """``$12,345``, ``+$1,200``, ``−$800``: whole dollars."""
    if is_missing(x):
        return "n/a"
    text = f"${abs(x):,.0f}"
    if x < 0 and round(abs(x)) > 0:
        return "\u2212" + text
    return ("+" + text) if sign else text


def dollars_ci(ci: Sequence[float | None] | None, sign: bool = False) -> str:
    if not ci or any(is_missing(x) for x in ci):
        return "n/a"
    return f"{dollars(ci[0], sign)} to {dollars(ci[1], sign)}"


def first_card_verdict(summary: dict) -> str:
    """One sentence on what holding the first-player card in a round is worth."""
    adv, ci = summary["first_card_advantage"], summary["first_card_advantage_ci"]
    share = summary["first_card_share"]
    fair = 1 / summary["players"]
    share_text = (
        f"; its holder takes {pct(share)} of the dollars players win, against an even {pct(fair)}"
        if share is not None else ""
    )
    if adv is None:
        return "No round was played, so the first-player card shows no edge."
    if not ci or None in ci:
        return f"Holding the first-player card is worth {dollars(adv, True)} a round beyond an even share{share_text}."
    if ci[0] > 0:
        opening = f"Holding the first-player card is worth {dollars(adv, True)} a round beyond an even share"
    elif ci[1] < 0:
        opening = f"Holding the first-player card costs {dollars(-adv)} a round against an even share"
    else:
        return (
            f"Holding the first-player card shows no edge that {summary['games']:,} games can tell from chance "
            f"(between {dollars(ci[0], True)} and {dollars(ci[1], True)} a round){share_text}."
        )
    return f"{opening} (95% CI {dollars_ci(ci, True)}){share_text}."


def ties_verdict(summary: dict) -> str:
    rate, ci = summary["tie_cancel_rate"], summary["tie_cancel_rate_ci"]
    if rate is None:
        return "No casino was paid out, so no tie cancelled anyone."
    d = ci_decimals(ci)
    return (
        f"Equal numbers of dice cancel at least one owner in {pct(rate, d)} of casino payouts "
        f"(95% CI {ci_pct(*ci, d)})."
    )


def white_verdict(summary: dict, white_dice: bool) -> str:
    white, unclaimed = summary["white_dice_share"], summary["unclaimed_share"]
    if white is None:
        return "No money was laid out."
    nobody = f"{pct(unclaimed)} of the money laid out is won by nobody"
    if not white_dice:
        return f"This run plays without white dice; {nobody}."
    return f"The white dice win {pct(white)} of the money laid out, and {nobody}."


def margin_verdict(summary: dict) -> str:
    m = summary["winner_margin"]
    if m["mean"] is None:
        return "No game was played."
    return (
        f"The winner ends {dollars(m['mean'])} ahead of the next seat on average; half the games are won by "
        f"{dollars(m['p50'])} or less and 95% by {dollars(m['p95'])} or less."
    )


def margin_interval(summary: dict) -> list[float | None]:
    """The winner's mean margin's 95% interval, from its sd over the games (Student t)."""
    m = summary["winner_margin"]
    if m["mean"] is None or m["sd"] is None:
        return [None, None]
    return list(mean_interval(m["mean"], m["sd"], summary["games"]))


# --- headline --------------------------------------------------------------------------


def _headline(results: RunResults) -> str:
    s = results.summary
    card_ci = s["first_card_advantage_ci"]
    tie_ci = s["tie_cancel_rate_ci"]
    d_tie = ci_decimals(tie_ci)
    margin = s["winner_margin"]
    cards = [
        first_player_card(s),
        (
            "First-player card",
            metric("first_card_advantage", s["first_card_advantage"],
                   f"{dollars(s['first_card_advantage'], True)}") + " a round",
            "95% CI " + metric("first_card_advantage_ci", card_ci, dollars_ci(card_ci, True))
            + " · holder's share of dollars won "
            + metric("first_card_share", s["first_card_share"], pct(s["first_card_share"])),
            first_card_verdict(s),
        ),
        (
            "Ties cancelling",
            metric("tie_cancel_rate", s["tie_cancel_rate"], pct(s["tie_cancel_rate"], d_tie)),
            "95% CI " + metric("tie_cancel_rate_ci", tie_ci, ci_pct(*tie_ci, d_tie)) + " · of casino payouts",
            ties_verdict(s),
        ),
        (
            "Winner's margin",
            metric("winner_margin_mean", margin["mean"], dollars(margin["mean"])),
            "95% CI " + dollars_ci(margin_interval(s)) + " · median "
            + metric("winner_margin_p50", margin["p50"], dollars(margin["p50"]))
            + " · 95th percentile " + metric("winner_margin_p95", margin["p95"], dollars(margin["p95"])),
            margin_verdict(s),
        ),
        (
            "White dice",
            metric("white_dice_share", s["white_dice_share"], pct(s["white_dice_share"])),
            "of the money laid out · won by nobody "
            + metric("unclaimed_share", s["unclaimed_share"], pct(s["unclaimed_share"])),
            white_verdict(s, results.config.rules.n_white > 0 or results.config.rules.n_extra_white > 0),
        ),
    ]
    return headline(setup_facts(results), cards)


# --- sections ---------------------------------------------------------------------------


def _seats_section(results: RunResults) -> str:
    t = results.tally
    s = results.summary
    by_seat = t.win_share_by_seat()
    by_place = tables.won_by_place(t)
    rows = [[*seat_cells(results, seat, "first player in round 1"), dollars(s["money_mean"][seat]),
             dollars_ci(s["money_mean_ci"][seat])] for seat in range(results.players)]
    even = float(by_place["fair"].iloc[0]) if len(by_place) else float("nan")
    place_rows = [
        [f"place {int(r.place)}" + (" (holds the card)" if r.place == 0 else ""), dollars(r["mean"]),
         dollars_ci([r["low"], r["high"]]), dollars(r["mean"] - even, True)]
        for _, r in by_place.iterrows()
    ]
    body = [
        f'<p class="lead">{e(first_player_verdict(s))}</p>',
        f'<p class="lead" id="first-card-verdict">{e(first_card_verdict(s))}</p>',
        figure(
            lambda: figures.seats_figure(by_seat, by_place),
            "Bar charts of win share by seat and of dollars won per round by place from the first-player card",
            "Left: share of games won by each seat (a shared win is split); black: 95% interval; dashed: the "
            "fair share. Right: dollars a seat wins in one round by its place clockwise from the seat holding "
            "the first-player card (the card passes one seat each round), with 95% intervals over games; "
            "dashed: the players' average winnings in a round.",
        ),
        table(["seat", "policy", "win share", "95% CI", "final money", "95% CI"], rows, numeric_from=2),
        table(["place from the card", "dollars per round", "95% CI", "against the average"], place_rows),
    ]
    return section("seats", "Seat and first-player advantage", "\n".join(body))


def _money_section(results: RunResults) -> str:
    t = results.tally
    s = results.summary
    by_seat = tables.money_by_seat(t)
    margins = tables.margin_histogram(t)
    rows = [
        [f"seat {int(r.seat)}", dollars(r["mean"]), dollars_ci([r["low"], r["high"]]),
         *(dollars(r[f"p{q:02d}"]) for q in tables.QUANTILES), num(s["bills_mean"][int(r.seat)], 2)]
        for _, r in by_seat.iterrows()
    ]
    median = tables.money_percentile(t, 50)
    m = s["winner_margin"]
    tie_d = ci_decimals(s["tie_rate_ci"])
    lead = margin_verdict(s)
    if not math.isnan(median):
        lead += f" A seat ends with {dollars(median)} at the median."
    body = [
        f'<p class="lead">{e(lead)}</p>',
        figure(
            lambda: figures.money_figure(by_seat, margins),
            "Box plots of final money by seat and a histogram of the winner's margin",
            "Left: dollars at the end of the game; box: quartiles, line: median, dot: mean, whiskers: 5th and "
            "95th percentiles. Right: share of games by the winner's margin over the next richest seat; "
            "vermillion at 0: games the richest seats tied on money.",
        ),
        table(["seat", "mean", "95% CI", "5th", "25th", "median", "75th", "95th", "banknotes"], rows),
        table(
            ["winner's margin", "mean", "sd", "median", "95th percentile"],
            [["dollars", dollars(m["mean"]), dollars(m["sd"]), dollars(m["p50"]), dollars(m["p95"])]],
        ),
        "<p>Money ties: the richest seats tied on money in "
        + metric("money_tie_rate", s["money_tie_rate"], pct(s["money_tie_rate"], 2))
        + f" of games (the tie-break, <code>{e(results.config.rules.tie_break)}</code>, then decides); "
        "the win stayed shared after it in "
        + metric("tie_rate", s["tie_rate"], pct(s["tie_rate"], tie_d))
        + f" (95% CI {ci_pct(*s['tie_rate_ci'], tie_d)}).</p>",
    ]
    return section("money", "Money", "\n".join(body))


def _ties_section(results: RunResults) -> str:
    s = results.summary
    rules = results.config.rules
    white_dice = rules.n_white > 0 or rules.n_extra_white > 0
    if white_dice:
        extra = f", and the table rolls {rules.n_extra_white} more each round" if rules.n_extra_white else ""
        setup = f"Each seat rolls {rules.n_white} white dice with its own{extra}."
    else:
        setup = "This run plays without white dice (<code>rules.white_dice = 0</code> or 5 players)."
    facts = [
        ["casino payouts where a tie cancelled an owner", pct(s["tie_cancel_rate"], 2),
         ci_pct(*s["tie_cancel_rate_ci"], 2)],
        ["money won by the white dice", pct(s["white_dice_share"], 2), _share_ci(s, "white_dice_share")],
        ["money won by nobody", pct(s["unclaimed_share"], 2), _share_ci(s, "unclaimed_share")],
        ["money laid out per round", dollars(s["laid_out_per_round"]), "—"],
        ["casinos short of the minimum", pct(s["short_casino_rate"], 2), "—"],
        ["turns per round", num(s["turns_per_round"], 2), "—"],
    ]
    body = [
        f'<p class="lead">{e(ties_verdict(s))} {e(white_verdict(s, white_dice))}</p>',
        f"<p>{setup} When two or more owners (the white dice count as one) have as many dice on a casino, "
        "they are all removed from its payout; the bills they would have taken go to the next owners down, "
        "or to nobody.</p>",
        figure(
            lambda: figures.money_flow_figure(s),
            "A bar split into the shares of the money laid out won by players, by the white dice and by nobody",
            "Every dollar laid out on the casinos, over all rounds: won by a player, won by the white dice "
            "(back under the pile), or left on a casino nobody took it from (back under the pile).",
        ),
        table(["", "value", "95% CI"], facts),
    ]
    return section("ties-white", "Ties and white dice", "\n".join(body))


# --- example games ----------------------------------------------------------------------------


def replay_game(rules, seed: int, game: int, seats: Sequence[str]) -> tuple[dict, dict]:
    """Game ``game`` of ``seed`` played again by the reference engine, each seat by its policy: (record, trace)."""
    if len(seats) != rules.players:
        raise ValueError(f"{len(seats)} seat policies for {rules.players} players")
    return play_game(rules, seed, game, [player_named(rules, name) for name in seats], trace=True)


def example_picks(tally) -> list[tuple[str, str, int, str]]:
    """``(anchor, title, game, why)`` of the example games: a typical game and the closest finish."""
    picks = []
    typical = tables.typical_game(tally)
    if typical is not None:
        picks.append(("typical", "A typical game", *typical))
    closest = tables.closest_finish(tally)
    if closest is not None and (typical is None or closest[0] != typical[0]):
        picks.append(("closest-finish", "The closest finish", *closest))
    return picks


def _examples_section(results: RunResults) -> str:
    notes = ['<p class="muted">A roll lists the seat\'s own dice, then its white dice in grey; the value placed is '
             "highlighted. Money is in dollars.</p>"]
    return examples_section(results, example_picks(results.tally), "Games of this run told turn by turn.", notes,
                            _replay, _story)


def _replay(config, game: int) -> tuple[dict, dict]:
    return replay_game(config.rules, config.seed, game, config.seat_policies)


def _story(config, trace: dict) -> str:
    """An example game's rounds, and how it ended."""
    rounds = "\n".join(_round_html(r, config.players) for r in trace["rounds"])
    return f'{rounds}\n<p class="outcome">{e(outcome(trace, config.rules.tie_break))}</p>'


def outcome(trace: dict, tie_break: str) -> str:
    """Who won the traced game, by how much, and how a money tie was broken."""
    money, bills, winners = trace["money"], trace["bills"], trace["winners"]
    ranking = trace["ranking"]
    final = ", ".join(f"seat {s} {dollars(money[s])}" for s in ranking)
    if len(winners) > 1:
        who = " and ".join(f"seat {s}" for s in winners)
        return f"{who} share the win with {dollars(money[winners[0]])} each. Final money: {final}."
    winner = winners[0]
    tied = [s for s in range(len(money)) if money[s] == money[winner] and s != winner]
    if tied:
        how = {"bills": "larger banknotes", "count": "more banknotes"}.get(tie_break, "the tie-break")
        beaten = " and ".join(f"seat {s}" for s in tied)
        return (
            f"Seat {winner} wins on {how}, tied on money with {beaten} at {dollars(money[winner])} "
            f"(banknotes: " + "; ".join(f"seat {s} " + " ".join(dollars(b) for b in bills[s])
                                         for s in [winner, *tied]) + f"). Final money: {final}."
        )
    second = ranking[1]
    return (
        f"Seat {winner} wins with {dollars(money[winner])}, {dollars(money[winner] - money[second])} ahead of "
        f"seat {second}. Final money: {final}."
    )


def _owner(owner: Any) -> str:
    return "white" if owner == "white" else f"seat {owner}"


def _roll_html(turn: dict) -> str:
    place = turn["place"]

    def faces(values, cls):
        return " ".join(
            f'<span class="die {cls}{" placed" if v == place else ""}">{v}</span>' for v in sorted(values)
        )

    own = faces(turn["roll"], "own")
    white = faces(turn.get("white", []), "white")
    return own + (" " + white if white else "")


def _round_html(rd: dict, players: int) -> str:
    extra = ""
    if rd.get("extra_white"):
        extra = (f'<p class="muted">The table\'s white dice show {", ".join(map(str, rd["extra_white"]))} and go '
                 "on those casinos.</p>")
    turn_rows = []
    for i, t in enumerate(rd["turns"], start=1):
        placed = [f'{t["dice"]} {"die" if t["dice"] == 1 else "dice"}'] if t["dice"] else []
        if t.get("white_dice"):
            placed.append(f'{t["white_dice"]} white')
        placed = " + ".join(placed)
        turn_rows.append([str(i), f'seat {t["seat"]}', _roll_html(t), f"casino {t['place']}", placed])
    turns = table(["turn", "seat", "roll", "places on", "dice placed"], turn_rows, cls="data turns",
                  numeric_from=99)
    casino_rows = []
    for p in rd["payouts"]:
        dice = [f"s{s}: {n}" for s, n in enumerate(p["dice"]) if n]
        if p["white"]:
            dice.append(f"white: {p['white']}")
        removed = ", ".join(_owner(o) for o in p["removed"]) or "—"
        paid = ", ".join(f"{_owner(x['owner'])} {dollars(x['bill'])}" for x in p["paid"]) or "—"
        left = " ".join(dollars(b) for b in p["unclaimed"]) or "—"
        casino_rows.append([
            f"casino {p['casino']}", " ".join(dollars(b) for b in p["bills"]), ", ".join(dice) or "—",
            removed, paid, left,
        ])
    casinos = table(["casino", "bills laid out", "dice", "cancelled by a tie", "paid", "won by nobody"],
                    casino_rows, cls="data casinos", numeric_from=99)
    money_rows = [
        [f"seat {s}", signed_cell(rd["won"][s], dollars(rd["won"][s], True) if rd["won"][s] else "$0"),
         f"<strong>{dollars(rd['money'][s])}</strong>", str(rd["bills"][s])]
        for s in range(players)
    ]
    money = table(["seat", "won this round", "money", "banknotes"], money_rows)
    short = (f" {counted(rd['short_casinos'], 'casino')} could not be filled to the minimum."
             if rd["short_casinos"] else "")
    after = (
        f"White dice won {dollars(rd['white_won'])}, nobody won {dollars(rd['unclaimed'])}; "
        f"{rd['pile']} bills left in the pile.{short}"
    )
    return (
        f'<div class="round"><h4>Round {rd["round"]} · seat {rd["first_player"]} holds the first-player card</h4>'
        f"{extra}<details{' open' if rd['round'] == 1 else ''}>"
        f"<summary>Turns ({len(rd['turns'])})</summary>{turns}</details>"
        f"{casinos}{money}<p class=\"muted\">{e(after)}</p></div>"
    )


# --- method and styles ----------------------------------------------------------------------


def _method_section() -> str:
    return method_section([
        "Win share: each of the k seats the tie-break leaves tied for most money gets 1/k of a win; the "
        "first-player advantage is seat 0's win share minus 1/players, in percentage points.",
        "Means of one value per game (win shares, final money, the winner's margin, the first-player card's "
        "worth): mean ± t · sd / √games, t Student's with games − 1 degrees of freedom (1.96 over many "
        "games, more over few; below 4 games no interval).",
        "First-player card: in each round, the dollars its holder wins minus the players' average winnings "
        "that round; a game's rounds are summed first, since they are not independent, and the mean is given "
        "per round. Dollars per round by place from the card: the ratio of per-game sums to rounds played, "
        "with a cluster-robust standard error and Student's t, games as clusters.",
        "Ties cancelling: the share of casino payouts (casinos with dice on them) where equal numbers of dice "
        "removed at least one owner.",
        "Shares of money (won by the white dice, by nobody, by the card's holder) are exact ratios of dollar "
        "totals over every round of every game.",
        "Ties cancelling and the money won by the white dice and by nobody: a ratio of per-game sums with a "
        "cluster-robust standard error and Student's t, games as clusters, since the payouts and rounds of one "
        "game are not independent. The card holder's share of the dollars won is shown without an interval.",
        "Percentiles (final money, winner's margin) are exact, from integer histograms of every game.",
    ])


_CSS = """
.die { display: inline-block; min-width: 1.5em; text-align: center; font-family: "SFMono-Regular", Menlo,
  Consolas, monospace; font-size: 13px; border: 1px solid #9aa5ad; border-radius: 4px; margin: 1px;
  padding: 0 2px; }
.die.white { color: var(--muted); border-style: dashed; }
.die.placed { background: #fff1c7; border-color: #e6c35c; font-weight: 700; }
table.casinos td, table.turns td { padding-right: 14px; }
"""


def _share_ci(summary: dict, name: str) -> str:
    """A share's 95% interval, or a dash for a summary written before it had one."""
    ci = summary.get(f"{name}_ci")
    return "—" if not ci or None in ci else ci_pct(*ci, 2)
