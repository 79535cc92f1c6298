"""``lvsim confirm``: a rule set played until each target is met or missed, with the stronger tables paired.

``spec`` reads what to confirm (a tune file's targets, players and
policies; a config's rules), ``values`` gives each metric's value in every
game, ``judging`` follows one quantity's confidence sequence
(``analysis.sequential``), ``running`` plays until decided and ``text``
prints the answer.
"""

from sim.confirm.running import confirm, default_seed, passed
from sim.confirm.spec import Confirmation, load_confirmation
from sim.confirm.text import confirm_text, sentence

__all__ = ["Confirmation", "confirm", "confirm_text", "default_seed", "load_confirmation", "passed", "sentence"]
