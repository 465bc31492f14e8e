"""The referee core: one game under the rules and the clock (decision, player, referee),
matches of several games between the same bots, seeds, openings, outcomes and the
traffic log. It knows games only through arena.games.base and bots only through the
process layer's `Launcher` seam (arena.process.channel)."""
