"""The designer's workbench: a local web page to change a rule and see what it does, on the same deals.

``lvsim serve`` starts it (:func:`serve`); :func:`create_app` is the
application alone, for tests and for mounting elsewhere. The page's form is
made from the game's knob declarations, a play is ``sim.run`` of the
config the form sets, and two plays are compared game by game as a sweep
compares its cells. docs/workbench.md says why it is built on FastAPI.

The modules, each with one job:

- ``fields``: the form's fields as config keys, a filled-in form read as a
  config by the command line's checks;
- ``jobs``: plays, each with its id and results directory, estimated,
  played one at a time, cancelled, compared; the directory they live in;
- ``app``: the routes: the page, its assets (``static/``), the JSON API;
- ``server``: uvicorn on a loopback address, stopped cleanly.
"""

from sim.workbench.app import create_app
from sim.workbench.server import DEFAULT_HOST, DEFAULT_PORT, serve

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "create_app", "serve"]
