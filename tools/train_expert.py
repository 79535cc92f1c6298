"""Tune the weights of the hand-made placement score of the ``expert`` policy (its
feature ``PF_EARLIER``); writes ``sim/lasvegan/expert_weights.py``.

``expert`` plays its cards by the weights of ``tools/train_expert_cards.py``,
whose regret is reported here beside; the shipped weights were tuned when
this search also tuned nine weights of the card play of then (commit cda5dd4).

Run: ``.venv/bin/python tools/train_expert.py [--situations 1500] [--samples 128] [--trials 300] [--seed 1]``.

1. Situations: rounds of the rulebook game at 3, 4 and 5 players, dealt at
   random (machines, token faces, round, cabbages) and played by ``greedy``
   up to a random point; card choices with two legal cards or more, and
   token placements.
2. In each, ``lookahead``'s own estimate of every move: the mean outcome
   (the seat's cabbage change in the round) over ``--samples`` imagined
   deals played out by ``greedy`` - exactly what ``lookahead:N`` maximises.
3. Optuna (TPE sampler, seeded) searches the weights that minimise the mean
   regret of ``expert``'s choice: the best move's value minus the value of
   the move ``expert`` makes, over all situations (placements counted as
   often as card choices, since they decide the golden side).

The situations are split in two: the search sees one half, the other half
reports how the tuned weights do on situations they were not tuned on, next
to ``greedy``'s regret on the same.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from numba import njit

from sim.lasvegan import enums as E
from sim.lasvegan.expert import EXPERT_CARD_FOLD, expert_card_nb, expert_placement_nb
from sim.lasvegan.expert_weights import EXPERT_WEIGHTS
from sim.lasvegan.heuristics import greedy_card_nb, greedy_placement_nb
from sim.lasvegan.lookahead import MAX_OPTIONS, OBJECTIVE_CABBAGES, mean_outcomes_nb
from sim.lasvegan.table import Table, seat_stream

OUT = Path(__file__).resolve().parents[1] / "sim" / "lasvegan" / "expert_weights.py"

# Search space: (name, low, high) per weight, in EXPERT_WEIGHTS order (expert.W_*).
SPACE = [
    ("future", 0.0, 1.5),
    ("opponents", 0.0, 2.0),
    ("golden_future", 0.0, 2.0),
    ("golden_soft", 0.05, 3.0),
]
assert len(SPACE) == len(EXPERT_WEIGHTS)


def placement_moves(pub) -> np.ndarray:
    """Every placement the seat may choose, in lookahead's order."""
    moves = []
    any_token = any(pub[E.P_TOKEN_PLACED + t] == 0 for t in range(pub[E.P_N_TOKENS]))
    for m in range(E.MACHINES_PER_ROUND):
        if pub[E.P_MACHINE_TOKEN + m] >= 0 or not any_token:
            continue
        for t in range(pub[E.P_N_TOKENS]):
            if pub[E.P_TOKEN_PLACED + t] == 0:
                moves.append((m, t, E.NO_SIDE))
    if pub[E.P_GOLDEN_SIDE] == E.NO_SIDE:
        moves += [(E.GOLDEN_SLOT, -1, E.MIN_SIDE), (E.GOLDEN_SLOT, -1, E.MAX_SIDE)]
    return np.array(moves, dtype=np.int64).reshape(-1, 3)


def situations(n: int, samples: int, seed: int) -> dict[str, np.ndarray]:
    """``n`` card choices and about ``n / 3`` placements per player count, with lookahead's value of each move."""
    rng = np.random.default_rng(seed)
    rows = []
    for players in (3, 4, 5):
        cards = placements = 0
        while cards < n or placements < n // 3:
            table = Table.dealt_at_random(players, int(rng.integers(2**32)))
            table.advance("greedy", int(rng.integers(E.N_CARDS - E.N_CARDS % players)), seed=int(rng.integers(1000)))
            if table.round_over:
                continue
            if table.owed:
                if placements >= n // 3:
                    continue
                moves = placement_moves(table.pub)
                placements += 1
            else:
                legal = table.legal()
                if cards >= n or bin(legal).count("1") < 2:
                    continue
                moves = np.array([(c, -1, -1) for c in range(E.N_CARDS) if legal >> c & 1], dtype=np.int64)
                cards += 1
            if len(moves) < 2:
                continue
            totals = np.zeros(len(moves))
            stream = seat_stream(seed, len(rows), table.seat)
            mean_outcomes_nb(table.pub, np.uint64(table.hand), stream, samples, OBJECTIVE_CABBAGES,
                             moves, len(moves), bool(table.owed), totals)
            rows.append((table.pub.copy(), table.hand, bool(table.owed), moves, totals))
        print(f"  {players} players: {cards} card choices, {placements} placements", file=sys.stderr)
    n_rows = len(rows)
    data = {
        "pub": np.zeros((n_rows, E.PUB_SIZE), dtype=np.int64),
        "hand": np.zeros(n_rows, dtype=np.uint64),
        "placing": np.zeros(n_rows, dtype=np.bool_),
        "moves": np.full((n_rows, MAX_OPTIONS, 3), -1, dtype=np.int64),
        "n_moves": np.zeros(n_rows, dtype=np.int64),
        "totals": np.zeros((n_rows, MAX_OPTIONS)),
    }
    for i, (pub, hand, placing, moves, totals) in enumerate(rows):
        data["pub"][i] = pub
        data["hand"][i] = hand
        data["placing"][i] = placing
        data["moves"][i, :len(moves)] = moves
        data["n_moves"][i] = len(moves)
        data["totals"][i, :len(moves)] = totals
    return data


@njit(cache=True)
def regrets_nb(pub, hand, placing, moves, n_moves, totals, w, use_greedy, rows):
    """Mean regret of the policy's choice on card situations and on placements."""
    out = np.zeros(3, dtype=np.int64)
    card_regret = 0.0
    place_regret = 0.0
    n_cards = 0
    n_places = 0
    for i in rows:
        n = n_moves[i]
        best = totals[i, 0]
        for j in range(1, n):
            best = max(best, totals[i, j])
        chosen = -1
        if placing[i]:
            if use_greedy:
                greedy_placement_nb(pub[i], hand[i], out)
            else:
                expert_placement_nb(pub[i], hand[i], w, out)
            for j in range(n):
                if moves[i, j, 0] == out[0] and (out[0] == E.GOLDEN_SLOT and moves[i, j, 2] == out[2]
                                                 or out[0] != E.GOLDEN_SLOT and moves[i, j, 1] == out[1]):
                    chosen = j
            place_regret += best - totals[i, chosen]
            n_places += 1
        else:
            legal = np.uint64(0)
            for j in range(n):
                legal |= np.uint64(1) << np.uint64(moves[i, j, 0])
            if use_greedy:
                card = greedy_card_nb(pub[i], hand[i], legal)
            else:
                card = expert_card_nb(pub[i], hand[i], legal, EXPERT_CARD_FOLD)
            for j in range(n):
                if moves[i, j, 0] == card:
                    chosen = j
            card_regret += best - totals[i, chosen]
            n_cards += 1
    return card_regret / max(n_cards, 1), place_regret / max(n_places, 1)


def write_weights(weights: np.ndarray, command: str, report: str) -> None:
    lines = ",\n".join(f"    {w!r},  # {name}" for w, (name, _, _) in zip(weights.tolist(), SPACE))
    OUT.write_text(
        '"""Weights of the hand-made placement score of the ``expert`` policy (``expert.W_*`` says what each '
        'scales).\n\n'
        f"Written by ``tools/train_expert.py``; reproduce with:\n\n    {command}\n\n{report}\n\"\"\"\n\n"
        "import numpy as np\n\n"
        f"EXPERT_WEIGHTS = np.array([\n{lines}\n])\n"
    )


def main() -> None:
    import optuna

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--situations", type=int, default=1500, help="card choices per player count")
    ap.add_argument("--samples", type=int, default=128, help="lookahead's imagined deals per situation")
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dry-run", action="store_true", help="print the weights, do not write them")
    args = ap.parse_args()

    print(f"valuing situations with lookahead:{args.samples} ...", file=sys.stderr)
    data = situations(args.situations, args.samples, args.seed)
    n = len(data["hand"])
    order = np.random.default_rng(args.seed).permutation(n)
    tune, held_out = np.sort(order[: n // 2]), np.sort(order[n // 2:])
    fields = [data[k] for k in ("pub", "hand", "placing", "moves", "n_moves", "totals")]

    def regret(w, rows, use_greedy=False):
        return regrets_nb(*fields, np.asarray(w, dtype=np.float64), use_greedy, rows)

    def objective(trial):
        w = [trial.suggest_float(name, low, high) for name, low, high in SPACE]
        cards, places = regret(w, tune)
        return cards + places

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=args.seed))
    # Start from the current weights, so a run can only improve on them.
    study.enqueue_trial({name: float(np.clip(v, low, high)) for v, (name, low, high) in zip(EXPERT_WEIGHTS, SPACE)})
    study.optimize(objective, n_trials=args.trials, show_progress_bar=False)
    best = np.array([study.best_params[name] for name, _, _ in SPACE])

    g_cards, g_places = regret(best, held_out, use_greedy=True)
    s_cards, s_places = regret(EXPERT_WEIGHTS, held_out)
    e_cards, e_places = regret(best, held_out)
    report = (
        f"Mean regret in cabbages against lookahead:{args.samples}'s values, on {len(held_out)} held-out\n"
        f"situations (card choices / placements): greedy {g_cards:.3f} / {g_places:.3f};\n"
        f"starting weights {s_cards:.3f} / {s_places:.3f}; tuned {e_cards:.3f} / {e_places:.3f}."
    )
    print(report)
    print(best.tolist())
    if not args.dry_run:
        command = (
            f".venv/bin/python tools/train_expert.py --situations {args.situations} --samples {args.samples} "
            f"--trials {args.trials} --seed {args.seed}"
        )
        write_weights(best, command, report)
        print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
