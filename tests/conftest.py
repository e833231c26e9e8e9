"""Shared pytest configuration: GPU skipping and the gradient checker on sys.path."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


def pytest_collection_modifyitems(config, items):
    from engine.framework.backend import gpu_count
    if gpu_count() == 0:
        skip = pytest.mark.skip(reason="needs CuPy and a CUDA GPU")
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(skip)
