"""Reads hello and never answers."""
import sys
import time

sys.stdin.readline()
while True:
    time.sleep(3600)
