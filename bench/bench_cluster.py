"""How busy a Dask cluster's workers are through a sweep and a tune, and their wall times on 1, 2, 3 workers.

Run: ``.venv/bin/python bench/bench_cluster.py [--workers 1,2,3] [--before eb59e8e] [--games 3000] [--repeats 1]``.

For ``lvsim sweep`` of 12 small cells (Las Vegan, greedy at every seat,
``--games`` games each, no skill gap, strength profile or report) and
``lvsim tune`` of 12 candidates at 2 player counts (``--games`` games per
candidate and player count, no report), on a ``LocalCluster`` of N
single-thread workers (``sim.cluster.open_cluster(workers=N)``), measures:

* the wall time of the library call the command makes (``run_sweep``,
  ``tune``), the cluster's start-up apart;
* occupancy: the mean number of tasks computing over that wall time, from
  Dask's task stream (``distributed.get_task_stream``: the sum of every
  task's compute spans divided by the wall time), i.e. workers busy out of N;
  and the share of it that plays chunks (the rest is each worker loading the
  compiled kernels, the warm-up). On a machine with fewer cores than
  workers, tasks computing at once share the cores: occupancy says how
  many workers have work, not how many cores play.

Each is measured for this tree and, with ``--before REF``, for the code at
that git commit (its ``sim/`` and ``analysis/`` unpacked into
``bench/.cache/before-<REF>`` and put first on the path), alternating, in
one run of this script, so that the ratios compare like with like on a
loaded machine. A first, unmeasured sweep per tree compiles (or loads) the
kernels. Also checks that every worker count gives this tree's sweep table
and tune answer of one process, bit for bit. Prints one JSON line per
measurement, then a table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "bench" / ".cache"

BASE = """game = "lasvegan"
[run]
games = {games}
seed = 7
skill_gap_games = 0
strength_games = 0
{slow}[policies]
seats = "greedy"
"""
SWEEP = """base = "base.toml"
[sweep]
"rules.players" = [3, 4, 5]
"rules.golden_token" = [[2, 3], [3, 4], [4, 5], [5, 6]]
"""
TUNE = """base = "base.toml"
[search]
"rules.rounds" = {{ range = [1, 4] }}
"rules.golden_token" = {{ faces = [1, 6] }}
[targets]
mean_rounds = [2.8, 3.6]
[tune]
players = [3, 4]
policies = ["greedy"]
budget = 12
games = {games}
max_games = {max_games}
finalists = 3
seed = 5
"""

# Played in a fresh process per measurement, with the tree under test first on the path.
DRIVER = r"""
import json, os, sys, time
from pathlib import Path
command, workers, scratch, out = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
from sim.cluster import open_cluster
os.chdir(scratch)
with open_cluster(workers=workers if workers > 0 else None) as cluster:
    stream = None
    if workers > 0:
        from distributed import get_task_stream
        stream = get_task_stream(cluster.client)
        stream.__enter__()
    started = time.time()
    if command == "sweep":
        from sim.sweep import run_sweep
        run_sweep("sweep.toml", out, progress=False, report=False, cluster=cluster)
    else:
        from sim.tune import tune
        tune("tune.toml", out, progress=False, report=False, cluster=cluster)
    ended = time.time()
    busy = playing = 0.0
    if stream is not None:
        stream.__exit__(None, None, None)
        for task in stream.data:
            for span in task.get("startstops", ()):
                if span["action"] == "compute":
                    spent = max(0.0, min(span["stop"], ended) - max(span["start"], started))
                    busy += spent
                    if "play_chunk" in str(task["key"]):
                        playing += spent
print(json.dumps({"wall": ended - started, "busy": busy, "playing": playing}))
"""


def unpack(ref: str) -> Path:
    """The code of commit ``ref`` (its sim/ and analysis/), unpacked once into bench/.cache."""
    sha = subprocess.run(["git", "rev-parse", "--short", ref], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout.strip()
    where = CACHE / f"before-{sha}"
    if not (where / "sim").is_dir():
        where.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", "--format=tar", sha, "sim", "analysis"], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        with tempfile.TemporaryFile() as tmp:
            tmp.write(archive)
            tmp.seek(0)
            with tarfile.open(fileobj=tmp) as tar:
                tar.extractall(where, filter="data")
    return where


def measure(tree: Path, command: str, workers: int, scratch: Path, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", DRIVER, command, str(workers), str(scratch), str(out)], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{command} on {workers} workers failed ({done.returncode}):\n{done.stderr[-3000:]}")
    timed = json.loads(done.stdout.strip().splitlines()[-1])
    # Tasks computing: every task, and the chunks alone (the rest loads the kernels on each worker).
    return {"wall_seconds": timed["wall"], "occupancy": timed["busy"] / timed["wall"] if workers else None,
            "playing": timed.get("playing", timed["busy"]) / timed["wall"] if workers else None}


def results_of(command: str, out: Path):
    import pandas as pd

    if command == "sweep":
        table = pd.read_parquet(out / "sweep.parquet")
        return table.drop(columns=[c for c in table.columns if c in ("seconds", "games_per_second")])
    summary = json.loads((out / "tune.json").read_text())
    summary.pop("timing")
    return summary, pd.read_parquet(out / "candidates.parquet")


def same(a, b) -> bool:
    import pandas as pd

    try:
        if isinstance(a, tuple):
            pd.testing.assert_frame_equal(a[1], b[1], check_exact=True)
            return a[0] == b[0]
        pd.testing.assert_frame_equal(a, b, check_exact=True)
        return True
    except AssertionError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2,3", help="comma-separated numbers of local workers")
    parser.add_argument("--games", type=int, default=3000, help="games per cell, and per candidate and player count")
    parser.add_argument("--before", default=None, help="a git commit to measure beside this tree (e.g. main)")
    parser.add_argument("--commands", default="sweep,tune")
    parser.add_argument("--repeats", type=int, default=1, help="measurements of each; the ratios are of the medians")
    parser.add_argument("--strength", action="store_true",
                        help="keep each cell's and candidate's slow strength profile (played by the client, not the workers)")
    args = parser.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    trees = {"now": ROOT}
    if args.before:
        trees["before"] = unpack(args.before)
    rows = []
    with tempfile.TemporaryDirectory(prefix="lvsim-bench-cluster-") as tmp:
        scratch = Path(tmp)
        slow = "" if args.strength else "strength_slow_games = 0\n"
        (scratch / "base.toml").write_text(BASE.format(games=args.games, slow=slow))
        (scratch / "sweep.toml").write_text(SWEEP)
        (scratch / "tune.toml").write_text(TUNE.format(games=args.games, max_games=4 * args.games))
        runs = 0
        for name, tree in trees.items():  # compiling (or loading) the kernels is not what is measured
            measure(tree, "sweep", 0, scratch, scratch / f"warm-{name}")
        for command in args.commands.split(","):
            here = scratch / f"{command}-here"
            measure(ROOT, command, 0, scratch, here)
            reference = results_of(command, here)
            for repeat in range(args.repeats):
                for workers in counts:
                    for name, tree in trees.items():  # alternating, so both see the same load
                        runs += 1
                        out = scratch / f"{command}-{name}-{workers}-{runs}"
                        row = {"command": command, "code": name, "workers": workers, "repeat": repeat,
                               **measure(tree, command, workers, scratch, out), "load": os.getloadavg()[0]}
                        if name == "now":
                            row["same_as_one_process"] = same(results_of(command, out), reference)
                        print(json.dumps(row), flush=True)
                        rows.append(row)
    print(f"\n{'command':<8}{'code':<8}{'workers':>8}{'wall s':>9}{'busy':>7}{'playing':>9}{'of':>4}{'same':>6}")
    for r in rows:
        same_text = {True: "yes", False: "NO", None: ""}[r.get("same_as_one_process")]
        print(f"{r['command']:<8}{r['code']:<8}{r['workers']:>8}{r['wall_seconds']:>9.2f}{r['occupancy']:>7.2f}"
              f"{r['playing']:>9.2f}{r['workers']:>4}{same_text:>6}")
    print("\nbusy: tasks computing on average over the wall time (the target: 2 of 3 workers); playing: the chunks'"
          " share of it, the rest is each worker loading the kernels")
    for command in args.commands.split(","):
        for code in trees:
            busy = [r["occupancy"] for r in rows if r["command"] == command and r["code"] == code and r["workers"] == 3]
            if busy:
                median = statistics.median(busy)
                print(f"  {command} on 3 workers, {code}: median {median:.2f} busy, "
                      f"the target of 2 {'met' if median >= 2 else 'NOT met'}")
    if "before" in trees:
        print("\nmedian wall time now / before, same worker count, same run:")
        for command in args.commands.split(","):
            for w in counts:
                now = [r["wall_seconds"] for r in rows
                       if r["command"] == command and r["workers"] == w and r["code"] == "now"]
                before = [r["wall_seconds"] for r in rows
                          if r["command"] == command and r["workers"] == w and r["code"] == "before"]
                if now and before:
                    print(f"  {command} on {w}: {statistics.median(now) / statistics.median(before):.2f}")


if __name__ == "__main__":
    main()
