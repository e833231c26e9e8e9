"""Record TF 2.21's answers for ``op_definition_cases.py`` into ``op_definition_goldens.json``.

Run from the repository root with a Python that has tensorflow-cpu 2.21 (a scratch venv; TensorFlow is
never a dependency of the project)::

    /tmp/tfvenv/bin/python tests/graph/record_op_definition_goldens.py
"""
import json
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from op_definition_cases import CASES, run_case  # noqa: E402


def main():
    table = {name: run_case(tf, np, name) for name in CASES}
    path = os.path.join(HERE, "op_definition_goldens.json")
    with open(path, "w") as f:
        json.dump({"tf_version": tf.__version__, "cases": table}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {len(table)} cases to {path}")


if __name__ == "__main__":
    main()
