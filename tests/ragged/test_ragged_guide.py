"""The ragged-tensor guide's cells run under the engine print what they print under TF 2.21.

The cells are in ``ragged_cases.py`` (``site/en/guide/ragged_tensor.ipynb``'s own code, plus the API
it describes); ``ragged_goldens.json`` holds what real TF printed, recorded by
``record_ragged_goldens.py`` (``/tmp/tfvenv/bin/python tests/ragged/record_ragged_goldens.py``).
"""
import contextlib
import io
import json
import os
import sys

import pytest

import engine as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ragged_cases

with open(os.path.join(HERE, "ragged_goldens.json")) as _f:
    GOLDENS = json.load(_f)


def test_goldens_cover_every_case():
    assert GOLDENS["tensorflow"] == "2.21.0"
    assert set(GOLDENS["cases"]) == set(ragged_cases.CASES)


@pytest.mark.parametrize("name", sorted(ragged_cases.CASES))
def test_guide_cell_prints_what_tf_prints(name):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ragged_cases.CASES[name](tf)
    assert out.getvalue().splitlines() == GOLDENS["cases"][name]
