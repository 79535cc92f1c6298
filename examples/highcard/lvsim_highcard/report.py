"""The HTML report of a High Card run, on lvsim's shared report shell (``analysis.report_html``).

Headline cards, the seats, the games' shape, skill, strength, two example
games replayed by the reference engine and checked against the run's
stored rows, the config and the method.
"""

from __future__ import annotations

from analysis.player_sections import report_page
from analysis.report_html import (
    CLOSING_SECTIONS, PLAYER_SECTIONS,
    ci_pct, e, examples_section, first_player_card, first_player_verdict, headline,
    method_section, metric, num, pct, seat_cells, section, setup_facts,
    table,
)

from lvsim_highcard.rules import play_game, policy_named

SECTIONS = (
    ("seats", "Seats"),
    ("games", "Points and ties"),
    *PLAYER_SECTIONS,
    *CLOSING_SECTIONS,
)


def build_report(results) -> str:
    own = [_headline(results), _seats(results), _games(results)]
    return report_page(results, "High Card", SECTIONS, own, _examples, _method)


def _headline(results) -> str:
    s = results.summary
    cards = [
        first_player_card(s),
        ("Tie rate", metric("tie_rate", s["tie_rate"], pct(s["tie_rate"])),
         "95% CI " + metric("tie_rate_ci", s["tie_rate_ci"], ci_pct(*s["tie_rate_ci"])) + " · of games",
         "Games whose win is shared."),
        ("Shutouts", metric("shutout_rate", s["shutout_rate"], pct(s["shutout_rate"])),
         "95% CI " + metric("shutout_rate_ci", s["shutout_rate_ci"], ci_pct(*s["shutout_rate_ci"])),
         "Games in which some player ends without a point."),
        ("Winner's points", metric("mean_points", s["mean_points"], num(s["mean_points"], 2)),
         f"of {s['rounds']} rounds", "Points the winner ends with, on average."),
    ]
    return headline(setup_facts(results), cards)


def _seats(results) -> str:
    s = results.summary
    rows = [[*seat_cells(results, seat, "leads round 1"), num(s["points_mean"][seat], 2)]
            for seat in range(results.players)]
    body = [f'<p class="lead">{e(first_player_verdict(s))}</p>',
            table(["seat", "policy", "win share", "95% CI", "points"], rows, numeric_from=2)]
    return section("seats", "Seats", "\n".join(body))


def _games(results) -> str:
    s = results.summary
    margin = s["winner_margin"]
    rows = [["games whose win is shared", pct(s["tie_rate"], 2)],
            ["games with a player on no point", pct(s["shutout_rate"], 2)],
            ["rounds nobody scores", pct(s["void_round_rate"], 2)],
            ["winner's margin, mean", num(margin["mean"], 2)],
            ["winner's margin, median", num(margin["p50"], 1)]]
    return section("games", "Points and ties", table(["", "value"], rows))


def _examples(results) -> str:
    tally = results.tally
    picks = []
    if tally.by_margin.counts:
        closest = min(tally.by_margin.counts)
        widest = max(tally.by_margin.counts)
        picks.append(("closest", "The closest finish", tally.by_margin.first[closest],
                      f"its winner's margin, {closest[0]}, is the run's smallest"))
        if widest != closest:
            picks.append(("widest", "The widest win", tally.by_margin.first[widest],
                          f"its winner's margin, {widest[0]}, is the run's largest"))
    return examples_section(results, picks, "Games of this run told round by round.", [], _replay, _story)


def _replay(config, game: int):
    return play_game(config.rules, config.seed, game, [policy_named(p) for p in config.seat_policies], trace=True)


def _story(config, trace: dict) -> str:
    rows = [[str(r["round"]), f"seat {r['leader']}", ", ".join(f"seat {p['seat']}: {p['card']}" for p in r["plays"]),
             ", ".join(f"seat {s}" for s in r["scorers"]) or "nobody", " · ".join(map(str, r["points"]))]
            for r in trace["rounds"]]
    winners = " and ".join(f"seat {s}" for s in trace["winners"])
    hands = "; ".join(f"seat {s}: {' '.join(map(str, h))}" for s, h in enumerate(trace["hands"]))
    return (f"<p>Hands dealt: {e(hands)}.</p>"
            + table(["round", "leads", "cards played", "scores", "points"], rows, numeric_from=99)
            + f'<p class="outcome">{e(winners)} {"win" if len(trace["winners"]) > 1 else "wins"}.</p>')


def _method() -> str:
    return method_section([
        "Win share: each of the k seats with the most points gets 1/k of a win; the first-player advantage is "
        "seat 0's win share minus 1/players. Means over games (win shares, the winner's points): Student's t.",
        "Tie rate and shutouts: Wilson score intervals over games.",
    ])
