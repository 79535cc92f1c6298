"""What moves the verdict: the one-step effects of ``sim.sensitivity`` as tornado figures and sentences.

Each headline metric gets a tornado figure, the largest effects first,
each drawn with its 95% interval; an effect that is not clear (its
interval at 1 − 0.05/m holds 0, m the changes tried for the metric:
Bonferroni) is inside the noise and drawn grey. Its sentence names the
printed number that moves the metric most (a clear effect) and by how
much, or says that no single printed number does; "most" only when the
games tell it from every other change (the sizes' 95% intervals apart),
else it names the change it is not told apart from. The same
body is the "What moves the verdict" section of every run's report and
the page ``lvsim sensitivity --out`` writes.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from analysis import figure_style
from analysis import report_html as H
from analysis.report_html import e, figure, is_missing, num, page, section, table
from sim.errors import and_listed, counted
from sim.wording import wrapped

TITLE = "What moves the verdict"
ANCHOR = "sensitivity"
# The effects a tornado shows: the largest, by the size of the change.
SHOWN = 12


def clear(effect: Mapping[str, Any]) -> bool:
    """An effect outside the noise after a Bonferroni correction (``sim.sensitivity.playing.is_clear``)."""
    return bool(effect.get("clear"))


def ranked(effects: Sequence[Mapping[str, Any]], metric: str, players: int) -> list[Mapping[str, Any]]:
    """The effects on ``metric`` at ``players``, largest change first (undefined ones left out)."""
    rows = [r for r in effects if r["metric"] == metric and r["players"] == players and not is_missing(r["delta"])]
    return sorted(rows, key=lambda r: -abs(r["delta"]))


def printed(value: Any) -> str:
    """A printed value as the rules spell it: a number (a true minus sign), a word, a flag."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return num(value, 0) if float(value).is_integer() else num(value, 2)
    return str(value)


def step_text(effect: Mapping[str, Any]) -> str:
    """``token 3, face 2 from −3 to −2``."""
    return f"{effect['label']} from {printed(effect['from'])} to {printed(effect['to'])}"


def amount(metric, value: float | None, sign: bool = True) -> str:
    """A change of ``metric`` (a ``sim.metrics.Metric``) as a number in its units: percentage points for a
    rate or an advantage, the metric's own units for a mean."""
    if is_missing(value):
        return "n/a"
    if metric.kind in ("rate", "advantage"):
        return num(100 * value, 1, sign)
    return num(value, 2, sign)


def unit(metric) -> str:
    return " points" if metric.kind in ("rate", "advantage") else ""


def unmeasured(effects: Sequence[Mapping[str, Any]], metric, players: int) -> list[Mapping[str, Any]]:
    """The changes that leave ``metric`` without a value at ``players`` (too few of their games measure it: none
    finished, say): not counted among the changes tried for it."""
    return [r for r in effects if r["metric"] == metric.name and r["players"] == players and is_missing(r["delta"])]


def unmeasured_text(effects: Sequence[Mapping[str, Any]], metric, players: int) -> str:
    """`` Under …, too few games measure the …, so that change is not counted.``, or ""."""
    rows = unmeasured(effects, metric, players)
    if not rows:
        return ""
    return (f" Under {and_listed(step_text(r) for r in rows)}, too few games measure the {metric.label} (it has no "
            f"value), so {'that change is' if len(rows) == 1 else 'those changes are'} not counted.")


def sentence(effects: Sequence[Mapping[str, Any]], metric, players: int) -> str:
    """The printed number that moves ``metric`` most at ``players``, or that no single one does; and the changes
    that leave it without a value, which are not counted among those tried."""
    return _sentence(effects, metric, players) + unmeasured_text(effects, metric, players)


def _sentence(effects: Sequence[Mapping[str, Any]], metric, players: int) -> str:
    rows = ranked(effects, metric.name, players)
    games = rows[0]["games"] if rows else 0
    moving = [r for r in rows if clear(r)]
    tried = len(rows)
    # An inert change (one that changes nothing a game plays) is not played: its effect is exactly 0. It still
    # counts in the correction, which is then a little stricter than it need be.
    inert = sum(bool(r.get("inert")) for r in rows)
    played = tried - inert
    counted_in = f", {counted(inert, 'inert change')} counted in" if inert else ""
    if not moving and not played:
        return (f"No printed number tried moves the {metric.label}: {'the' if tried == 1 else 'each'} one-step "
                f"change tried changes nothing a game plays (inert), so none was played.")
    if not moving:
        return (f"No single printed number moves the {metric.label} beyond the noise of {counted(games, 'game')}: no "
                f"one-step change of the {played:,} played is clear once corrected for trying {tried:,} "
                f"(Bonferroni{counted_in}).")
    top = moving[0]
    others = len(moving) - 1
    more = f"; {others} other one-step change{'s' if others != 1 else ''} move{'s' if others == 1 else ''} it " \
           "clearly too" if others else "; no other one-step change moves it clearly"
    more += f" (clear: beyond the noise after a Bonferroni correction over {counted(tried, 'change')} tried{counted_in})"
    effect = f"{amount(metric, top['delta'])}{unit(metric)} ({interval_words(metric, top.get('delta_ci'))})"
    close = [r for r in rows if r is not top and not larger(top, r)]
    if close:
        # "Most" would claim more than the games back: the next change's effect may be as large.
        first = close[0]
        rest = f", nor from {counted(len(close) - 1, 'other')}" if len(close) > 1 else ""
        without = sum(_size_range(r) is None for r in close)
        why = ("the sizes' 95% intervals overlap" if not without else
               "the sizes' 95% intervals overlap, or a change has none" if without < len(close) else
               "that change has no 95% interval" if without == 1 else "those changes have no 95% interval")
        its = f" ({interval_words(metric, first.get('delta_ci'))})" if _size_range(first) else ""
        return (f"Of the one-step changes that clearly move the {metric.label}, {step_text(top)} has the largest "
                f"estimate: {effect}, but {counted(games, 'game')} do not tell it apart from {step_text(first)}: "
                f"{amount(metric, first['delta'])}{unit(metric)}{its}{rest} ({why}){more}.")
    # "The one-step change that clearly moves …": the verb agrees whatever the metric's name (the turns that
    # double); "clearly", since a change whose effect is larger but not clear may stand above it in the table.
    return f"The one-step change that clearly moves the {metric.label} most is {step_text(top)}: {effect}{more}."


def _size_range(effect: Mapping[str, Any]) -> tuple[float, float] | None:
    """The range the size of an effect (its distance from 0) takes over its 95% interval; None without one."""
    low, high = effect.get("delta_ci") or (None, None)
    if is_missing(low) or is_missing(high):
        return None
    near = 0.0 if low <= 0 <= high else min(abs(low), abs(high))
    return near, max(abs(low), abs(high))


def larger(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether effect ``a`` is told larger than ``b`` in size: the least size ``a``'s 95% interval allows is above
    the most ``b``'s allows. Two effects played on the same deals are correlated, but intervals apart tell them
    apart whatever the correlation (the difference's standard error is at most the sum of theirs). An inert
    change is exactly 0; an effect without an interval is told apart from none."""
    if b.get("inert"):
        return True
    ra, rb = _size_range(a), _size_range(b)
    return ra is not None and rb is not None and ra[0] > rb[1]


def interval_words(metric, ci) -> str:
    """``95% interval −1.2 to −0.4``, or that the effect has none."""
    low, high = ci if ci and len(ci) == 2 else (None, None)
    if is_missing(low) or is_missing(high):
        return "no 95% interval"
    return f"95% interval {amount(metric, low)} to {amount(metric, high)}"


def tornado(effects: Sequence[Mapping[str, Any]], metric, players: int, shown: int = SHOWN) -> Figure:
    """One metric's effects as horizontal bars, the largest on top, 95% intervals drawn, the noise grey."""
    rows = ranked(effects, metric.name, players)[:shown]
    scale = metric.scale
    height = 0.9 + 0.24 * max(len(rows), 1)
    with figure_style.styled():
        fig = Figure(figsize=(figure_style.WIDTH, height), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        for y, r in enumerate(reversed(rows)):
            colour = (figure_style.GAIN if r["delta"] > 0 else figure_style.LOSS) if clear(r) \
                else figure_style.NEUTRAL
            ax.barh(y, scale * r["delta"], color=colour, height=0.7, zorder=2)
            lo, hi = r["delta_ci"] if r.get("delta_ci") and len(r["delta_ci"]) == 2 else (None, None)
            if not (is_missing(lo) or is_missing(hi)):
                ax.plot([scale * lo, scale * hi], [y, y], color="#222222", linewidth=1.1, zorder=3)
        ax.set_yticks(range(len(rows)), [step_text(r) for r in reversed(rows)], fontsize=7)
        ax.axvline(0, color=figure_style.FAIR, linewidth=1, zorder=1)
        unit = " (percentage points)" if metric.kind in ("rate", "advantage") else ""
        ax.set_xlabel(f"change in {metric.label}{unit}", fontsize=8)
        ax.set_title(f"{metric.label[:1].upper()}{metric.label[1:]}, {players} players", fontsize=9)
        if not rows:
            ax.text(0.5, 0.5, "no one-step change of these rules", ha="center", va="center",
                    transform=ax.transAxes, fontsize=8)
    return fig


def body(effects: Sequence[Mapping[str, Any]], game, players: Sequence[int]) -> str:
    """Each count's sentences, then a tornado per headline metric, then the strongest effects as a table."""
    parts = []
    for n in players:
        here = [r for r in effects if r["players"] == n]
        if not here:
            continue
        games = here[0]["games"]
        deviations = len({(r["knob"], json.dumps(r["to"])) for r in here})
        inert = sorted({r["label"] for r in here if r["inert"]})
        heading = f"<h3>{n} players</h3>" if len(players) > 1 else ""
        # A change that leaves a metric without a value is not tried for it: that metric's correction is over fewer.
        tried = {m: len(ranked(here, m, n)) for m in game.headline_metrics}
        fewer: dict[int, list[str]] = {}
        for metric in game.headline_metrics.values():
            if tried[metric.name] < deviations:
                fewer.setdefault(tried[metric.name], []).append(f"the {metric.label}")
        but = "".join(f"; 1 − 0.05/{k} for {e(and_listed(labels))}" for k, labels in sorted(fewer.items()))
        if fewer:
            but += (": a change that leaves a metric without a value (too few of its games measure it) is not "
                    "counted for it, and the metric's sentence below names it")
        note = (f"<p>{deviations} one-step changes of the printed rules, each played on the same {games:,} deals "
                "with the same players as the rules as printed; each bar is the change of the metric (95% "
                "interval, a delete-a-block jackknife over 10 blocks of games); a grey bar is inside the noise: not clear "
                f"once corrected for the {deviations} changes tried (its interval at 1 − 0.05/{deviations} holds 0, "
                f"Bonferroni{but}).")
        if inert:
            note += f" Inert under these rules, so exactly zero and not played: {e(', '.join(inert))}."
        parts.append(heading + note + "</p>")
        sentences = "".join(f'<li data-moved-metric="{e(m.name)}" data-players="{n}">{e(sentence(here, m, n))}</li>'
                            for m in game.headline_metrics.values())
        parts.append(f'<ul class="sensitivity">{sentences}</ul>')
        for metric in game.headline_metrics.values():
            parts.append(figure(lambda here=here, metric=metric, n=n: tornado(here, metric, n),
                                f"Tornado of the one-step changes' effects on the {metric.label} at {n} players",
                                f"The {metric.label}: the {min(SHOWN, tried[metric.name])} largest "
                                "one-step changes, 95% intervals; grey inside the noise."))
    return "\n".join(parts)


def effects_table(effects: Sequence[Mapping[str, Any]], game, players: int, shown: int = SHOWN) -> str:
    """The clearest effects of every headline metric at ``players``, one row each."""
    rows = []
    for metric in game.headline_metrics.values():
        for r in [r for r in ranked(effects, metric.name, players) if clear(r)][:shown]:
            rows.append([e(metric.label), e(step_text(r)), amount(metric, r["delta"]) + unit(metric),
                         interval_words(metric, r.get("delta_ci")).removeprefix("95% interval ")])
    if not rows:
        return ""
    return table(["metric", "one-step change", "effect", "95% interval"], rows, numeric_from=2)


def report_section(results) -> str:
    """The run report's "What moves the verdict", from the summary's ``sensitivity``: built through the reports'
    guard, so that a failure here costs this section only, said in its place."""
    return H.guarded_section(ANCHOR, TITLE, lambda: _report_body(results))


def _skipped(config) -> str:
    """Why a run played no "What moves the verdict", and what would make it play one (HTML)."""
    from sim.sensitivity.deviations import MIN_AUTO_GAMES, rule_sets, run_plan

    if config.sensitivity_games == 0:
        return ("This run skipped the sensitivity (<code>run.sensitivity_games = 0</code>). Leave it at "
                "<code>\"auto\"</code>.")
    deviations, _ = run_plan(config)
    if not deviations:
        return "These rules have no printed number to move one step."
    return (f"This run's {config.games:,} games shared among the {rule_sets(deviations)} rule sets it would play "
            f"leave fewer than {MIN_AUTO_GAMES} each (<code>run.sensitivity_games = \"auto\"</code>): play more games, or set "
            "<code>run.sensitivity_games</code> to the games each rule set plays.")


def _report_body(results) -> str:
    found = results.summary.get("sensitivity")
    if not isinstance(found, dict) or not found.get("effects"):
        return f"<p>{_skipped(results.config)} Or run <code>lvsim sensitivity CONFIG</code> for the full study.</p>"
    game = results.config.game_spec
    players = found["players"]
    intro = (f"<p>Which printed number of the rules to change: every one is moved one step and played on the run's "
             f"seed, deals and players ({found['games']:,} games each, a small share of the run's; "
             "<code>lvsim sensitivity</code> plays the full study, at several player counts).")
    left = found.get("swaps_left") or {}
    if left:
        swaps = "; ".join(f"{e(label)}: {n} swaps" for label, n in left.items())
        intro += (f" Sticker swaps are not played here ({swaps}): see <code>lvsim sensitivity "
                  "CONFIG</code>, which plays them.")
    intro += "</p>"
    return intro + body(found["effects"], game, players)


def study_page(result: Mapping[str, Any], config) -> str:
    """The page ``lvsim sensitivity --out`` writes: the study's sentences, tornadoes and tables."""
    game = config.game_spec
    players = result["players"]
    parts = [H.guarded(lambda: body(result["effects"], game, players), "section", TITLE)]
    for n in players:
        tab = H.guarded(lambda n=n: effects_table(result["effects"], game, n), "table", f"Clear effects at {n} players")
        if tab:
            parts.append((f"<h3>Clear effects at {n} players</h3>" if len(players) > 1 else "<h3>Clear effects</h3>")
                         + tab)
    seats = ", ".join(sorted({s for seat in result["seats"] for s in seat}))
    subtitle = (f"{game.title}, {', '.join(map(str, players))} players, {seats}; {result['games']:,} games per "
                f"rule set, seed {result['seed']}")
    with_sections = [section(ANCHOR, TITLE, "\n".join(parts))]
    anchors = [(ANCHOR, TITLE)]
    if result.get("also"):
        anchors.append((ALSO_ANCHOR, ALSO_TITLE))
        with_sections.append(H.guarded_section(ALSO_ANCHOR, ALSO_TITLE, lambda: also_body(result, game)))
    return page(f"{game.title} sensitivity: {config.name}", subtitle, anchors, with_sections,
                f"<footer><p>lvsim sensitivity {e(config.name)}</p></footer>")


ALSO_TITLE = "Which levers hold under other seats"
ALSO_ANCHOR = "also-seats"


def study_text(result: Mapping[str, Any], game) -> str:
    """The study as ``lvsim sensitivity`` prints it: per player count, one sentence per headline metric."""
    lines = [wrapped(f"{game.title}: one-step changes of the printed rules, {result['games']:,} games each on the same "
                     f"deals, seed {result['seed']} (95% intervals)")]
    for n in result["players"]:
        here = [r for r in result["effects"] if r["players"] == n]
        lines += ["", f"{n} players"]
        lines += [wrapped(f"- {sentence(here, metric, n)}") for metric in game.headline_metrics.values()]
    if result.get("also"):
        for i, n in enumerate(result["players"]):
            lines += ["", wrapped(f"{n} players: {_seats_name(result['seats'][i])} and, on the same deals, "
                                  f"{_seats_name(result['also']['seats'][i])} (a lever holds: clear under both, the "
                                  "same way)")]
            lines += [wrapped(f"- {holds_sentence(result, metric, n)}") for metric in game.headline_metrics.values()]
    return "\n".join(lines)


# --- a second table of seats (--also-seats) -----------------------------------------------------


def _seats_name(seats: Sequence[str]) -> str:
    """``expert`` for one policy at every seat, else the seats in order."""
    names = list(dict.fromkeys(seats))
    return names[0] if len(names) == 1 else ", ".join(seats)


def _change_key(r: Mapping[str, Any]) -> tuple:
    return r["players"], r["knob"], json.dumps(r["to"]), r["metric"]


def paired_tables(result: Mapping[str, Any], players: int) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """Each change and metric at ``players`` under the first table and the ``also`` table, side by side."""
    also = {_change_key(r): r for r in result["also"]["effects"] if r["players"] == players}
    return [(r, also[_change_key(r)]) for r in result["effects"] if r["players"] == players and _change_key(r) in also]


def holds(first: Mapping[str, Any], second: Mapping[str, Any]) -> bool:
    """A lever that holds under both tables: clear under each, with the same sign."""
    return (clear(first) and clear(second) and not is_missing(first["delta"]) and not is_missing(second["delta"])
            and (first["delta"] > 0) == (second["delta"] > 0))


def holds_sentence(result: Mapping[str, Any], metric, players: int, shown: int = 3) -> str:
    """Which levers of ``metric`` hold under both tables of seats at ``players`` (same sign, clear under both),
    and which move it under one only or the opposite way."""
    n = result["players"].index(players)
    a, b = _seats_name(result["seats"][n]), _seats_name(result["also"]["seats"][n])
    pairs = [(x, y) for x, y in paired_tables(result, players) if x["metric"] == metric.name]
    held = sorted([p for p in pairs if holds(*p)], key=lambda p: -abs(p[0]["delta"]))
    first_only = [x for x, y in pairs if clear(x) and not clear(y)]
    second_only = [y for x, y in pairs if clear(y) and not clear(x)]
    opposite = [x for x, y in pairs if clear(x) and clear(y) and not holds(x, y)]

    def named(rows, k=shown):
        text = "; ".join(step_text(r) for r in rows[:k])
        return text + (f" and {len(rows) - k} more" if len(rows) > k else "")

    if held:
        top = "; ".join(f"{step_text(x)} ({amount(metric, x['delta'])}{unit(metric)} with {a}, "
                        f"{amount(metric, y['delta'])} with {b})" for x, y in held[:shown])
        more = f" and {len(held) - shown} more" if len(held) > shown else ""
        levers = "1 lever holds" if len(held) == 1 else f"{len(held)} levers hold"
        text = f"The {metric.label}: {levers} with {a} and with {b}: {top}{more}"
    else:
        text = f"The {metric.label}: no lever holds with {a} and with {b} (clear under both, the same way)"
    parts = []
    if first_only:
        parts.append(f"clear with {a} only: {named(first_only)}")
    if second_only:
        parts.append(f"clear with {b} only: {named(second_only)}")
    if opposite:
        parts.append(f"clear both ways but opposite: {named(opposite)}")
    return text + (("; " + "; ".join(parts)) if parts else "; none moves it under one table only") + "."


def also_body(result: Mapping[str, Any], game) -> str:
    """The second table of seats: a sentence per headline metric and count, then the changes clear under either
    table, both effects side by side with their 95% intervals."""
    parts = []
    for n, players in enumerate(result["players"]):
        a, b = _seats_name(result["seats"][n]), _seats_name(result["also"]["seats"][n])
        heading = f"<h3>{players} players: {e(a)} and {e(b)}</h3>"
        sentences = "".join(f'<li data-held-metric="{e(m.name)}" data-players="{players}">'
                            f"{e(holds_sentence(result, m, players))}</li>" for m in game.headline_metrics.values())
        rows = []
        for metric in game.headline_metrics.values():
            pairs = [(x, y) for x, y in paired_tables(result, players)
                     if x["metric"] == metric.name and (clear(x) or clear(y))]
            for x, y in sorted(pairs, key=lambda p: -max(abs(p[0]["delta"] or 0), abs(p[1]["delta"] or 0)))[:SHOWN]:
                rows.append([e(metric.label), e(step_text(x)), _effect_cell(metric, x), _effect_cell(metric, y),
                             "holds" if holds(x, y) else "—"])
        tab = table(["metric", "one-step change", e(f"with {a}"), e(f"with {b}"), "lever"], rows, numeric_from=2) \
            if rows else "<p>No change is clear under either table.</p>"
        parts.append(heading + f'<ul class="sensitivity-also">{sentences}</ul>' + tab)
    return "\n".join(parts)


def _effect_cell(metric, r: Mapping[str, Any], units: bool = True) -> str:
    """An effect, its 95% interval and whether it is inside the noise."""
    if is_missing(r["delta"]):
        return "n/a"
    ci = r.get("delta_ci") or [None, None]
    mark = "" if clear(r) else " (noise)"
    return (f"{amount(metric, r['delta'])}{unit(metric) if units else ''} [{amount(metric, ci[0])}, "
            f"{amount(metric, ci[1])}]{mark}")


# --- Morris screening (--method morris) ---------------------------------------------------------


def morris_rows(result: Mapping[str, Any], metric: str, players: int) -> list[Mapping[str, Any]]:
    """The screen's knobs for ``metric`` at ``players``, by Morris rank."""
    return sorted([r for r in result["knobs"] if r["metric"] == metric and r["players"] == players],
                  key=lambda r: r["rank"])


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


READING_WHY = ("off the base rules", "not tried one step", "at the base rules only")


def _reading_text(r: Mapping[str, Any], dims: Mapping[str, Mapping[str, Any]]) -> str:
    d = dims.get(r["knob"], {})
    jumps = "in switches" if d.get("choice") else f"in jumps of {d.get('step', 1)}"
    words = {"off the base rules": f"clear over the domain {jumps}, inside the noise one step from the base rules",
             "not tried one step": "clear over the domain, and no one-step change of it exists at the base rules",
             "at the base rules only": "clear one step from the base rules, inside the noise over the domain"}
    parts = [words[w] for w in r["why"] if w in words]
    if "interacting or non-linear" in r["why"]:
        parts.append("its effect changes across the domain: interacting or strongly non-linear")
    return f"{r['label']} ({'; '.join(parts)})"


def _slope_text(r: Mapping[str, Any], metric) -> str:
    return f"{r['label']} {amount(metric, r['one_step']['delta'])} against {amount(metric, r['mu_star'], sign=False)}"


def _rank_text(r: Mapping[str, Any]) -> str:
    return f"{r['label']} ({ordinal(r['rank'])} by Morris, {ordinal(r['one_step']['rank'])} one step)"


def _listed(rows: Sequence[Mapping[str, Any]], text, shown: int = 4) -> str:
    out = "; ".join(text(r) for r in rows[:shown])
    return out + (f"; and {len(rows) - shown} more" if len(rows) > shown else "")


def morris_sentences(result: Mapping[str, Any], metric, players: int) -> list[str]:
    """What the screen says of ``metric`` at ``players``: the value that moves it most over the domain, and the
    values a one-step view at the base rules misjudges (or that it reads it as Morris does)."""
    every = morris_rows(result, metric.name, players)
    inert = [r for r in every if r.get("inert")]
    rows = [r for r in every if not r.get("inert")]
    dims = {d["knob"]: d for d in result["dims"]}
    moving = [r for r in rows if r["clear"]]
    if not moving:
        first = (f"No searched value moves the {metric.label} beyond the noise of {counted(result['games'], 'game')} over the "
                 f"domain: none of its {sum(r['effects'] for r in rows)} elementary effects is clear "
                 "once corrected for trying them all (Bonferroni).")
    else:
        top = moving[0]
        per = "a switch" if dims.get(top["knob"], {}).get("choice") else "a step"
        flagged = [r for r in moving if r["interacting"]]
        stats = (f"{amount(metric, top['mu_star'], sign=False)}{unit(metric)} {per} on average (mu*, ± "
                 f"{amount(metric, top['mu_star_conf'], sign=False)}; mu {amount(metric, top['mu'])}, "
                 f"sigma {amount(metric, top['sigma'], sign=False)})")
        close = [r for r in rows if r is not top and not _mu_star_above(top, r)]
        if close:
            # "Most" would claim more than the screen backs: another value's mean effect may be as large.
            rest = f", nor from {counted(len(close) - 1, 'other')}" if len(close) > 1 else ""
            first = (f"Over the searched domains, of the values that move the {metric.label} clearly, {top['label']} "
                     f"has the largest mean effect: {stats}, but the screen does not tell it apart from "
                     f"{close[0]['label']}: {_mu_star_text(metric, close[0])}{rest} (the 95% intervals of mu* "
                     f"overlap); {len(moving)} of {len(rows)} values move{'s' if len(moving) == 1 else ''} it clearly")
        else:
            first = (f"Over the searched domains, what moves the {metric.label} most is {top['label']}: {stats}; "
                     f"{len(moving)} of {len(rows)} values move{'s' if len(moving) == 1 else ''} it clearly")
        first += (f", {len(flagged)} of them interacting or strongly non-linear (sigma beyond the noise above mu*: "
                  f"{'; '.join(r['label'] for r in flagged)})" if flagged
                  else ", none interacting or strongly non-linear (sigma beyond the noise above mu*)")
        o = top["one_step"]
        if not is_missing(o["delta"]) and o.get("delta_ci"):
            first += (f"; one step from the base rules ({printed(o['from'])} to {printed(o['to'])}) it moves it "
                      f"{amount(metric, o['delta'])}{unit(metric)} (95% interval {amount(metric, o['delta_ci'][0])} to "
                      f"{amount(metric, o['delta_ci'][1])})")
        first += "."
    misread = [r for r in rows if any(w in r["why"] for w in READING_WHY)]
    steeper = [r for r in rows if "steeper at the base rules" in r["why"]]
    flatter = [r for r in rows if "flatter at the base rules" in r["why"]]
    reranked = [r for r in rows if "rank" in r["why"]]
    said = []
    if misread:
        said.append("would have misjudged " + _listed(misread, lambda r: _reading_text(r, dims), shown=len(misread)))
    in_units = ", in points" if metric.kind in ("rate", "advantage") else ""
    for group, how in ((steeper, "steeper"), (flatter, "flatter")):
        if group:
            said.append(f"finds {len(group)} clear value{'s' if len(group) != 1 else ''} {how} there than on average "
                        f"over the domain, the two intervals apart (one step against mu*{in_units}: "
                        + _listed(group, lambda r: _slope_text(r, metric)) + ")")
    if reranked:
        said.append(f"ranks {len(reranked)} clear value{'s' if len(reranked) != 1 else ''} {result['rank_move']} or "
                    "more places from Morris's ranking: " + _listed(reranked, _rank_text))
    if said:
        second = "A one-step view at the base rules " + "; it ".join(said) + "."
    elif not any(r["clear"] or r["one_step"]["clear"] for r in rows):
        second = "A one-step view at the base rules reads it as Morris does: no value is clear there either."
    else:
        close = "the same place" if result["rank_move"] == 1 else f"within {result['rank_move'] - 1} place" + \
            ("s" if result["rank_move"] > 2 else "")
        second = ("A one-step view at the base rules reads it as Morris does: the same values clear, as steep a "
                  f"step, their ranks {close}.")
    if inert:
        labels = and_listed(r["label"] for r in inert)
        second += (f" {labels[0].upper()}{labels[1:]} cannot change a game under any rule set screened (inert): "
                   "its effects are exactly zero and not counted.")
    return [first, second]


def _mu_star_above(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether value ``a`` moves a metric more than ``b`` over the domain as the screen tells it: the low end of
    ``a``'s mu* 95% interval (mu* − mu*_conf) above the high end of ``b``'s; never when either has none."""
    values = (a["mu_star"], a["mu_star_conf"], b["mu_star"], b["mu_star_conf"])
    if any(is_missing(v) for v in values):
        return False
    return a["mu_star"] - abs(a["mu_star_conf"]) > b["mu_star"] + abs(b["mu_star_conf"])


def _mu_star_text(metric, r: Mapping[str, Any]) -> str:
    if is_missing(r["mu_star"]):
        return "no mu*"
    conf = "" if is_missing(r["mu_star_conf"]) else f" ± {amount(metric, r['mu_star_conf'], sign=False)}"
    return f"mu* {amount(metric, r['mu_star'], sign=False)}{conf}"


def morris_figure(rows: Sequence[Mapping[str, Any]], metric, players: int) -> Figure:
    """Morris's plot of ``rows`` (:func:`morris_rows`): each value's sigma against its mu*, the line sigma = mu*
    drawn; clear values coloured."""
    scale = metric.scale
    with figure_style.styled():
        fig = Figure(figsize=(figure_style.WIDTH, 3.2), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        top = max([scale * max(r["mu_star"] or 0, r["sigma"] or 0) for r in rows] + [1e-9]) * 1.1
        ax.plot([0, top], [0, top], color=figure_style.FAIR, linestyle="--", linewidth=1, zorder=1)
        for r in rows:
            if is_missing(r["mu_star"]) or is_missing(r["sigma"]):
                continue
            colour = (figure_style.LOSS if r["interacting"] else figure_style.GAIN) if r["clear"] \
                else figure_style.NEUTRAL
            x, y = scale * r["mu_star"], scale * r["sigma"]
            half = 0.0 if is_missing(r["mu_star_conf"]) else abs(scale * r["mu_star_conf"])
            figure_style.intervals(ax, [y], [x - half], [x + half], horizontal=True, color=colour, linewidth=0.8,
                                   capsize=0, zorder=2)
            ax.plot(x, y, "o", color=colour, markersize=4, zorder=2)
            if r["clear"]:
                ax.annotate(r["label"], (x, y), xytext=(3, 3), textcoords="offset points", fontsize=7)
        ax.set_xlim(0, top)
        ax.set_ylim(0, top)
        units = " (points a step)" if metric.kind in ("rate", "advantage") else " (a step)"
        ax.set_xlabel(f"mu*: mean absolute effect on the {metric.label}{units}", fontsize=8)
        ax.set_ylabel("sigma", fontsize=8)
        ax.set_title(f"{metric.label[:1].upper()}{metric.label[1:]}, {players} players", fontsize=9)
    return fig


def morris_page_seconds(game, counts: int, dims: int, *, clock) -> float:
    """Seconds the page of a screen of ``dims`` values at ``counts`` player counts takes to draw: a Morris plot of
    ``dims`` points drawn and encoded as the page's are, twice (the first draw of a process sets up the plotting,
    as the screen's own first will), then the second's time paid by every other plot of the page. Nothing is
    written; the points are placed only to be drawn, never shown."""
    metric = next(iter(game.headline_metrics.values()))
    rows = [{"mu_star": 0.01 * (i + 1), "sigma": 0.005 * (i + 1), "mu_star_conf": 0.002, "clear": True,
             "interacting": i % 2 == 1, "label": f"value {i}"} for i in range(dims)]
    seconds = []
    for _ in range(2):
        began = clock()
        figure(morris_figure(rows, metric, 3), "timing", "timing")
        seconds.append(clock() - began)
    plots = counts * len(game.headline_metrics)
    return seconds[0] + (plots - 1) * seconds[1]


def morris_table(result: Mapping[str, Any], metric, players: int) -> str:
    rows = []
    for r in morris_rows(result, metric.name, players):
        o = r["one_step"]
        step = _effect_cell(metric, o, units=False)
        rows.append([str(r["rank"]), e(r["label"]), amount(metric, r["mu_star"], sign=False) +
                     f" ± {amount(metric, r['mu_star_conf'], sign=False)}", amount(metric, r["mu"]),
                     amount(metric, r["sigma"], sign=False), amount(metric, r["noise"], sign=False),
                     "inert" if r.get("inert") else "clear" if r["clear"] else "noise",
                     "yes" if r["interacting"] else "", step,
                     str(o["rank"]), e("; ".join(r["why"]))])
    return table(["rank", "searched value", "mu* ± 95%", "mu", "sigma", "noise (se)", "reading", "interacting",
                  "one step at the base", "its rank", "misjudged"], rows, numeric_from=2)


MORRIS_TITLE = "Morris screening: what moves the verdict over the whole domain"
MORRIS_ANCHOR = "morris"


def morris_page(result: Mapping[str, Any], tune) -> str:
    """The page ``lvsim sensitivity TUNEFILE --method morris --out`` writes."""
    game = tune.game
    parts = [f"<p>{len(result['dims'])} searched values of the tune file, {result['trajectories']} Morris "
             f"trajectories on {result['levels']} levels (SALib), every point played on the same "
             f"{result['games']:,} deals with the same seats; beside each, the one-step change of the same value at "
             "the base rules on the same deals. mu*, mu and sigma are per printed step (an integer: per unit, a "
             "choice: per switch), in percentage points for a rate or an advantage. A value is clear when one of "
             "its elementary effects is beyond the noise after a Bonferroni correction over all of them; a clear "
             "value is interacting or strongly non-linear when sigma, the noise taken out, exceeds mu*. The one-step view "
             "misjudges a value whose clear reading differs, or whose rank among the clear values moves "
             f"{result['rank_move']} places or more.</p>"]
    for n, players in enumerate(result["players"]):
        parts.append(f"<h3>{players} players, {e(_seats_name(result['seats'][n]))}</h3>")
        for metric in game.headline_metrics.values():
            parts.append(H.guarded(lambda metric=metric, players=players: _morris_metric(result, metric, players),
                                   "section", f"{metric.label} at {players} players"))
    subtitle = (f"{game.title}, tune {result['tune']}, {', '.join(map(str, result['players']))} players; "
                f"{result['games']:,} games per rule set, seed {result['seed']}")
    return page(f"{game.title} Morris screening: {tune.name}", subtitle, [(MORRIS_ANCHOR, MORRIS_TITLE)],
                [section(MORRIS_ANCHOR, MORRIS_TITLE, "\n".join(parts))],
                f"<footer><p>lvsim sensitivity {e(tune.name)} --method morris</p></footer>")


def _morris_metric(result: Mapping[str, Any], metric, players: int) -> str:
    """One metric of the screen at ``players``: its sentences, its Morris plot and its table."""
    said = "".join(f"<li>{e(s)}</li>" for s in morris_sentences(result, metric, players))
    return (f'<h4>{e(metric.label[:1].upper() + metric.label[1:])}</h4><ul class="morris" '
            f'data-morris-metric="{e(metric.name)}" data-players="{players}">{said}</ul>'
            + figure(lambda: morris_figure(morris_rows(result, metric.name, players), metric, players),
                     f"Morris plot of the {metric.label} at {players} players",
                     "sigma against mu*, each with its 95% interval; grey: inside the noise; red: "
                     "interacting or strongly non-linear; dashed: sigma = mu*.")
            + morris_table(result, metric, players))


def morris_text(result: Mapping[str, Any], game) -> str:
    """The screen as ``lvsim sensitivity TUNEFILE --method morris`` prints it: per count, two sentences per
    headline metric."""
    lines = [wrapped(f"{game.title}: Morris screening of tune {result['tune']}, seed {result['seed']}:"),
             wrapped(f"  {len(result['dims'])} searched values, {result['trajectories']} trajectories on "
                     f"{result['levels']} levels, {result['games']:,} games a rule set on the same deals")]
    for n, players in enumerate(result["players"]):
        lines += ["", f"{players} players, {_seats_name(result['seats'][n])}"]
        for metric in game.headline_metrics.values():
            lines += [wrapped(f"- {s}") for s in morris_sentences(result, metric, players)]
    return "\n".join(lines)
