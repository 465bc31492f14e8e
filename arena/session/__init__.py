"""Sessions: what a person or a program asks for (`arena play`, `arena match`, `arena
rerun`, `arena check`, a league run, `arena.play()`), turned into matches the referee
plays and results that are stored. The layer over the referee, leagues, cluster and
pages, and under the CLI."""
