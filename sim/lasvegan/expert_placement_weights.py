"""Token-placement weights of the ``expert`` policy: one row per table size (3 and 2,
4, 5 players), one column per feature of ``expert.placement_features_nb``.

Written by ``tools/train_expert_placements.py``; reproduce with:

    .venv/bin/python tools/train_expert_placements.py --situations 3000 --samples 256 --play expert,lookahead:16,epsilon:0.2:expert --seeds 5,6,7 --steps 3000 --rate 0.02 --ridge 0.0001 --seed 1 --golden-max-shift 0.35,-1.4,-1.1 --lowest-weight 5,0,3.25

Mean regret in cabbages against lookahead:256's values, on 13500 held-out
placements:
  greedy / earlier expert / earlier expert + golden search / fitted / fitted + golden search / lookahead:64 (other deals)
  all (13500): 0.721 / 0.538 / 0.510 / 0.310 / 0.293 / 0.018
  3 players (4489): 0.832 / 0.630 / 0.571 / 0.361 / 0.337 / 0.018
  4 players (4603): 0.708 / 0.518 / 0.499 / 0.313 / 0.303 / 0.018
  5 players (4408): 0.620 / 0.465 / 0.460 / 0.255 / 0.238 / 0.017
  golden token free (9131): 0.899 / 0.644 / 0.602 / 0.408 / 0.383 / 0.025
  golden token placed (4369): 0.347 / 0.317 / 0.317 / 0.106 / 0.106 / 0.004
(fitted, on the 13500 fitted placements: 0.302)
Situations played by `expert` used the weights of commit f32a7c0: a later run, with these
weights, plays into other situations and fits slightly different ones.
"""

import numpy as np

EXPERT_PLACEMENT_WEIGHTS = np.array([
    [0.46069, 0.341223, -0.75649, 0.258791, 1.0973, 1.44173, -0.61657, -0.275355, -0.933749, 0.983494, -0.273819, 6.22683, 1.23838, -0.591548, 1.39614, -0.133197, 0.633908, 0.730175, 3.0867, 1.80053, 0.570422, 1.21288, 1.16406, 1.66683, -0.117164, -1.77618, 5],
    [-0.297845, 0.185139, -1.21524, -0.635227, 1.72288, -0.299094, -0.73484, 0.0337892, 1.04315, 0.830392, -0.617243, 5.95354, -0.180137, -0.362651, 0.75584, -0.27082, 1.86372, 1.84167, 0.970045, 2.29625, 0.676561, 0.389059, 0.937815, 1.47774, 0.413912, -0.297488, 0],
    [-0.0188119, -0.00837199, -2.41367, -0.199871, 1.34461, -0.935626, 0.192396, 0.943769, 0.977374, 1.09025, -1.4408, 5.25035, -1.87155, 0.329358, 0.68328, 0.112827, 1.62756, 1.27669, 1.63716, -0.346135, 0.401034, 0.627867, 1.26906, 1.92989, -0.749608, -1.79142, 3.25],
])
