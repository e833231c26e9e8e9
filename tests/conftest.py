"""Shared pytest configuration: GPU skipping, the gradient checker on sys.path, and a private Jupyter home.

The suite never reads or writes the user's own Jupyter and nbgrader state (their nbgrader cache holds
what they submitted from the Assignment List, their config may change how notebooks run): every
Jupyter directory points into a fresh temporary folder for the session, set before anything imports
Jupyter. Kernels are still found (the environment's own ``share/jupyter`` is searched too).
"""
import atexit
import os
import shutil
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(__file__))

_JUPYTER_HOME = tempfile.mkdtemp(prefix="tests-jupyter-")
atexit.register(shutil.rmtree, _JUPYTER_HOME, True)
for _var, _sub in (("JUPYTER_DATA_DIR", "data"), ("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                   ("IPYTHONDIR", "ipython")):
    os.environ[_var] = os.path.join(_JUPYTER_HOME, _sub)
os.environ.pop("JUPYTER_PATH", None)


def pytest_collection_modifyitems(config, items):
    from engine.framework.backend import gpu_count
    if gpu_count() == 0:
        skip = pytest.mark.skip(reason="needs CuPy and a CUDA GPU")
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(skip)
