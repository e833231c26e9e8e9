"""Benchmarks: the engine's speed next to plain NumPy doing the same work.

Run from the project root: ``make bench`` (or ``.venv/bin/python -m bench``).
See :mod:`bench.run` for what is measured and why.
"""
import os

# One BLAS thread unless the caller chose otherwise, set before NumPy loads its BLAS. The engine and the
# NumPy reference call the same BLAS in the same process, so this changes no ratio's fairness; it removes
# the noise of two BLAS threads fighting over a small machine's cores (and any other load on them).
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
