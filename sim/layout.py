"""The files of a results directory, as ``lvsim run`` writes them and the analysis reads them.

Kept apart from the runner so that reading results never imports the
machinery that writes them.
"""

RECORDS_FILE = "records.parquet"  # one row per game, one column per record cell
CONFIG_FILE = "config.toml"  # the resolved config: `lvsim run` of it repeats the run
META_FILE = "meta.json"  # what is needed to reproduce the run, and where it came from
SUMMARY_FILE = "summary.json"  # `lvsim run --json`
TALLY_FILE = "tally.json"  # the report's mergeable statistics
DECISIONS_FILE = "decisions.json"  # which decisions matter (sim.decisions), beside the summary
REPORT_FILE = "report.html"
PARTIAL_SUFFIX = ".partial"
