"""Analysis of $ Fever runs: tally, summary, tables, figures and the HTML report."""
