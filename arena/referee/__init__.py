"""The referee layer: bot processes and their pipes, the protocol seen from the
referee's side, time controls, one game under the rules and the clock, and matches of
several games between the same bots. It knows games only through arena.games.base."""
