"""People as players: `human` (in the terminal) and `human-web` (in the browser) take a
seat like any bot. The referee talks to them over the same protocol lines as to a bot
(an in-process channel, arena.process.channel.MemoryChannel), so their games are
played, timed and recorded the same way; only a person is never sandboxed."""
