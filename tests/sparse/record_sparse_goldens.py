"""Record the TF 2.21 goldens of ``test_sparse_goldens.py``.

Run under a real TensorFlow (never imported by the engine or by pytest: the name has no ``test_`` prefix):

    /tmp/tfvenv/bin/python tests/sparse/record_sparse_goldens.py

It evaluates every case of ``sparse_cases.py`` with TensorFlow and rewrites ``sparse_goldens.json``.
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sparse_cases import CASES, describe, namespace  # noqa: E402


def main():
    goldens = {"tensorflow": tf.__version__}
    for key, expr in CASES.items():
        goldens[key] = describe(lambda: eval(expr, namespace(tf, np)))  # noqa: S307
    with open(os.path.join(HERE, "sparse_goldens.json"), "w", encoding="utf-8") as f:
        json.dump(goldens, f, indent=1, sort_keys=True, ensure_ascii=True)
        f.write("\n")


if __name__ == "__main__":
    main()
