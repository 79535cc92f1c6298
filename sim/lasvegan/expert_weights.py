"""Weights of the ``expert`` policy (see ``expert.py`` for what each scales).

Written by ``tools/train_expert.py``; reproduce with:

    .venv/bin/python tools/train_expert.py --situations 600 --samples 64 --trials 300 --seed 1

Mean regret in cabbages against lookahead:64's values, on 1200 held-out
situations (card choices / placements): greedy 0.382 / 0.803;
starting weights 0.382 / 0.803; tuned 0.387 / 0.556.
"""

import numpy as np

EXPERT_WEIGHTS = np.array([
    0.1168892564884963,  # seven,
    1.4955793662292343,  # hidden_void,
    0.8419599676307483,  # golden_trick,
    1.5979372704538826,  # later_cards,
    3.946178617201479,  # loss,
    0.8426401800774356,  # threshold,
    -0.7173025464346017,  # duck_danger,
    15.328800975273065,  # discard_danger,
    1.6379737351156272,  # lead_low,
    0.5962163906332512,  # future,
    0.15088389747322917,  # opponents,
    1.7577773409907116,  # golden_future,
    0.39458038081373636,  # golden_soft
])
