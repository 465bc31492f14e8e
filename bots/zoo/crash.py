"""Exits with code 3 at its k-th request."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import ZOO_PLY, ZOO_SECONDS, play, send  # noqa: E402,F401

play(lambda m: sys.exit(3), "zoo-crash")
