"""Where the shared code looks up Las Vegas's state (``sim.games.state_module``): it is the reference engine's."""

from sim.vegasdice.records import LAYOUT  # noqa: F401
from sim.vegasdice.rules import PLAY_LOOP, STATE, player_named, seat_player  # noqa: F401
