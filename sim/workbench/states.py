"""The states a play or a tune from the page goes through, and how the page stops one.

A job is queued, then estimated, then played (a play is also measured), and
ends done, refused (its estimate was too long, or its input malformed),
cancelled or failed.
"""

from __future__ import annotations

QUEUED, ESTIMATING, PLAYING, MEASURING, DONE = "queued", "estimating", "playing", "measuring", "done"
REFUSED, CANCELLED, FAILED = "refused", "cancelled", "failed"
FINISHED = (DONE, REFUSED, CANCELLED, FAILED)


class Cancelled(Exception):
    """The page cancelled the job: raised between two chunks, so the run's staging directory is removed."""
