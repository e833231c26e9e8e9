"""tf.strings against TF 2.21: every case of ``string_cases.py``, with the values, reprs and errors TF gave.

The goldens (``string_goldens.json``) were recorded by ``record_string_goldens.py`` under a real
TensorFlow; TensorFlow is never imported here.
"""
import json
import os
import re
import sys

import numpy as np
import pytest

import engine as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from string_cases import CASES, describe  # noqa: E402

with open(os.path.join(HERE, "string_goldens.json"), encoding="utf-8") as f:
    GOLDENS = json.load(f)


def _tf_message(message):
    """TF's eager error text without its function-node prefix and `` name: `` suffix."""
    message = re.sub(r"^\{\{function_node [^}]*\}\} ", "", message)
    return re.sub(r" name: $", "", message)


@pytest.mark.parametrize("key", sorted(CASES))
def test_case_matches_tf(key):
    want = GOLDENS[key]
    got = describe(lambda: eval(CASES[key], {"tf": tf, "np": np}))  # noqa: S307
    if "error" in want:
        assert got.get("error") == want["error"], got
        assert _tf_message(got["message"]) == _tf_message(want["message"])
        return
    assert got == want
