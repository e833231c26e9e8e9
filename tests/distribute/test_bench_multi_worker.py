"""The multi-worker benchmark runs its processes and prints both figures (timings are never asserted)."""
import os
import pathlib
import re
import subprocess
import sys

import engine

ENGINE_ROOT = pathlib.Path(engine.__file__).resolve().parent.parent


def test_quick_benchmark_prints_every_figure():
    env = {**os.environ, "PYTHONPATH": str(ENGINE_ROOT)}
    done = subprocess.run([sys.executable, str(ENGINE_ROOT / "bench" / "multi_worker.py"), "--quick"],
                          cwd=ENGINE_ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for text in ("1. Ring all-reduce of one float32 buffer across processes", "raw gRPC GB/s", "ring bound",
                 "2. MLP training step", "MultiWorkerMirroredStrategy"):
        assert text in out, out
    # every worker sends exactly the ring's bound 2(N-1)/N x size of payload, plus headers on the wire
    rows = re.findall(r"^   2 +(\d+) KB +\d+\.\d\dms +\d+\.\d+ +\d+\.\d+ +\d+\.\d\d +(\d+) +(\d+) +(\d+)$", out, re.M)
    assert len(rows) == 2, out
    for kb, sent, bound, wire in rows:
        assert int(sent) == int(bound) == int(kb) * 1024 and int(wire) > int(sent)
    assert len(re.findall(r"^   [12] +\d+\.\d\d +\d+\.\d\dx$", out, re.M)) == 2, out
    worst = float(re.search(r"weights equal the 1-worker ones to (\S+)", out).group(1))
    assert worst < 1e-5
