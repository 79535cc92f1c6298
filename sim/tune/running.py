"""Running a tune: the search, the simplification, the halving and the final replay in the tune's
directory, then its answer (``tune.json``, ``best.toml``, the candidates table), and only then the reports."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from sim.atomic import locked, write_parquet_atomically, write_text_atomically
from sim.runner import DEFAULT_OUT, IN_PROCESS, Cluster, _DefaultOut, default_out_dir, out_path
from sim.tune.answer import answer, candidates_table
from sim.tune.best import _best_reports, _best_toml
from sim.tune.directory import (
    BEST_FILE,
    CANDIDATES_FILE,
    DEFINITION_FILE,
    EVALS_DIR,
    LOCK_FILE,
    REPORT_FILE,
    RESULT_FILE,
    TuneResults,
    _tune_directory,
    unfinished_tune_dir,
)
from sim.tune.evaluation import Judged, _Evaluations, search_score
from sim.tune.search import _distinct, _final, _halving, _search_phase, _simplify, _study
from sim.tune.spec import Tune
from sim.tune.targets import _finite, target_style
from sim.tune.tunefile import load_tune
from sim.wording import wrapped


def tune(
    spec: Tune | str | os.PathLike,
    out: str | os.PathLike | _DefaultOut = DEFAULT_OUT,
    *,
    cluster: Cluster | None = None,
    progress: bool | None = None,
    report: bool = True,
    report_games: int | None = None,
    say=None,
    answered=None,
) -> TuneResults:
    """Search the rules of ``spec`` for the smallest change that meets its targets; write the tune's directory.

    ``say`` (a callable taking a line), if given, is told before the search
    which targets are finer than its games resolve, and why
    a report could not be written (else that goes to stderr).
    ``answered`` (a callable taking the :class:`TuneResults`), if given, is
    called once the answer is written (``tune.json``, ``best.toml``,
    ``candidates.parquet``) and before any report is drawn.

    ``out`` is the tune's directory: by default a new
    ``reports/<name>-<timestamp>/``, or the newest unfinished tune of the
    same definition there (so the same command resumes a stopped tune). An
    existing tune directory of the same definition is resumed; one of another
    is refused. ``cluster`` plays the games elsewhere (``sim.cluster``);
    ``report`` writes ``tune.html`` and a full balance report of the
    recommended rules at every tuned player count and policy
    (``best/<players>p-<policy>/``), each played with ``report_games`` games
    (default: the tune's games), after the answer; ``tune.json`` is then
    written again with their links and timing. A report that fails never
    costs the answer: it is said in one line and the tune returns.
    """
    from tqdm import tqdm

    tune_ = spec if isinstance(spec, Tune) else load_tune(spec)
    cluster = cluster or IN_PROCESS
    # On a cluster the workers load the kernels while this process opens the tune's directory (in this
    # process this starts nothing).
    for players, policy in tune_.settings:
        cluster.warm_up(tune_.config({}, players, policy, games=1, seed=tune_.seed), wait=False)
    if isinstance(out, _DefaultOut):
        out_dir = unfinished_tune_dir(tune_) or default_out_dir(tune_.name)
    else:
        out_dir = out_path(out)
    progress = sys.stderr.isatty() if progress is None else progress

    def bar(desc: str, total: int | None = None):
        return tqdm(total=total, unit="candidate", disable=not progress, file=sys.stderr, leave=False, desc=desc)

    started = time.perf_counter()
    state = _tune_directory(out_dir, tune_)
    from sim.estimates import resolution_lines, resolution_of_rows, tune_resolution
    from sim.estimates.compiling import warm_up_said

    with locked(state / LOCK_FILE, "tune"):
        # Written first, so a tune stopped at any moment after this is found and continued.
        write_text_atomically(state / DEFINITION_FILE, json.dumps(tune_.definition(), indent=2))
        for players, policy in tune_.settings:
            warm_up_said(cluster, tune_.config({}, players, policy, games=1, seed=tune_.seed))
        evals = _Evaluations(tune_, state / EVALS_DIR, cluster)
        if say is not None:
            # Whether the search's games can resolve each target, said before the search: from the base rules
            # at the search's games on its seed, the same on any machine. They are the search's first
            # candidate, kept here and not played again.
            base = evals.judge(0, tune_.base_values(), tune_.games, tune_.seed, "search")
            for line in resolution_lines(tune_resolution(tune_, base.rows)):
                say(line)
        study = _study(tune_, state)
        with bar("search", tune_.budget) as shown:
            searched = _search_phase(tune_, study, evals, shown)
        ranked = sorted((j for j in _distinct(searched) if j.invalid is None), key=lambda j: j.rank_key(tune_))
        with bar("simplify") as shown:
            simplified = _simplify(tune_, ranked, evals, max(j.trial for j in searched) + 1, shown)
        ranked = sorted((j for j in _distinct([*ranked, *simplified]) if j.invalid is None),
                        key=lambda j: j.rank_key(tune_))
        with bar("halving") as shown:
            finalists, rungs = _halving(tune_, ranked, evals, shown)
        base = Judged(-1, tune_.base_values(), tune_.games, tune_.seed, "base")
        with bar("final, fresh seed", len(finalists) + 1) as shown:
            # No candidate the game takes (every one refused): the base rules are all there is.
            final = _final(tune_, finalists or [base], evals, shown)
            final_base = next((f for f in final if f.values == base.values), None)
            if final_base is None:
                # At the finalists' games, so that the table compares like with like.
                base.games = max(f.games for f in final)
                final_base = _final(tune_, [base], evals, shown)[0]
                final_base.stage = "final, base"
        # The resolution kept is the base rules' at their final games, not the timed sample's said above
        # (its games depend on the machine's speed): the same seed, the same tune.json on any machine.
        resolution = [] if final_base.invalid is not None else [r.as_dict() for r in resolution_of_rows(
            tune_, {s: (row, final_base.games) for s, row in final_base.rows.items()})]
        ranked_final = sorted(final, key=lambda j: j.rank_key(tune_, decided=True))
        best = ranked_final[0]
        summary = {
            "name": tune_.name,
            "game": tune_.base.game,
            "base": str(tune_.base_path),
            "seed": tune_.seed,
            "final_seed": tune_.final_seed,
            "budget": tune_.budget,
            "games": tune_.games,
            "max_games": tune_.max_games,
            "players": list(tune_.players),
            "policies": list(tune_.policies),
            "search": [{"name": d.name, "base": d.base, "low": d.low, "high": d.high, "step": d.step,
                        "choices": None if d.choices is None else [json.loads(c) for c in d.choices]}
                       for d in tune_.dims],
            # ``style``: how the outputs write the target's values, as ``lvsim run`` writes its metric.
            "targets": [{**t.as_dict(), "style": target_style(tune_.game, t)} for t in tune_.targets],
            **answer(tune_, ranked_final, final_base),
            "convergence": [{"trial": j.trial, "score": _finite(search_score(tune_, j)), "met": j.met(tune_),
                             "shortfall": _finite(j.shortfall(tune_)), "refused": j.invalid} for j in searched],
            "candidates_tried": len(_distinct(searched)),
            "simplified": len(simplified),
            "resolution": resolution,
        }
        kept_base = [final_base] if final_base not in final else []
        table = candidates_table(tune_, [*searched, *simplified, *rungs, *final, *kept_base])
        # The answer first: whatever happens to the reports, tune.json, best.toml and the candidates stay.
        write_parquet_atomically(out_dir / CANDIDATES_FILE, table)
        write_text_atomically(out_dir / BEST_FILE, _best_toml(tune_, best))
        summary["timing"] = {"seconds": time.perf_counter() - started, "games_played_now": evals.played_games,
                             "evaluations_reused": evals.reused}
        write_text_atomically(out_dir / RESULT_FILE, json.dumps(summary, indent=2, default=str))
        results = TuneResults(tune_, out_dir, summary, table)
        if answered is not None:
            answered(results)
        if report:
            report_started = time.perf_counter()
            summary.update(_reports(tune_, best, out_dir, report_games, summary, table, say))
            summary["timing"]["report_seconds"] = time.perf_counter() - report_started
            write_text_atomically(out_dir / RESULT_FILE, json.dumps(summary, indent=2, default=str))
    return results


def _reports(tune_: Tune, best: Judged, out_dir: Path, report_games: int | None, summary: dict, table,
             say) -> dict:
    """Play the balance reports of ``best`` and draw ``tune.html``, after the answer is written: what ``tune.json``
    adds of them (``report``: the balance reports' links; ``report_page``: ``tune.html``, None if it could not be
    written).

    Nothing here costs the answer: a report that fails is said in one line (to ``say``, else stderr), with
    why, and the tune ends with its answer; a figure or section that fails is a line on the page. Ctrl-C
    still stops the tune, after a line saying how to finish the reports.
    """
    from analysis.report_html import failure_reason, write_page
    from analysis.tune_report import tune_report_html

    tell = say if say is not None else (lambda line: print(line, file=sys.stderr))
    kept = f"the answer is in {out_dir / RESULT_FILE}"
    try:
        try:
            links = _best_reports(tune_, best, out_dir, report_games)
        except Exception as err:  # the recommended rules' own reports are worth less than tune.html
            tell(f"warning: the balance reports of the recommended rules could not be played: {failure_reason(err)}; "
                 f"{kept}")
            links = None
        written = write_page(out_dir / REPORT_FILE, lambda: tune_report_html({**summary, "report": links}, table,
                                                                              game=tune_.game),
                             kept=kept, say=tell)
    except KeyboardInterrupt:
        tell(f"interrupted: the reports were not all written; {kept}; the same command with --out {out_dir} "
             "writes them, reusing every game the tune played")
        raise
    return {"report": links, "report_page": REPORT_FILE if written is not None else None}


def reports_text(results: TuneResults) -> str:
    """What ``lvsim tune`` prints once the reports are drawn (the answer was printed before): where they are."""
    summary, out_dir = results.summary, results.out_dir
    written = []
    if summary.get("report_page"):
        written.append(str(out_dir / summary["report_page"]))
    links = summary.get("report")
    if links:
        written.append(f"balance reports of these rules, {links['games']:,} games each: "
                       + ", ".join(f"{r['report']} ({r['setting']})" for r in links["settings"]))
    if not written:
        return f"No report could be written (see why above); the answer is in {out_dir / RESULT_FILE}."
    return wrapped("Reports: " + "; ".join(written))


# ``sim.run_tune``: the package's name for it, since ``sim.tune`` is the package.
run_tune = tune
