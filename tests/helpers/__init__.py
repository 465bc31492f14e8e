"""Helpers shared by test modules: game play, bot matches, processes. Test modules
import from here, never from one another."""
