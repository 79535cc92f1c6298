"""Turning game records into tables, statistics and reports; never plays a game."""
