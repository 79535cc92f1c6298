"""Memory of a long run, cost of the sweep machinery, and a local Dask cluster against one process.

Run: ``.venv/bin/python bench/bench_sweep.py [--games 10000000] [--cells 6 --cell-games 200000] [--workers 2]``.

Measures, in one run of this script:

* peak memory (maximum resident set size) of a process that plays and
  writes ``--games`` games with ``sim.run`` (target: under 1 GiB for 10
  million games), and of one that plays a tenth of them, to show that
  memory does not grow with the number of games;
* the time of a sweep of ``--cells`` cells of ``--cell-games`` games
  against plain ``sim.run`` calls of the same cells, written the same way
  (target: under 10% more); best of ``--repeat``, alternating, after a
  warm-up. The sweep's report page and paired table are timed apart;
* the same sweep on a ``LocalCluster`` of ``--workers`` processes against
  in-process, cluster start-up apart (0 skips it).

Prints one JSON line per measurement, then a summary with the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PEAK_MEMORY_SCRIPT = """
import resource, sys
import sim
from sim.config import Config
results = sim.run(Config(games=int(sys.argv[1])), out=sys.argv[2], progress=False)  # report included, as a user runs it
# Linux reports kilobytes.
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, results.summary["seconds"])
"""

SWEEP_FILE = """
base = "{base}"
[sweep]
"rules.golden_token" = {golden}
"""


def peak_memory(games: int, scratch: Path) -> dict:
    """Peak RSS of a fresh process that plays and writes ``games`` games."""
    out = scratch / f"run-{games}"
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PEAK_MEMORY_SCRIPT, str(games), str(out)],
                          check=True, capture_output=True, text=True)
    wall = time.perf_counter() - started
    peak, seconds = done.stdout.split()
    size = sum(p.stat().st_size for p in out.iterdir())
    shutil.rmtree(out)
    return {"measure": "peak_memory", "games": games, "peak_bytes": int(peak), "peak_mib": int(peak) / 2**20,
            "play_seconds": float(seconds), "wall_seconds": wall, "results_bytes": size}


def make_sweep(scratch: Path, cells: int, cell_games: int):
    from sim.config import DEFAULT_CONFIG_PATH
    from sim.sweep import load_sweep

    golden = [[g, g + 1] for g in range(1, cells + 1)]
    path = scratch / "bench_sweep.toml"
    path.write_text(SWEEP_FILE.format(base=DEFAULT_CONFIG_PATH.as_posix(), golden=json.dumps(golden)))
    return load_sweep(path, games=cell_games)


def time_plain_runs(sweep, scratch: Path) -> float:
    import sim

    out = scratch / "plain"
    started = time.perf_counter()
    for cell in sweep.cells:
        sim.run(cell.config, out=out / cell.name, report=False, progress=False)
    seconds = time.perf_counter() - started
    shutil.rmtree(out)
    return seconds


def time_sweep(sweep, scratch: Path, cluster=None, report: bool = False) -> dict:
    from sim.sweep import run_sweep

    out = scratch / "sweep"
    started = time.perf_counter()
    run_sweep(sweep, out, cluster=cluster, report=report, progress=False)
    seconds = time.perf_counter() - started
    shutil.rmtree(out)
    return seconds


def sweep_parts(sweep, scratch: Path) -> dict:
    """The sweep's steps after the cells are played: tables and report page."""
    from analysis.sweep_report import sweep_report_html
    from sim.sweep import run_sweep, write_tables

    out = scratch / "parts"
    results = run_sweep(sweep, out, report=False, progress=False)
    started = time.perf_counter()
    write_tables(out, sweep, 0)
    tables = time.perf_counter() - started
    started = time.perf_counter()
    sweep_report_html(results.table, results.paired, sweep_name=sweep.name, parameters=sweep.parameters,
                      axes={k: sweep.values(k) for k in sweep.parameters}, game=sweep.game, baseline=0)
    report = time.perf_counter() - started
    shutil.rmtree(out)
    return {"measure": "sweep_parts", "tables_seconds": tables, "report_seconds": report}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=10_000_000, help="games of the long run (peak memory)")
    ap.add_argument("--cells", type=int, default=6)
    ap.add_argument("--cell-games", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster workers (0: skip)")
    ap.add_argument("--scratch", default=None, help="directory for the results (default: a temporary one)")
    args = ap.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="lvsim-bench-", dir=args.scratch))
    rows = []

    def report(row):
        print(json.dumps(row), flush=True)
        rows.append(row)

    try:
        for games in (args.games // 10, args.games):
            report(peak_memory(games, scratch))

        import sim

        sweep = make_sweep(scratch, args.cells, args.cell_games)
        sim.run(sweep.cells[0].config.with_overrides(games=100), out=None)  # compile outside the timing
        plain, swept = [], []
        for _ in range(args.repeat):
            plain.append(time_plain_runs(sweep, scratch))
            swept.append(time_sweep(sweep, scratch))
        report({"measure": "sweep_overhead", "cells": args.cells, "cell_games": args.cell_games,
                "plain_seconds": plain, "sweep_seconds": swept, "ratio": min(swept) / min(plain)})
        report(sweep_parts(sweep, scratch))

        if args.workers:
            from sim.cluster import open_cluster

            started = time.perf_counter()
            with open_cluster(workers=args.workers) as cluster:
                startup = time.perf_counter() - started
                cluster.warm_up(sweep.cells[0].config)
                clustered = [time_sweep(sweep, scratch, cluster) for _ in range(args.repeat)]
            here = [time_sweep(sweep, scratch) for _ in range(args.repeat)]
            report({"measure": "local_cluster", "workers": args.workers, "startup_seconds": startup,
                    "cluster_seconds": clustered, "in_process_seconds": here,
                    "ratio": min(clustered) / min(here)})
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    by = {r["measure"]: r for r in rows if r["measure"] != "peak_memory"}
    print(f"\n{os.cpu_count()} cores")
    for r in (r for r in rows if r["measure"] == "peak_memory"):
        print(f"peak memory, {r['games']:>11,} games: {r['peak_mib']:7.0f} MiB "
              f"({r['play_seconds']:.1f} s playing, {r['results_bytes'] / 2**20:.0f} MiB of results)")
    o = by["sweep_overhead"]
    print(f"sweep of {o['cells']} x {o['cell_games']:,} games: {min(o['sweep_seconds']):.2f} s, plain runs "
          f"{min(o['plain_seconds']):.2f} s: sweep / plain = {o['ratio']:.3f}")
    p = by["sweep_parts"]
    print(f"  of which tables {p['tables_seconds']:.2f} s; report page (not in the ratio) {p['report_seconds']:.2f} s")
    if "local_cluster" in by:
        c = by["local_cluster"]
        print(f"LocalCluster of {c['workers']}: {min(c['cluster_seconds']):.2f} s, in-process "
              f"{min(c['in_process_seconds']):.2f} s: cluster / in-process = {c['ratio']:.2f} "
              f"(start-up {c['startup_seconds']:.1f} s apart)")


if __name__ == "__main__":
    main()
