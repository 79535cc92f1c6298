"""lvsim: a Monte Carlo rules-balance simulator for tabletop games."""

__version__ = "0.1.0"
