"""Las Vegas (the dice game): its tallies, summary and HTML report."""
