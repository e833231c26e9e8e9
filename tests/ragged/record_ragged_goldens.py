"""Record ``ragged_goldens.json``: what real TF 2.21 prints for each case of ``ragged_cases.py``.

Run with the interpreter that has TensorFlow (not collected by pytest)::

    /tmp/tfvenv/bin/python tests/ragged/record_ragged_goldens.py [CASE ...]   # default: every case
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ragged_cases import CASES


def record(name):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    done = subprocess.run([sys.executable, "-u", os.path.join(HERE, "ragged_cases.py"), "tf", name],
                          capture_output=True, text=True, env=env, check=False)
    if done.returncode:
        return ["<error>"] + done.stderr.splitlines()[-3:]
    return done.stdout.splitlines()


def main(names):
    import tensorflow as tf
    path = os.path.join(HERE, "ragged_goldens.json")
    cases = {}
    if os.path.exists(path):
        with open(path) as f:
            cases = json.load(f)["cases"]
    for name in names or CASES:
        cases[name] = record(name)
    with open(path, "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": {n: cases[n] for n in CASES if n in cases}}, f, indent=1)
        f.write("\n")
    print(f"recorded {len(names or CASES)} cases with TF {tf.__version__}")


if __name__ == "__main__":
    main(sys.argv[1:])
