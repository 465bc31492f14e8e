"""Leagues over a Dask cluster: the league command keeps its SQLite store and sends
work units (a table's run of games, described portably) to Dask workers, which play
them exactly as one machine does (sandbox and limits included) and send back each
game's record as it ends. See docs/cluster.md."""
