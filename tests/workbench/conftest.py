"""What the workbench's tests share: a play followed until it has finished."""

import time

import pytest

# A guard against a play that never finishes, not a timing claim: plays here take seconds.
PATIENCE_SECONDS = 900
SMALL = {"game": "lasvegan", "rules.players": "4", "run.games": "2000", "run.seed": "7"}


# A small tune of greedy tables at one player count, answered in seconds (the API's and the browser's tests).
TUNE_TABLES = """[search]
"rules.starting_cabbages" = { range = [10, 16] }
[targets]
elimination_rate = [0.40, 0.60]
[tune]
players = [4]
policies = ["greedy"]
budget = 3
games = 300
max_games = 1200
seed = 4
"""


def until_settled(view, what: str) -> dict:
    """``view()`` once its state is done, refused, cancelled or failed (a play's or a tune's)."""
    from sim.workbench.states import FINISHED

    deadline = time.monotonic() + PATIENCE_SECONDS
    while time.monotonic() < deadline:
        seen = view()
        if seen["state"] in FINISHED:
            return seen
        time.sleep(0.1)
    pytest.fail(f"{what} did not finish")


def until_finished(get, play_id: str) -> dict:
    """The play's view once it is done, refused, cancelled or failed; ``get(path)`` reads the API."""
    return until_settled(lambda: get(f"/api/plays/{play_id}"), f"play {play_id}")


@pytest.fixture(scope="module")
def bench():
    """A workbench of the module's own, closed (its files removed) after the module."""
    from sim.workbench.jobs import Workbench

    workbench = Workbench()
    yield workbench
    workbench.close()


@pytest.fixture(scope="module")
def client(bench):
    """The API of the module's workbench."""
    from fastapi.testclient import TestClient

    from sim.workbench import create_app

    with TestClient(create_app(bench)) as c:
        yield c
