"""Sizes checked against memory before the work starts, not discovered halfway through it."""

from __future__ import annotations

import os

from sim.errors import ConfigError


def available_bytes() -> int | None:
    """Memory this machine can hand out now (Linux's MemAvailable, else physical memory); None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def check_fits(field: str, count: int, bytes_each: int, what: str, *, share: float = 0.8) -> None:
    """Refuse ``count`` items of ``bytes_each`` bytes if they would take more than ``share`` of the free memory."""
    free = available_bytes()
    if free is None or count * bytes_each <= share * free:
        return
    most = max(0, int(share * free // bytes_each))
    raise ConfigError(
        field, f"{count:,} {what} would need {_gib(count * bytes_each)} of memory and {_gib(free)} is free; "
        f"at most about {most:,} fit"
    )


def _gib(n: float) -> str:
    return f"{n / 2**30:,.1f} GiB"
