"""The tf.function benchmark runs and prints every figure (a smoke test; never a timing assertion)."""
import subprocess
import sys


def test_function_benchmark_quick_mode_prints_every_figure():
    out = subprocess.run([sys.executable, "-m", "bench.function", "--quick"], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    for label in ["200-op elementwise chain", "MLP train step", "identity tf.function call",
                  "tracing the MLP step", "traces of the MLP step: 1"]:
        assert label in out.stdout
