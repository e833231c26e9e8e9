"""Record TF 2.21's results for the random programs of ``random_programs.py``.

Run from the repository root with a Python that has tensorflow-cpu 2.21 (a scratch venv; TensorFlow is
never a dependency of the project, and the test never imports it)::

    /tmp/tfvenv/bin/python tests/conformance/record_random_programs.py [N]

For each seed ``0 .. N-1`` (default :data:`test_random_programs.N_PROGRAMS`) it generates the program and
records the four variants (eager, ``tf.function`` called twice, ``GradientTape``, ``tf.Graph`` +
``Session``) into ``data/random_programs_golden.json``, with a hash of each program so that a changed
generator is noticed instead of compared against stale answers.
"""
import json
import os
import sys
import time

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import random_programs as rp  # noqa: E402

N_PROGRAMS = 400
PATH = os.path.join(HERE, "data", "random_programs_golden.json")


def record(seed):
    program = rp.generate(seed)
    records = {name: rp.run_variant(tf, np, program, name) for name in rp.VARIANTS}
    return {"hash": rp.program_hash(program), **rp.compress(records)}


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else N_PROGRAMS
    start = time.time()
    programs = {str(seed): record(seed) for seed in range(n)}
    os.makedirs(os.path.dirname(PATH), exist_ok=True)
    with open(PATH, "w") as f:
        json.dump({"tf_version": tf.__version__, "programs": programs}, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    errors = sum("error" in r[v] for r in programs.values() for v in rp.VARIANTS)
    print(f"wrote {n} programs ({errors} of {4 * n} variants end in an error) to {PATH} "
          f"in {time.time() - start:.0f} s, {os.path.getsize(PATH) // 1024} KB")


if __name__ == "__main__":
    main()
