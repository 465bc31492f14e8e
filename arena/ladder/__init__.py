"""A standing ladder: entrants submit bots over the web; games never stop."""
