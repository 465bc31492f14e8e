"""Bot processes and their isolation: the layer under the referee. It starts a bot as a
process tree (or a sandbox of one), speaks to it over pipes as a `LineChannel`, limits,
counts and reaps it, and knows nothing of games. The referee reaches it through one seam:
a `Launcher` turns a `Launch` (a bot's spec, limits and log) into a channel."""
