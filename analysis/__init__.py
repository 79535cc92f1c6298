"""Turning game records into tables, statistics, figures and the HTML report.

It never plays a game: the report's example games are replayed by the
simulator (``sim.lasvegan.story``), not here.
"""
