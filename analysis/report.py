"""Writing a run's HTML report, whatever the game.

:func:`write_report` reads a results directory and writes the report its
game builds (``sim/<game>/report.py``) as one self-contained HTML
file, renamed into place so that a failure leaves no half-written file.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from analysis.report_html import figures_drawn_together
from analysis.results import load_results
from sim.errors import ConfigError, shown
from sim.layout import CONFIG_FILE, META_FILE, RECORDS_FILE, REPORT_FILE, SUMMARY_FILE, TALLY_FILE

# The files of a run the report is made from: -o never writes over them.
RUN_FILES = (CONFIG_FILE, META_FILE, RECORDS_FILE, SUMMARY_FILE, TALLY_FILE)
# An existing file -o may replace: an earlier report.
HTML_SUFFIXES = (".html", ".htm")


def write_report(results_dir: str | Path, out_file: str | Path | None = None) -> Path:
    """Write the report of the run in ``results_dir``; return the file written.

    ``out_file`` defaults to ``report.html`` inside ``results_dir``. A
    missing, incomplete or edited results directory, or an ``out_file``
    that cannot be written, raises ``ConfigError``.
    """
    out = Path(results_dir) / REPORT_FILE if out_file is None else _report_path(out_file, Path(results_dir))
    results = load_results(results_dir)
    # Written beside its destination and renamed into place: a report that
    # fails or is interrupted halfway leaves no half-written file.
    partial = out.with_name(f".{out.name[:200]}.{secrets.token_hex(4)}.partial")
    field = "-o" if out_file is not None else str(out)
    try:
        partial.touch(exist_ok=False)  # a place nothing can be written to is refused now, not after the report is built
        with figures_drawn_together() as figures:
            page = results.config.game_spec.build_report(results)
        partial.write_text(figures.fill(page), encoding="utf-8")
        partial.replace(out)
    except OSError as err:
        partial.unlink(missing_ok=True)
        raise ConfigError(field, f"cannot write {out}: {err.strerror or err}") from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return out


def _report_path(out_file: str | Path, results_dir: Path) -> Path:
    """The report file ``-o`` names, refused before the report is built if it could not be written there.

    Only an earlier HTML page is ever replaced: a directory, a device
    (/dev/full) or a pipe is refused, never renamed over, and so is one of
    the run's own files (the report would replace the results it reads) or
    any other file, a config or a script.
    """
    text = os.fsdecode(out_file)
    if not text.strip():
        raise ConfigError("-o", "is empty: name the HTML file to write")
    if "\0" in text:
        raise ConfigError("-o", f"{shown(text)} holds a NUL byte, which no file name may")
    out = Path(text)
    try:
        if out.is_dir():
            raise ConfigError("-o", f"{out} is a directory; name the HTML file to write in it")
        if out.exists() and not out.is_file():
            raise ConfigError("-o", f"{out} is not a regular file; name the HTML file to write")
        parent = out.parent
        if not parent.exists():
            raise ConfigError("-o", f"{parent}: no such directory")
        if not parent.is_dir():
            raise ConfigError("-o", f"{parent} is not a directory")
        if out.name in RUN_FILES and out.parent.resolve() == results_dir.resolve():
            raise ConfigError("-o", f"{out} is one of the run's results, which the report would replace; "
                                    f"name another file (by default the report is {results_dir / REPORT_FILE})")
        if out.is_file() and out.suffix.lower() not in HTML_SUFFIXES:
            raise ConfigError("-o", f"{out} exists and is not an HTML page, which the report would replace; "
                                    "name a new file or an .html one")
    except OSError as err:  # a name too long, a parent that cannot be searched
        raise ConfigError("-o", f"{out}: {err.strerror or err}") from None
    return out
