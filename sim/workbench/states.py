"""The states a play or a tune from the page goes through, and how the page stops one.

A job is queued, then estimated, then played (a play is also measured), and
ends done, refused (its estimate was too long, or its input malformed),
cancelled or failed.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from sim.errors import ConfigError

QUEUED, ESTIMATING, PLAYING, MEASURING, DONE = "queued", "estimating", "playing", "measuring", "done"
REFUSED, CANCELLED, FAILED = "refused", "cancelled", "failed"
FINISHED = (DONE, REFUSED, CANCELLED, FAILED)


class Unknown(ConfigError):
    """A play or tune id this server does not hold: answered 404, in the one line of every refusal."""


class Cancelled(Exception):
    """The page cancelled the job: raised between two chunks, so the run's staging directory is removed."""


@contextmanager
def ending(job: Any) -> Iterator[None]:
    """Play a job's work; a cancel, a malformed input or any failure becomes the job's state, so that the server
    keeps serving and the page shows the failure in one line."""
    try:
        yield
    except Cancelled:
        job.state = CANCELLED
    except ConfigError as err:
        job.state, job.error = REFUSED, str(err)
    except Exception as err:
        job.state, job.error = FAILED, f"{type(err).__name__}: {err}"
