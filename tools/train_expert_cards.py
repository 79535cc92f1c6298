"""Fit the card-play weights of the ``expert`` policy; writes ``sim/lasvegan/expert_card_weights.py``.

Run: ``.venv/bin/python tools/train_expert_cards.py [--situations 2500] [--samples 64] [--seed 1]``.

1. Situations: rounds of the rulebook game at 3, 4 and 5 players, dealt at
   random (machines, token faces, round, cabbages) and played up to a random
   point by each policy of ``--play`` in turn (``greedy``, then a ``greedy``
   that plays one move in five at random, for situations greedy avoids),
   ``--situations`` per player count each; card choices with two legal
   cards or more.
2. In each, ``lookahead``'s own estimate of every legal card: the mean
   outcome (the seat's cabbage change in the round) over ``--samples``
   imagined deals played out by ``greedy`` - what ``lookahead:N``
   maximises.
3. Every card is described by ``expert.card_features_nb``, the terms the
   player sums; one weight vector per kind of choice (leading, following
   suit, discarding) scores them. The weights minimise the expected regret of a player that picks
   each card with probability softmax(score): the best card's value minus
   the chosen card's, averaged over situations. Plain gradient descent
   (Adam, fixed steps, from greedy's choice) on that smooth loss, so a run
   is reproducible to the last digit.

The situations are split in two: the fit sees one half, the other half
reports the regret of the argmax choice on situations it was not fitted on,
next to ``greedy``'s.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np

from sim.lasvegan import enums as E
from sim.lasvegan import expert
from sim.lasvegan.expert import F_GREEDY, N_CONTEXTS, N_FEATURES, card_features_nb
from sim.lasvegan.expert_card_weights import EXPERT_CARD_WEIGHTS
from sim.lasvegan.lookahead import OBJECTIVE_CABBAGES, mean_outcomes_nb
from sim.lasvegan.table import Table, seat_stream

OUT = Path(__file__).resolve().parents[1] / "sim" / "lasvegan" / "expert_card_weights.py"
MAX_LEGAL = E.N_CARDS // 2
CARD_DOC = """Card-play weights of the ``expert`` policy: one row per kind of choice
(leading, following suit, discarding; for 3, 4, 5 players), one column per feature of
``expert.card_features_nb``."""


def situations(n: int, samples: int, seed: int, play: str) -> dict[str, np.ndarray]:
    """``n`` card choices per player count: the observation, hand and legal cards, and lookahead's value of
    every legal card (lowest card first)."""
    rng = np.random.default_rng(seed)
    pubs, hands, legals, values = [], [], [], []
    for players in (3, 4, 5):
        count = 0
        while count < n:
            table = Table.dealt_at_random(players, int(rng.integers(2**32)))
            table.advance(play, int(rng.integers(E.N_CARDS - E.N_CARDS % players)), seed=int(rng.integers(1000)))
            if table.round_over or table.owed:
                continue
            legal = table.legal()
            k = bin(legal).count("1")
            if k < 2:
                continue
            hand = np.uint64(table.hand)
            moves = np.array([(c, -1, -1) for c in range(E.N_CARDS) if legal >> c & 1], dtype=np.int64)
            totals = np.zeros(k)
            stream = seat_stream(seed, len(values), table.seat)
            mean_outcomes_nb(table.pub, hand, stream, samples, OBJECTIVE_CABBAGES, moves, k, False, totals)
            q = np.full(MAX_LEGAL, np.nan)
            q[:k] = totals
            pubs.append(table.pub.copy())
            hands.append(hand)
            legals.append(np.uint64(legal))
            values.append(q)
            count += 1
        print(f"  {players} players: {count} card choices", file=sys.stderr)
    return {"pub": np.array(pubs), "hand": np.array(hands, dtype=np.uint64),
            "legal": np.array(legals, dtype=np.uint64), "values": np.array(values)}


def features(data: dict[str, np.ndarray]):
    """Features of every legal card of every situation, the situations' contexts and legal-card counts."""
    n = len(data["values"])
    feats = np.zeros((n, MAX_LEGAL, N_FEATURES))
    contexts = np.zeros(n, dtype=np.int64)
    for i in range(n):
        contexts[i] = card_features_nb(data["pub"][i], data["hand"][i], data["legal"][i], feats[i])
    n_legal = np.array([bin(int(x)).count("1") for x in data["legal"]])
    return feats, contexts, n_legal


def feature_columns(names: str) -> set[int]:
    """The columns of ``names`` (``F_...`` constants of ``sim.lasvegan.expert``), with F_GREEDY's."""
    columns = {F_GREEDY}
    for name in filter(None, (n.strip() for n in names.split(","))):
        if not name.startswith("F_") or not isinstance(getattr(expert, name, None), int):
            raise SystemExit(f"--features: {name!r} is not a card feature of sim/lasvegan/expert.py")
        columns.add(getattr(expert, name))
    return columns


def scores(w, feats, contexts):
    """Score of every card: the weights of its situation's context times its features."""
    return np.einsum("ijk,ik->ij", feats, w[contexts])


def argmax_regret(w, feats, values, contexts, mask) -> float:
    s = np.where(mask, scores(w, feats, contexts), -np.inf)
    chosen = np.take_along_axis(values, s.argmax(axis=1)[:, None], axis=1)[:, 0]
    return float(np.mean(np.nanmax(values, axis=1) - chosen))


def fit(feats, values, contexts, mask, steps: int, rate: float, ridge: float,
        n_contexts: int = N_CONTEXTS, start: int = F_GREEDY) -> np.ndarray:
    """Adam on the expected regret of softmax(score), from the choice feature ``start`` alone makes
    (greedy's card)."""
    regret = np.where(mask, np.nanmax(values, axis=1)[:, None] - np.nan_to_num(values), 0.0)
    w = np.zeros((n_contexts, feats.shape[2]))
    w[:, start] = 1.0
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    onehot = np.eye(n_contexts)[contexts]  # situations x contexts
    n = len(values)
    for t in range(1, steps + 1):
        s = np.where(mask, scores(w, feats, contexts), -np.inf)
        s -= s.max(axis=1, keepdims=True)
        p = np.exp(s)
        p /= p.sum(axis=1, keepdims=True)
        loss_i = (p * regret).sum(axis=1)
        # d loss / d score_j = p_j (regret_j - loss)
        ds = p * (regret - loss_i[:, None])
        g_sit = np.einsum("ij,ijk->ik", ds, feats) / n
        grad = onehot.T @ g_sit + ridge * w
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w -= rate * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
        if t % 500 == 0:
            print(f"  step {t}: expected regret {loss_i.mean():.4f}", file=sys.stderr)
    return w


def head_commit() -> str:
    """The commit the script runs at ('' outside a git checkout)."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def played_at(commits: set[str]) -> str:
    """Which ``expert`` the situations it plays into were played by: the commits they were valued at
    (kept with each cached set; '' for a set valued outside a git checkout, or cached without it)."""
    if not commits or "" in commits:
        return "Situations played by `expert` used the weights of a tree not recorded with them."
    return (f"Situations played by `expert` used the weights of commit {', '.join(sorted(commits))}: a later run, "
            "with these\nweights, plays into other situations and fits slightly different ones.")


def write_weights(out: Path, name: str, what: str, script: str, w: np.ndarray, args, report: str,
                  commits: set[str], options: str = "") -> None:
    """Write weights ``w`` as the array ``name`` of module ``out``, with the command that fitted them
    (``options``: the script's own, beyond the shared ones) and the ``commits`` its situations were
    played at (as :func:`load_sets` gives them)."""
    command = (f".venv/bin/python tools/{script} --situations {args.situations} "
               f"--samples {args.samples} --play {args.play} --seeds {args.seeds} --steps {args.steps} "
               f"--rate {args.rate} --ridge {args.ridge} --seed {args.seed}{options}")
    rows = ",\n".join("    [" + ", ".join(f"{x:.6g}" for x in row) + "]" for row in w)
    out.write_text(
        f'"""{what}\n\n'
        f"Written by ``tools/{script}``; reproduce with:\n\n    {command}\n\n{report}\n{played_at(commits)}\n\"\"\"\n\n"
        "import numpy as np\n\n"
        f"{name} = np.array([\n{rows},\n])\n"
    )
    print(f"wrote {out}")


def load_sets(args, kind: str, valued) -> tuple[dict[str, np.ndarray], set[str]]:
    """The situations of every ``--play`` policy valued by ``valued(n, samples, seed, play)``, from
    ``--cache`` when they were valued before, as one set; and the commits they were valued at."""
    sets, commits = [], set()
    for play, seed in zip(args.play.split(","), map(int, args.seeds.split(","))):
        path = args.cache / f"{kind}-{play.replace(':', '_')}-{seed}-{args.situations}-{args.samples}.npz"
        if path.exists():
            with np.load(path) as f:
                sets.append({k: f[k] for k in f.files if k != "played_at"})
                commits.add(str(f["played_at"]) if "played_at" in f.files else "")
            continue
        print(f"valuing {kind} played up to by {play} (seed {seed}) with lookahead:{args.samples} ...",
              file=sys.stderr)
        sets.append(valued(args.situations, args.samples, seed, play))
        commits.add(head_commit())
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, played_at=np.array(head_commit()), **sets[-1])
    return {k: np.concatenate([d[k] for d in sets]) for k in sets[0]}, commits


def add_fit_arguments(ap: argparse.ArgumentParser, play: str, seeds: str) -> None:
    """The options both fits share."""
    ap.add_argument("--play", default=play,
                    help="policies that play the rounds up to the situations, one set of situations each")
    ap.add_argument("--seeds", default=seeds, help="seed of each set of situations")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--rate", type=float, default=0.02)
    ap.add_argument("--ridge", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=1, help="seed of the split into fitted and held-out situations")
    # Beside the benchmarks' cached profiles, in the folder git ignores.
    ap.add_argument("--cache", type=Path, default=Path(__file__).resolve().parents[1] / "bench" / ".cache",
                    help="where valued situations are kept between runs")
    ap.add_argument("--dry-run", action="store_true", help="print the weights, do not write them")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--situations", type=int, default=2500, help="card choices per player count")
    ap.add_argument("--samples", type=int, default=64, help="lookahead's imagined deals per situation")
    add_fit_arguments(ap, "greedy,epsilon:0.2:greedy,greedy", "2,3,4")
    ap.add_argument("--features", default="",
                    help="fit only these features of expert.py (comma-separated, e.g. F_HOLD,F_VALUE; "
                         "F_GREEDY is always kept), the others at weight 0: what a cheaper card score would lose")
    args = ap.parse_args()
    kept = feature_columns(args.features) if args.features else set(range(N_FEATURES))  # before any valuing

    data, commits = load_sets(args, "situations", situations)
    values = data["values"]
    feats, contexts, n_legal = features(data)
    feats[:, :, [k for k in range(N_FEATURES) if k not in kept]] = 0.0
    mask = np.arange(MAX_LEGAL)[None, :] < n_legal[:, None]
    n = len(values)
    order = np.random.default_rng(args.seed).permutation(n)
    train, held_out = np.sort(order[: n // 2]), np.sort(order[n // 2:])

    w = fit(feats[train], values[train], contexts[train], mask[train], args.steps, args.rate, args.ridge)
    greedy = np.zeros_like(w)
    greedy[:, F_GREEDY] = 1.0
    parts = [(name, held_out[contexts[held_out] % 3 == c]) for c, name in enumerate(("leading", "following", "discarding"))]
    parts += [(f"{p} players", held_out[contexts[held_out] // 3 == p - 3]) for p in (3, 4, 5)]
    lines = [f"Mean regret in cabbages against lookahead:{args.samples}'s values, on {len(held_out)} held-out",
             "card choices (greedy -> weights before this fit -> expert):"]
    for name, rows in [("all", held_out)] + parts:
        g = argmax_regret(greedy, feats[rows], values[rows], contexts[rows], mask[rows])
        b = argmax_regret(EXPERT_CARD_WEIGHTS, feats[rows], values[rows], contexts[rows], mask[rows])
        e = argmax_regret(w, feats[rows], values[rows], contexts[rows], mask[rows])
        lines.append(f"  {name} ({len(rows)}): {g:.3f} -> {b:.3f} -> {e:.3f}")
    e_train = argmax_regret(w, feats[train], values[train], contexts[train], mask[train])
    lines.append(f"(on the {len(train)} fitted situations: {e_train:.3f})")
    report = "\n".join(lines)
    print(report)
    if not args.dry_run:
        write_weights(OUT, "EXPERT_CARD_WEIGHTS", CARD_DOC, "train_expert_cards.py", w, args, report, commits)


if __name__ == "__main__":
    main()
