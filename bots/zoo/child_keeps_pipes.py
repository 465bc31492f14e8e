"""Starts a child that keeps the pipes open, then exits at its k-th request."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bots.zoo._base import ZOO_PLY, ZOO_SECONDS, play, send  # noqa: E402,F401

if os.fork() == 0:
    time.sleep(3600)
    os._exit(0)
play(lambda m: os._exit(0), "zoo-child-keeps-pipes")
