"""Benchmarks: the engine's speed next to plain NumPy doing the same work.

Run from the project root: ``make bench`` (or ``.venv/bin/python -m bench``).
See :mod:`bench.run` for what is measured and why.
"""
