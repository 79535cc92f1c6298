"""Whether the dry runs' time estimates bracket what the plans then take, on this machine.

Run: ``.venv/bin/python bench/bench_estimates.py [--plans run-random,tune-small,...] [--list]``.

Each plan (a run, a sweep or a tune of modest size: fast and slow
policies, a skill-gap target, adaptive precision, the report step) is
estimated in a fresh process, as ``--dry-run`` does, and then played in
another fresh process (so that neither profits from the other's warm
caches), both in process as the estimate says. Prints one JSON line per
plan (the estimate's range, the time the dry run itself took, the actual
seconds, ``actual / low`` and ``actual / high``, the load average) and then
a table. The claim: ``low / 2 <= actual <= 2 * high`` and ``high / low <= 4``.
The default plans take about 5 to 10 minutes on a quiet 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from textwrap import dedent

ROOT = Path(__file__).resolve().parents[1]

BASE_RANDOM = """
game = "lasvegan"
[run]
games = 20000
seed = 5
[rules]
players = 4
[policies]
seats = "random"
"""

BASE_EXPERT = """
game = "lasvegan"
[run]
games = 10000
seed = 5
[rules]
players = 4
[policies]
seats = "expert"
"""

BASE_SLOW = """
game = "lasvegan"
[run]
games = 120
seed = 5
skill_gap_games = 0
strength_games = 0
strength_lookahead_games = 0
[rules]
players = 3
[policies]
seats = "lookahead:8"
"""

SWEEP_GRID = """
base = "base.toml"
[sweep]
"rules.players" = [3, 4, 5]
"rules.golden_token" = [[2, 3], [3, 4]]
"""

SWEEP_ADAPTIVE = """
base = "base.toml"
[sweep]
"rules.golden_token" = [[2, 3], [3, 4], [4, 5]]
"""

# The tune the tests plant a known answer in (only rounds = 3 meets the target), shared with them.
PLANTED = ROOT / "tests" / "data" / "planted_tune"
TUNE_SMALL = (PLANTED / "tune.toml").read_text(encoding="utf-8")

BASE_PLANTED = (PLANTED / "base.toml").read_text(encoding="utf-8")

def tune_file(search: str, targets: str, **tune) -> str:
    """A tune file on base.toml: its [search] and [targets] lines as given, its [tune] table from ``tune``
    (JSON spells these numbers and lists as TOML does)."""
    table = "".join(f"{key} = {json.dumps(value)}\n" for key, value in tune.items())
    return f'base = "base.toml"\n[search]\n{search}\n[targets]\n{targets}\n[tune]\n{table}'


TUNE_SKILL = tune_file('"rules.golden_token" = { faces = [2, 6] }',
                       "elimination_rate = [0.3, 0.7]\nskill_gap_greedy_vs_random = { min = 0.3 }",
                       players=[3, 4], policies=["expert"], budget=6, games=400, seed=2, finalists=2)

TUNE_SLOW = tune_file('"rules.golden_token[1]" = [3, 4, 5, 6]', "elimination_rate = [0.3, 0.7]",
                      players=[3], policies=["lookahead:4"], budget=4, games=40, seed=2, finalists=1)

MORRIS = tune_file('"rules.tokens" = { faces = [-4, 3] }\n"rules.golden_token" = { faces = [1, 6] }\n'
                   '"rules.starting_cabbages" = [5, 12]', "elimination_rate = [0.4, 0.6]",
                   players=[3, 4], policies=["expert"], budget=10, games=2000, seed=1)

# name: (kind, files, arguments after the file)
PLANS = {
    "run-random": ("run", {"base.toml": BASE_RANDOM}, []),
    "run-expert": ("run", {"base.toml": BASE_EXPERT}, []),
    "run-slow": ("run", {"base.toml": BASE_SLOW}, []),
    "sweep-grid": ("sweep", {"base.toml": BASE_RANDOM.replace("games = 20000", "games = 4000"),
                             "s.toml": SWEEP_GRID}, []),
    "sweep-adaptive": ("sweep", {"base.toml": BASE_EXPERT.replace("games = 10000", "games = 2000"),
                                 "s.toml": SWEEP_ADAPTIVE}, ["--target-ci", "0.02"]),
    "tune-small": ("tune", {"base.toml": BASE_PLANTED, "t.toml": TUNE_SMALL}, []),
    "tune-skill-gap": ("tune", {"base.toml": BASE_EXPERT.replace("games = 10000", "games = 400"),
                                "t.toml": TUNE_SKILL}, ["--no-report"]),
    "sensitivity-expert": ("sensitivity", {"base.toml": BASE_EXPERT}, []),
    "morris-page": ("morris", {"base.toml": BASE_EXPERT, "t.toml": MORRIS}, []),
    "tune-slow": ("tune", {"base.toml": BASE_SLOW.replace("games = 120", "games = 40"), "t.toml": TUNE_SLOW}, []),
}

ONE = """
import json, sys, time
kind, where, part, extra = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
import os
os.chdir(where)
started = time.perf_counter()
if kind == "run":
    from sim.config import load_config
    config = load_config("base.toml")
    if part == "estimate":
        from sim.estimates import plan_run
        out = plan_run(config)["seconds"]
    else:
        from sim.runner import run
        run(config, out="out", progress=False)
elif kind == "sweep":
    from sim.sweep import load_sweep, plan_sweep, report_seconds, run_sweep
    sweep = load_sweep("s.toml")
    ci = float(extra[extra.index("--target-ci") + 1]) if "--target-ci" in extra else None
    if part == "estimate":
        from sim.estimates import band
        rows = plan_sweep(sweep, target_ci=ci)
        report = band(report_seconds(sweep))
        out = [sum(r["seconds"] for r in rows) + report[0], sum(r["max_seconds"] for r in rows) + report[1]]
    else:
        run_sweep(sweep, "out", target_ci=ci, progress=False)
elif kind == "sensitivity":
    from sim.config import load_config
    from sim.sensitivity.study import plan_study, study
    config = load_config("base.toml")
    size = dict(players=[3, 4], knobs=["rules.tokens", "rules.starting_cabbages"])
    if part == "estimate":
        out = plan_study(config, 1000, **size)["seconds"]
    else:
        study(config, 1000, progress=False, **size)
elif kind == "morris":
    from sim.sensitivity.morris import plan_screen, screen, write_screen
    from sim.tune import load_tune
    spec = load_tune("t.toml")
    if part == "estimate":
        out = plan_screen(spec, trajectories=4, page=True)["seconds"]
    else:
        write_screen(screen(spec, trajectories=4, progress=False), spec, "out")
else:
    from sim.tune import load_tune, plan_tune, tune
    spec = load_tune("t.toml")
    report = "--no-report" not in extra
    if part == "estimate":
        plan = plan_tune(spec, report=report)
        out = plan["seconds"] + [plan["worst_seconds"]]
    else:
        tune(spec, out="out", progress=False, report=report)
took = time.perf_counter() - started
print(json.dumps({"estimate": out if part == "estimate" else None, "seconds": took}))
"""


def load() -> float:
    return os.getloadavg()[0]


def one(name: str) -> dict:
    kind, files, extra = PLANS[name]
    with tempfile.TemporaryDirectory(prefix="bench-estimates-") as tmp:
        for file, text in files.items():
            (Path(tmp) / file).write_text(dedent(text), encoding="utf-8")
        row = {"plan": name, "kind": kind, "load_before": load()}
        for part in ("estimate", "actual"):
            done = subprocess.run([sys.executable, "-c", ONE, kind, tmp, part, json.dumps(extra)], check=True,
                                  capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
            result = json.loads(done.stdout.strip().splitlines()[-1])
            if part == "estimate":
                row["low"], row["high"] = result["estimate"][:2]
                row["worst"] = result["estimate"][2] if len(result["estimate"]) > 2 else None
                row["dry_run_seconds"] = result["seconds"]
            else:
                row["actual"] = result["seconds"]
        row["load_after"] = load()
    row["actual_over_low"] = row["actual"] / row["low"]
    row["actual_over_high"] = row["actual"] / row["high"]
    row["high_over_low"] = row["high"] / row["low"]
    row["holds"] = row["low"] / 2 <= row["actual"] <= 2 * row["high"] and row["high_over_low"] <= 4
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plans", default=",".join(PLANS), help="comma-separated plan names (default: all)")
    parser.add_argument("--list", action="store_true", help="list the plans and stop")
    args = parser.parse_args()
    if args.list:
        for name, (kind, _, extra) in PLANS.items():
            print(name, kind, " ".join(extra))
        return
    rows = []
    for name in args.plans.split(","):
        row = one(name.strip())
        print(json.dumps(row), flush=True)
        rows.append(row)
    print()
    print(f"{'plan':<16}{'estimate':>22}{'actual':>10}{'act/low':>9}{'act/high':>9}{'high/low':>9}"
          f"{'dry run':>9}{'load':>11}  holds")
    for r in rows:
        est = f"{r['low']:.1f}-{r['high']:.1f} s"
        print(f"{r['plan']:<16}{est:>22}{r['actual']:>9.1f}s{r['actual_over_low']:>9.2f}{r['actual_over_high']:>9.2f}"
              f"{r['high_over_low']:>9.2f}{r['dry_run_seconds']:>8.1f}s{r['load_before']:>5.1f}/{r['load_after']:<5.1f}"
              f"  {'yes' if r['holds'] else 'NO'}")


if __name__ == "__main__":
    main()
