"""Sensitivity: which printed number of the rules moves each headline metric, and by how much.

The modules: ``deviations``, the one-step deviations of a rule set read off
the knob declarations (:func:`one_step`); ``playing``, playing them on the
same games, with jackknife intervals (:func:`effects`); ``study``, a whole
study over player counts, what ``lvsim sensitivity CONFIG`` does and every
run's report's "What moves the verdict"; ``morris``, a tune file's
``[search]`` domains screened with Morris elementary effects.
"""

from sim.sensitivity.deviations import Deviation, one_step
from sim.sensitivity.playing import BLOCKS, block_ranges, effects, paired_effect

__all__ = ["BLOCKS", "Deviation", "block_ranges", "effects", "one_step", "paired_effect"]
