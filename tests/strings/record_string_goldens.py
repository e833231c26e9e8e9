"""Record the TF 2.21 goldens of ``test_string_goldens.py``.

Run under a real TensorFlow (never imported by the engine or by pytest: the name has no ``test_`` prefix):

    /tmp/tfvenv/bin/python tests/strings/record_string_goldens.py

It evaluates every case of ``string_cases.py`` with TensorFlow (``GRAPH_CASES`` inside a ``tf.Graph``)
and rewrites ``string_goldens.json``.
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from string_cases import CASES, GRAPH_CASES, describe  # noqa: E402


def main():
    goldens = {"tensorflow": tf.__version__}
    for key, expr in CASES.items():
        goldens[key] = describe(lambda: eval(expr, {"tf": tf, "np": np}))  # noqa: S307
    for key, expr in GRAPH_CASES.items():
        with tf.Graph().as_default():
            goldens[key] = describe(lambda: eval(expr, {"tf": tf, "np": np}))  # noqa: S307
    with open(os.path.join(HERE, "string_goldens.json"), "w", encoding="utf-8") as f:
        json.dump(goldens, f, indent=1, sort_keys=True, ensure_ascii=True)
        f.write("\n")


if __name__ == "__main__":
    main()
