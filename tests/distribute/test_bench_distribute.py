"""The distribution benchmark runs and prints its three figures (timings are never asserted)."""
import os
import pathlib
import re
import subprocess
import sys

import engine

ENGINE_ROOT = pathlib.Path(engine.__file__).resolve().parent.parent


def test_quick_benchmark_prints_every_figure():
    env = {**os.environ, "PYTHONPATH": str(ENGINE_ROOT)}
    done = subprocess.run([sys.executable, str(ENGINE_ROOT / "bench" / "distribute.py"), "--quick"], cwd=ENGINE_ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for text in ("1. MLP training step", "2. All-reduce of one float32 buffer", "3. strategy.run(fn) against fn()",
                 "RingAllReduce", "strategy.run, 4 replica(s)"):
        assert text in out, out
    assert len(re.findall(r"^   (?:none|1|2|4) +(?:eager|tf\.function) +\d+\.\d\d", out, re.M)) == 8, out
    worst = float(re.search(r"weights equal the no-strategy ones to (\S+)", out).group(1))
    assert worst < 1e-5
    # the ring's record: every device sends exactly the bound 2(N-1)/N x size
    ring = re.findall(r"^   RingAllReduce +\d+ +\d+µs +\d+\.\d\d +(\d+) +(\d+)$", out, re.M)
    assert len(ring) == 3 and all(sent == bound for sent, bound in ring), out
