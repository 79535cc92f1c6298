"""What a tune says, in the words the terminal, ``tune.json`` and ``tune.html`` share: the change, the
headline verdict, what falls short, side effects, policies pulling apart."""

from __future__ import annotations

from functools import partial
from typing import Any, Mapping, Sequence

from analysis.common import value_ci
from sim.errors import counted
from sim.tune.directory import STATE_DIR, TuneResults
from sim.tune.evaluation import Judged
from sim.tune.spec import Tune
from sim.tune.targets import declared_style, target_style
from sim.tune.verdict import watched_metrics
from sim.wording import value_words as spell, wrapped


def describe(tune: Tune, values: Mapping[str, Any], short: bool = False) -> str:
    """The change in words: ``change tokens[2] from [0, -3] to [0, -2]``, or ``keep the base rules``."""
    changes = tune.changes(values)
    if not changes:
        return "base rules" if short else "keep the base rules"
    label = tune.game.knob_label
    parts = [f"{label('rules.' + c['what'])} {spell(c['from'])}→{spell(c['to'])}" if short
             else f"{label('rules.' + c['what'])} from {spell(c['from'])} to {spell(c['to'])}" for c in changes]
    return ", ".join(parts) if short else "change " + ", ".join(parts)


def all_met(tune: Tune, judged: Judged) -> bool:
    """Every target met at every setting on the 95% interval: the only case in which the tune says "meet"."""
    return set(judged.verdict(tune).values()) == {"met"}


def shortfall_words(tune: Tune, judged: Judged) -> str:
    """Which targets are missed or undecided, and where: ``elimination_rate missed (3 players, greedy), …``.

    ``every target met`` when none is.
    """
    verdicts = judged.verdicts(tune)
    parts = []
    for t in tune.targets:
        by_setting = verdicts[t.metric]
        for word in ("missed", "undecided"):
            where = [s for s, v in by_setting.items() if v == word]
            if where:
                places = "every setting" if len(where) == len(by_setting) > 1 else "; ".join(where)
                parts.append(f"{t.label} {word} ({places})")
    return ", ".join(parts) if parts else "every target met"


def headline_parts(tune: Tune, judged: Judged) -> tuple[str, str, str]:
    """The tune's answer in one sentence, as (before, the change, after): the terminal, tune.json and
    tune.html say the same words.

    "Recommendation" and "meet" only when every target is met at every
    setting on the fresh seed; otherwise the closest candidate and what it
    misses or leaves undecided.
    """
    sentence = describe(tune, judged.values)
    if all_met(tune, judged):
        after = (". They meet every target on a fresh seed." if not tune.changes(judged.values) else
                 ". Every target is met on a fresh seed.")
        return "Recommendation: ", sentence, after
    return ("No candidate tried meets every target on a fresh seed. Closest: ", sentence,
            f". Short of the targets: {shortfall_words(tune, judged)}.")


def headline(tune: Tune, judged: Judged) -> str:
    return "".join(headline_parts(tune, judged))


def side_effect_words(tune: Tune, effects: Sequence[Mapping[str, Any]] | None) -> str:
    """The side effects as a sentence; which metrics were watched when none got much worse; None: the
    recommended rules are the base rules."""
    if effects is None:
        return "Side effects: none, since these are the base rules."
    if not effects:
        watched = ", ".join(watched_metrics(tune))
        return (f"Side effects: no untargeted metric watched ({watched}) got much worse than with the base rules "
                "on the fresh seed.") if watched else ""
    parts = []
    for metric in dict.fromkeys(e["metric"] for e in effects):
        mine = [e for e in effects if e["metric"] == metric]
        style = declared_style(tune.game, metric)
        where = "; ".join(f"{value_ci(style, *e['value'])} on {e['games']:,} games against "
                          f"{value_ci(style, *e['base'])} on {e['base_games']:,} games at {e['setting']}"
                          for e in mine)
        parts.append(f"{metric} ({mine[0]['meaning']}): {where}")
    return ("Side effects, untargeted and much worse than with the base rules (95% intervals, these rules against "
            "the base rules): " + "; and ".join(parts) + ".")


def policies_apart_words(apart: Sequence[Mapping[str, Any]]) -> str:
    """One sentence for the policies pulling apart (empty when they do not)."""
    if not apart:
        return ""
    parts = []
    for a in apart:
        parts.append(f"{a['label']} is {_said(a, a['high'])} with {a['high']} at every seat but "
                     f"{_said(a, a['low'])} with {a['low']} at {a['players']} players")
    return ("The policies pull apart under these rules: " + "; ".join(parts)
            + ". Rules right for one kind of player are not right for the other; the verdicts above hold for each "
              "policy separately.")


def _said(apart: Mapping[str, Any], policy: str) -> str:
    """One policy's value of a target the policies pull apart on, with its interval and games."""
    games = apart.get("games", {}).get(policy)
    shown = value_ci(apart.get("style", ""), *apart["by_policy"][policy])
    return shown if games is None else f"{shown} on {games:,} {apart.get('unit', 'games')}"


def tune_text(results: TuneResults) -> str:
    """What ``lvsim tune`` prints: the answer, its verdicts, side effects, the runners-up, where the results are.

    Every value is written as ``lvsim run`` writes its metric, with its 95% interval and the games it rests on:
    a target played until decided on the games that took, any other on its evaluation's."""
    summary = results.summary
    best = summary["recommendation"]
    game = results.tune.game
    lines = [wrapped(summary["verdict"]["headline"]),
             wrapped(f"On a fresh seed (seed {summary['final_seed']}), each value with its 95% interval and the games "
                     "it rests on:")]
    for t in results.tune.targets:
        style = target_style(game, t)
        wanted = t.spelled_as(partial(value_ci, style))
        lines.append(f"  {t.label:<30} wanted {wanted:<22} {best['verdict'][t.metric]}")
        for setting, (x, lo, hi) in ((s, m[t.metric]) for s, m in best["metrics"].items()):
            rests = best["rests_on"][setting][t.metric]
            verdict = best["verdicts"][t.metric][setting]
            on = "after" if rests["until_decided"] else "on"
            head = f"    {setting:<28} "
            line = f"{value_ci(style, x, lo, hi)}  {verdict} {on} {rests['games']:,} {rests['unit']}"
            decided = best.get("decided", {}).get(t.metric, {}).get(setting)
            if decided is not None and decided["verdict"] == "undecided" and decided["more_games"] is not None:
                line += f"; about {decided['more_games']:,} more would likely decide it"
            lines.append(wrapped(line, first=head, indent=" " * len(head)))  # continued under the value
    for sentence in (summary["policies_apart"]["sentence"], summary["side_effects"]["sentence"]):
        if sentence:
            lines.append(wrapped(sentence))
    holes = summary.get("rule_holes") or []
    if holes:
        base = keeps_base(summary)  # one evaluation, said once
        lines.append(f"Rule holes on the fresh seed ({'the base rules' if base else 'these rules; the base rules'}), "
                     "95% intervals:")
        metric_width, setting_width = (max(len(h[key]) for h in holes) for key in ("metric", "setting"))
        for h in holes:
            style = declared_style(results.tune.game, h["metric"])
            head = f"  {h['metric']:<{metric_width}}  {h['setting']:<{setting_width}}  "
            lines.append(wrapped(f"{value_ci(style, *h['value'])} on {h['games']:,} games"
                                 + ("" if base else f"; {value_ci(style, *h['base'])} on {h['base_games']:,} games"),
                                 first=head, indent=" " * len(head)))
    if summary["runners_up"]:
        lines.append("Runners-up:")
        for e in summary["runners_up"]:
            lines.append(wrapped(f"#{e['trial']}: {e['sentence']} \u2014 {e['status']}", first="  ", indent="    "))
    if any(v == "undecided" for v in best["verdict"].values()):
        lines.append(f"To play the undecided targets until decided: lvsim confirm {results.tune.path} "
                     f"--config {results.out_dir / 'best.toml'}")
    timing = summary.get("timing", {})
    if timing:
        lines.append(wrapped(f"Played {timing['games_played_now']:,} games now in {timing['seconds']:.1f} s wall time: "
                             f"{tried_text(summary)}; {counted(timing['evaluations_reused'], 'evaluation')} reused."))
    report = summary.get("report")
    if report:
        lines.append(wrapped(f"Balance reports of these rules, {report['games']:,} games each: "
                             + ", ".join(f"{r['report']} ({r['setting']})" for r in report["settings"])))
    files = ", ".join(sorted(p.name for p in results.out_dir.iterdir() if p.name != STATE_DIR))
    lines.append(f"Results in {results.out_dir}/ ({files})")
    return "\n".join(lines)


def tried_text(summary: Mapping[str, Any]) -> str:
    """How many candidates were played at the search's games: the distinct ones the search tried (fewer than the
    budget when the domain holds fewer) and those the simplification tried after it."""
    searched = summary.get("candidates_tried", summary["budget"])
    simplified = summary.get("simplified", 0) or 0
    text = f"{searched + simplified:,} candidates tried at {summary['games']:,} games each"
    return text + (f" ({searched:,} in the search, {simplified:,} simplifying)" if simplified else "")


def keeps_base(summary: Mapping[str, Any]) -> bool:
    """Whether the tune recommends the base rules as they are (no rule changed), so that the recommended rules and
    the base rules are one evaluation. False for a ``tune.json`` that does not list the changed rules."""
    return not summary["recommendation"].get("rules", True)
