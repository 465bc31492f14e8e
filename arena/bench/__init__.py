"""`arena bench`: the referee's cost per decision, the rules engines' speed and leagues'
throughput, measured in one run (speed targets live here, never in timed tests)."""
