"""Weights of the hand-made placement score of the ``expert`` policy (``expert.W_*`` says what each scales).

Tuned by Optuna toward lookahead's values at commit cda5dd4, where the search (now
``tools/train_expert.py``) also tuned nine weights of the card play of then:

    .venv/bin/python bench/train_expert.py --situations 600 --samples 64 --trials 300 --seed 1

Mean regret in cabbages against lookahead:64's values, on the held-out placements:
greedy 0.803; starting weights 0.803; tuned 0.556.
"""

import numpy as np

EXPERT_WEIGHTS = np.array([
    0.5962163906332512,  # future
    0.15088389747322917,  # opponents
    1.7577773409907116,  # golden_future
    0.39458038081373636,  # golden_soft
])
