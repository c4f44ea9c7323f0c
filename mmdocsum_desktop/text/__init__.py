"""Plain-text helpers shared by every layer (engines, placement, summarize, bench).

This is the lowest layer beside ``document/``: it imports nothing from the package, so anything may
use it without creating a cycle.
"""
