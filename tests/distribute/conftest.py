"""Fixtures for tests/distribute only: the scenario results of ``scenarios.py``.

Logical CPU devices can only be configured before the runtime initializes, so
the multi-replica scenarios run in fresh interpreters (``scenarios.py GROUP``).
All groups start together at the first request (in parallel), once per session,
and each test reads its scenario's JSON result. A group that hangs (a deadlock)
is killed after a timeout and every test reading it fails saying so.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest

import engine

HERE = pathlib.Path(__file__).resolve().parent
ROOT = pathlib.Path(engine.__file__).resolve().parent.parent   # the checkout whose engine this session imports
GROUPS = ("main", "errors", "keras")
TIMEOUT_S = 120

_processes = {}
_results = {}


def _launch():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "TF_CPP_MIN_LOG_LEVEL": "3"}
    for group in GROUPS:
        _processes[group] = subprocess.Popen([sys.executable, str(HERE / "scenarios.py"), group], cwd=ROOT, env=env,
                                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _group(group):
    if group not in _results:
        if not _processes:
            _launch()
        process = _processes[group]
        try:
            out, err = process.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
            _results[group] = f"scenario group {group!r} did not finish in {TIMEOUT_S} s (a deadlock?)\n{err[-3000:]}"
            return _results[group]
        lines = [line for line in out.splitlines() if line.startswith("RESULTS ")]
        if process.returncode != 0 or not lines:
            _results[group] = f"scenario group {group!r} failed (exit {process.returncode}):\n{out[-2000:]}\n" \
                              f"{err[-3000:]}"
        else:
            _results[group] = json.loads(lines[-1][len("RESULTS "):])
    return _results[group]


@pytest.fixture(scope="session")
def scenario():
    """``scenario(group, name)``: the value the scenario returned (the test fails with its traceback if it raised)."""
    def get(group, name):
        results = _group(group)
        if isinstance(results, str):
            pytest.fail(results)
        entry = results[name]
        if "error" in entry:
            pytest.fail(f"scenario {group}/{name} raised:\n{entry['error']}")
        return entry["value"]
    return get
