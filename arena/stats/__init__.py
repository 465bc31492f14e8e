"""Numbers from results: per-bot tallies, Elo and OpenSkill ratings with intervals, and
the SPRT that stops a match once it has decided."""
