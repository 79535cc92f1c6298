"""Sensitivity: which printed number of the rules moves each headline metric, and by how much.

``sim.sensitivity.study(config, games)`` plays every one-step deviation of
the config's rules on its seed, deals and players, at each player count
asked for, and gives the paired difference of every headline metric with
its 95% interval; ``lvsim sensitivity CONFIG`` is the same from the
command line, and every run's report has a cheap one ("What moves the
verdict").

The modules, each with one job:

- ``deviations``: the one-step deviations of a rule set, read off the knob
  declarations (:func:`one_step`);
- ``playing``: playing them on the same games and the paired differences
  with their jackknife intervals (:func:`effects`);
- ``study``: a whole study over player counts (and a second table of seats),
  its sizes, plan and JSON (:func:`study`);
- ``morris``: a tune file's ``[search]`` domains screened with Morris
  elementary effects (SALib), the one-step view of the same knobs beside it
  (``morris.screen``).
"""

from sim.sensitivity.deviations import Deviation, one_step
from sim.sensitivity.playing import BLOCKS, block_ranges, effects, games_played, paired_effect

__all__ = ["BLOCKS", "Deviation", "block_ranges", "effects", "games_played", "one_step", "paired_effect"]
