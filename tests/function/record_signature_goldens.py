"""Record ``signature_goldens.json``: what real TF 2.21 returns for each case of ``signature_cases.py``.

Run with the interpreter that has TensorFlow (not collected by pytest)::

    /tmp/tfvenv/bin/python tests/function/record_signature_goldens.py
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from signature_cases import CASES  # noqa: E402

if __name__ == "__main__":
    import tensorflow as tf
    goldens = {name: fn(tf) for name, fn in CASES.items()}
    with open(os.path.join(HERE, "signature_goldens.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": goldens}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"recorded {len(goldens)} cases with TF {tf.__version__}")
