"""What a policy decides in a situation stored whole by a pin file (``tests/data/pin_*.py``)."""

import numpy as np

from sim.lasvegan.policies import choose_card_nb, choose_placement_nb
from sim.lasvegan.table import seat_stream


def pinned_decision(policy_id, params, row: dict, stream_seed: int):
    """The card (an int) or placement (``[slot, token, side]``) the policy makes
    in ``row`` (its ``pub``, ``hand``, ``legal``, ``placing`` and ``stream``)."""
    pub = np.array(row["pub"], dtype=np.int64)
    hand = np.uint64(row["hand"])
    stream = seat_stream(stream_seed, *row["stream"])
    if row["placing"]:
        out = np.full(3, -1, dtype=np.int64)
        choose_placement_nb(policy_id, params, pub, hand, stream, out)
        return out.tolist()
    return int(choose_card_nb(policy_id, params, pub, hand, np.uint64(row["legal"]), stream))
