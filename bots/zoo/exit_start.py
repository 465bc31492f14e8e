"""Exits with code 1 before reading anything."""
import sys

sys.exit(1)
