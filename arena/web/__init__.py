"""Pages people look at: a recorded game to step through (replay), a league as it is
played (live), and a game a person plays in the browser (human). They share one
template (page.py) and one frame format (frames.py); the pictures come from
arena.render.svg. The live and human pages are served by small ASGI apps (live.py,
human.py) on hypercorn's trio worker, in the process that runs the games."""
