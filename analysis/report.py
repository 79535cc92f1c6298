"""Writing a run's HTML report, whatever the game.

:func:`write_report` reads a results directory and writes the report its
game builds (``analysis/<game>/report.py``) as one self-contained HTML
file, renamed into place so that a failure leaves no half-written file.
"""

from __future__ import annotations

from pathlib import Path

from analysis.results import load_results
from sim.layout import REPORT_FILE


def write_report(results_dir: str | Path, out_file: str | Path | None = None) -> Path:
    """Write the report of the run in ``results_dir``; return the file written.

    ``out_file`` defaults to ``report.html`` inside ``results_dir``. A
    missing or incomplete results directory raises ``ConfigError``.
    """
    results = load_results(results_dir)
    out = Path(results_dir) / REPORT_FILE if out_file is None else Path(out_file)
    # Written beside its destination and renamed into place: a report that
    # fails or is interrupted halfway leaves no half-written file.
    partial = out.with_name(f".{out.name}.partial")
    try:
        partial.write_text(results.config.game_spec.build_report(results), encoding="utf-8")
        partial.replace(out)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return out
