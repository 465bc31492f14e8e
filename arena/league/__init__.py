"""Leagues: a TOML file describes bots, game and schedule; the runner plays the
scheduled games through the match layer ("play these games between these bots"),
stores each finished game in SQLite at once, and resumes after any interruption; the
standings turn the stored games into a leaderboard with ratings and intervals."""
