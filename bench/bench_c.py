"""The jitted core against the same game loop in C, random policy, in one run.

Run: ``.venv/bin/python bench/bench_c.py [--games 1000000] [--players 4] [--repeats 3]``.
Compiles ``bench/c/lasvegan.c`` with ``cc -O2`` (skips with a message when
no C compiler is found; the C build is never part of the package), checks
that it writes exactly the records ``sim.lasvegan.nb.play_games`` writes
for the first ``--check-games`` games of the seed (every field, every
game), then times both, alternating, ``--repeats`` times: C on one core,
the jitted core on 1 thread and on all threads. Prints one JSON line per
measurement and the ratios of the medians: jitted 1 thread / C, and
jitted all threads / jitted 1 thread.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from sim.lasvegan.nb import play_games
from sim.lasvegan.params import Rules
from sim.lasvegan.policies import parse_seats
from sim.lasvegan.records import RECORD_FIELDS, field_shape

SOURCE = Path(__file__).resolve().parent / "c" / "lasvegan.c"


def compile_c(workdir: Path) -> Path | None:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        return None
    exe = workdir / "lasvegan"
    subprocess.run([cc, "-O2", "-o", str(exe), str(SOURCE)], check=True)
    return exe


def rules_text(rules: Rules) -> str:
    k = rules.kernel_rules()
    scalars = [k.players, k.rounds, k.starting_cabbages, k.starting_reserve, k.reserve_mode, k.end_on_elimination,
               k.n_set_aside, k.set_aside_revealed, k.payout_order]  # in the order the C program reads them
    ints = [*scalars, len(k.machines), *k.machines, len(k.tokens), *k.tokens.ravel(), *k.golden, *k.seat_starting]
    return " ".join(str(int(v)) for v in ints)


def run_c(exe: Path, rules: Rules, seed: int, games: int, out: str = "-") -> float:
    done = subprocess.run(
        [str(exe), str(seed), "0", str(games), out], input=rules_text(rules),
        capture_output=True, text=True, check=True,
    )
    return float(done.stdout.split()[0])


def read_c_records(path: Path, rules: Rules, games: int) -> dict[str, np.ndarray]:
    raw = path.read_bytes()
    rec, offset = {}, 0
    for name, (_, dtype, _) in RECORD_FIELDS.items():
        shape = (games,) + field_shape(name, rules.players, rules.rounds)
        count = int(np.prod(shape))
        rec[name] = np.frombuffer(raw, dtype=dtype, count=count, offset=offset).reshape(shape)
        offset += count * np.dtype(dtype).itemsize
    if offset != len(raw):
        raise ValueError(f"C wrote {len(raw)} bytes, expected {offset}")
    return rec


def check_same_records(exe: Path, rules: Rules, seed: int, games: int, workdir: Path) -> list[str]:
    """Fields where the C records differ from the jitted core's (empty: identical)."""
    out = workdir / "records.bin"
    run_c(exe, rules, seed, games, str(out))
    theirs = read_c_records(out, rules, games)
    ids, params = parse_seats("random", rules.players)
    ours = play_games(rules, seed, 0, games, ids, params)
    return [name for name in RECORD_FIELDS if not np.array_equal(ours[name], theirs[name])]


def time_jitted(rules: Rules, seed: int, games: int, threads: int) -> float:
    ids, params = parse_seats("random", rules.players)
    start = time.perf_counter()
    play_games(rules, seed, 0, games, ids, params, threads=threads)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--check-games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rules = Rules(players=args.players)
    all_threads = numba.config.NUMBA_NUM_THREADS
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        exe = compile_c(workdir)
        if exe is None:
            print("no C compiler (cc, gcc or clang) found: nothing to compare", file=sys.stderr)
            sys.exit(1)
        different = check_same_records(exe, rules, args.seed, args.check_games, workdir)
        print(json.dumps({"check_games": args.check_games, "fields_that_differ": different}), flush=True)
        if different:
            sys.exit(f"the C build and the jitted core disagree on {', '.join(different)}")
        time_jitted(rules, args.seed, 64, 1)  # compiled or loaded before timing
        rates: dict[str, list[float]] = {"c": [], "jitted_1": [], f"jitted_{all_threads}": []}
        for _ in range(args.repeats):
            for label in rates:
                if label == "c":
                    seconds = run_c(exe, rules, args.seed, args.games)
                else:
                    seconds = time_jitted(rules, args.seed, args.games, int(label.split("_")[1]))
                rates[label].append(args.games / seconds)
                print(json.dumps({"players": args.players, "games": args.games, "run": label,
                                  "games_per_second": args.games / seconds}), flush=True)
    med = {label: statistics.median(v) for label, v in rates.items()}
    print(f"\nrandom policy, {args.players} players, {args.games:,} games, median of {args.repeats}")
    for label, v in med.items():
        print(f"  {label:<12}{v:>12,.0f} games/s")
    print(f"  jitted 1 thread / C:          {med['jitted_1'] / med['c']:.2f}")
    if all_threads > 1:
        print(f"  jitted {all_threads} threads / 1 thread:   {med[f'jitted_{all_threads}'] / med['jitted_1']:.2f}")


if __name__ == "__main__":
    main()
