"""Misbehaving bots for the referee's tests. Each plays like the random bot until its
k-th request (environment ZOO_PLY, default 3), then does one thing wrong:

crash (exits with code 3), hang (never answers), slow (answers after ZOO_SECONDS,
default 2), garbage (a non-JSON line), illegal (an action not in the legal list),
exit_start (exits before reading anything), silent (never answers hello), huge_line
(a 10 MB line), stderr_flood (50 MB of stderr while playing correctly),
child_keeps_pipes (a child holds the pipes open while the parent exits), fork_loop
(forks up to ZOO_MAX_FORKS children, then hangs), unexpected (an extra unsolicited
line after its answer), wrong_type (a ready message instead of an action),
close_stdout (closes its stdout, keeps running), stderr_every_game (ZOO_STDERR_KB KiB,
default 400, of stderr at the start of every game while playing correctly).
"""
