"""Las Vegan's analysis: its tallies, summary, tables, figures and HTML report."""
