"""What a designer's long run costs: ``lvsim run`` as typed, report included.

Run: ``.venv/bin/python bench/bench_scale.py [--games 10000000,50000000] [--config configs/default.toml]``.

For each game count, runs the command a user runs,
``lvsim run CONFIG --games N --out DIR``, under ``/usr/bin/time -v`` (or,
without it, from a wrapper reading the children's ``getrusage``), and
measures:

* peak resident memory of the whole command (target: under 1 GiB whatever
  the number of games);
* the games' time (the summary's ``seconds``), the report's time (the
  "Report: … (written in X s)" line) and their ratio (target: the report at
  most 10% of the games' time), and the whole wall time;
* the size of the results directory.

Every step of the default command runs: the games, records to Parquet,
the summary, the skill-gap duels and the HTML report. Prints one JSON line
per game count, then a table.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LVSIM = Path(sys.executable).with_name("lvsim")
RUSAGE_WRAPPER = """
import resource, subprocess, sys
code = subprocess.call(sys.argv[1:])
print(f"Maximum resident set size (kbytes): {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}", file=sys.stderr)
sys.exit(code)
"""


def measure(games: int, config: str, scratch: Path) -> dict:
    out = scratch / f"run-{games}"
    command = [str(LVSIM), "run", config, "--games", str(games), "--out", str(out)]
    if Path("/usr/bin/time").exists():
        wrapped = ["/usr/bin/time", "-v", *command]
    else:
        wrapped = [sys.executable, "-c", RUSAGE_WRAPPER, *command]
    started = time.perf_counter()
    done = subprocess.run(wrapped, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"lvsim run failed ({done.returncode}):\n{done.stderr[-2000:]}")
    peak_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    summary = json.loads((out / "summary.json").read_text())
    report = re.search(r"Report: .* \(written in ([\d.]+) s\)", done.stdout)
    report_seconds = float(report.group(1)) if report else None
    size = sum(p.stat().st_size for p in out.iterdir())
    shutil.rmtree(out)
    return {
        "games": games,
        "peak_mib": peak_kib / 1024,
        "games_seconds": summary["seconds"],
        "games_per_second": summary["games_per_second"],
        "report_seconds": report_seconds,
        "report_share": report_seconds / summary["seconds"] if report_seconds else None,
        "wall_seconds": wall,
        "results_mib": size / 2**20,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="10000000,50000000", help="comma-separated game counts")
    parser.add_argument("--config", default="configs/default.toml")
    parser.add_argument("--scratch", default=None, help="where the results go (default: a temporary directory)")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(dir=args.scratch) as scratch:
        for games in (int(g) for g in args.games.split(",")):
            row = measure(games, args.config, Path(scratch))
            print(json.dumps(row), flush=True)
            rows.append(row)
    print(f"\n{'games':>12} {'peak MiB':>9} {'games s':>8} {'games/s':>9} {'report s':>9} {'report/games':>13} "
          f"{'wall s':>7} {'results MiB':>12}")
    for r in rows:
        share = f"{100 * r['report_share']:.1f}%" if r["report_share"] is not None else "n/a"
        print(f"{r['games']:>12,} {r['peak_mib']:>9.0f} {r['games_seconds']:>8.1f} {r['games_per_second']:>9,.0f} "
              f"{r['report_seconds'] or float('nan'):>9.1f} {share:>13} {r['wall_seconds']:>7.1f} "
              f"{r['results_mib']:>12.0f}")


if __name__ == "__main__":
    main()
