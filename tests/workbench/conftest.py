"""What the workbench's tests share: a play followed until it has finished."""

import time

import pytest

# A guard against a play that never finishes, not a timing claim: plays here take seconds.
PATIENCE_SECONDS = 900
SMALL = {"game": "lasvegan", "rules.players": "4", "run.games": "2000", "run.seed": "7"}


def until_finished(get, play_id: str) -> dict:
    """The play's view once it is done, refused, cancelled or failed; ``get(path)`` reads the API."""
    from sim.workbench.jobs import FINISHED

    deadline = time.monotonic() + PATIENCE_SECONDS
    while time.monotonic() < deadline:
        view = get(f"/api/plays/{play_id}")
        if view["state"] in FINISHED:
            return view
        time.sleep(0.1)
    pytest.fail(f"play {play_id} did not finish")
