"""``python -m bench.graph_optimizer`` runs, prints every figure, and compares programs that compute the same thing.

Timings are never asserted (they depend on the machine); what the optimizer does to the two graphs is.
"""
import pathlib
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))   # `bench` is run from the project root, not installed
from bench import graph_optimizer as bench  # noqa: E402
from engine.framework.executor import compile_plan  # noqa: E402


def test_quick_run_prints_every_figure():
    done = subprocess.run([sys.executable, "-m", "bench.graph_optimizer", "--quick"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for text in ("200 tiny elementwise ops", "MLP forward pass, 64x784-256-256-10", "optimizer off", "optimizer on",
                 "NumPy", "kernels called per run", "time per run", "ratio to NumPy", "speed-up from optimizing",
                 "peak bytes, static plan", "peak bytes, measured", "passes: graph optimizer:",
                 "optimized and unoptimized results equal (and equal to NumPy): yes"):
        assert text in out, f"missing {text!r} in:\n{out}"


def test_the_chain_fuses_into_one_kernel_and_the_mlp_into_three():
    consts = bench.chain_constants()
    _, x, y = bench.chain_graph(consts)
    xv = np.linspace(-1, 1, bench.CHAIN_SIZE, dtype=np.float32)
    on, off = compile_plan([y], [], [x]), compile_plan([y], [], [x], options=bench.OFF)
    assert bench._kernels(off) == bench.CHAIN_OPS and bench._kernels(on) == 1
    assert on.memory.peak_after < on.memory.peak_before / 100
    np.testing.assert_array_equal(on([xv])[0], off([xv])[0])
    np.testing.assert_allclose(on([xv])[0], bench.chain_numpy(xv, consts), rtol=1e-5)

    params = bench.mlp_params()
    _, x, logits, _variables = bench.mlp_graph(params)
    batch = np.random.default_rng(0).random((bench.BATCH, bench.SIZES[0]), dtype=np.float32)
    on, off = compile_plan([logits], [], [x]), compile_plan([logits], [], [x], options=bench.OFF)
    assert [op.type for op in on.ops].count("_FusedMatMul") == 3 and "MatMul" not in [op.type for op in on.ops]
    assert on.memory.peak_after < on.memory.peak_before / 2
    np.testing.assert_array_equal(on([batch])[0], off([batch])[0])
    np.testing.assert_allclose(on([batch])[0], bench.mlp_numpy(batch, params), rtol=1e-4, atol=1e-5)
