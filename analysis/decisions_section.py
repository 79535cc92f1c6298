"""The report's "Which decisions matter": restricted play per kind of decision (``sim.decisions``), read from
the run's ``decisions.json``, as a table and the sentence a designer reads."""

from __future__ import annotations

from analysis.common import num_ci
from analysis.report_html import e, guarded_section, pct, table
from sim.layout import DECISIONS_FILE


def decisions_section(results) -> str:
    """Each kind of decision made at random by one seat in turn: what it costs, its choice rate and agreement."""
    return guarded_section("decisions", "Which decisions matter", lambda: decisions_body(results))


def decisions_body(results) -> str:
    return decisions_of(results.decisions, results.config)


def decisions_of(found: dict | None, config, what: str = "run") -> str:
    """The section's body from a run's ``decisions.json`` (None: it wrote none), or why it holds no table;
    ``what`` the run is to a reader ("run", or the workbench's "play")."""
    if found is None:
        return f"<p>Not measured in this {what}: {not_measured(config)}. <code>lvsim decisions</code> on its " \
               "config measures it.</p>"
    if "skipped" in found:
        return f"<p>Not measured in this {what}: {e(found['skipped'])}.</p>"
    return decisions_html(found)


def not_measured(config) -> str:
    """Why a run's results hold no ``decisions.json``: it is played with the skill gap."""
    if config.players < 2:
        return "a game of 1 player plays no skill gap, and which decisions matter is played with it"
    if config.skill_gap_deals <= 0:
        return "it plays no skill gap (<code>run.skill_gap_games = 0</code>), and which decisions matter is played " \
               "with it"
    return f"its results directory holds no <code>{DECISIONS_FILE}</code> (a run of an earlier lvsim, or the file " \
           "was removed)"


def _cost_cells(row: dict) -> list[str]:
    """A cost and its interval in win share, as the sentence under the table and ``lvsim decisions`` write them."""
    return [f"{row['cost']:.3f}", num_ci((row["low"], row["high"]), 3, "too few deals")]


def decisions_html(found: dict) -> str:
    slow = found.get("slow_policy")
    header = ["decision", "cost", "95% CI", "verdict", "choice rate"] + ([f"agrees with {slow}"] if slow else [])
    rows = []
    for row in found["decisions"]:
        cells = [f"<code>{e(row['kind'])}</code>", *_cost_cells(row), e(row["verdict"]), pct(row["choice_rate"], 0)]
        if slow:
            cells.append("-" if row.get("agreement") is None
                         else f"{pct(row['agreement'], 0)} of {row['asked']:,}")
        rows.append(cells)
    every = found.get("every_kind")
    if every:
        rows.append(["every kind", *_cost_cells(every), e(every["verdict"]), ""] + ([""] if slow else []))
    seats = found["seats"]
    table_of = f"<code>{e(seats[0])}</code> at every seat" if len(set(seats)) == 1 else "the run's seats"
    return "\n".join([
        f"<p>Each kind of decision made uniformly at random by one seat, every seat in turn, the others and the "
        f"rest of its own play unchanged ({table_of}), on the same {found['games']:,} deals as the unrestricted "
        "table. The cost is the win share the seat loses (a whole win is 1), paired deal by deal, with its 95% "
        f"interval; near-free means the interval lies within ±{found['near_free']:g} of a win share. The choice rate "
        "is how often "
        f"the kind offers more than one legal option (over {found['census_games']:,} deals at each seat)"
        + (f"; the agreement, how often <code>{e(slow)}</code> decides alike, on the decisions counted." if slow
           else ".") + "</p>",
        table(header, rows),
        f"<p class=\"verdict\">{e(found['sentence'])}</p>",
    ])
