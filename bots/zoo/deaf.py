"""Answers hello, then never reads its stdin again (and never answers)."""
import json
import os
import sys
import time

hello = os.read(0, 1 << 16)  # the hello line, read with one raw read
sys.stdout.write(json.dumps({"type": "ready", "name": "zoo-deaf"}) + "\n")
sys.stdout.flush()
while True:
    time.sleep(3600)
