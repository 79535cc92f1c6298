"""lvsim: a Monte Carlo rules-balance simulator for tabletop games.

``sim.run(config)`` plays an experiment and returns its results;
``sim.load_config(path)`` reads an experiment file; ``sim.run_sweep(path)``
plays a sweep of rule sets (``sim.load_sweep`` reads one); ``sim.run_tune(path)``
searches the rules for the smallest change that meets a designer's targets
(``sim.load_tune`` reads a tune file). All are imported
on first use, so ``import sim`` stays light.
"""

__version__ = "0.1.0"

from sim._kernel_cache import use_keyed_cache as _use_keyed_cache

_use_keyed_cache()

_LAZY = {
    "run": "sim.runner",
    "Results": "sim.runner",
    "Config": "sim.config",
    "load_config": "sim.config",
    "run_sweep": "sim.sweep",
    "load_sweep": "sim.sweep",
    "run_tune": "sim.tune",
    "load_tune": "sim.tune",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
