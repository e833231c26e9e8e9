"""Random straight-line programs, four ways each, against TF 2.21's recorded results.

The programs (``random_programs.py``) are made from seeds: elementwise math with broadcasting and with
Python numbers, unary and nn functions, reductions and scans, shape ops, slicing and gather, sorting,
segment ops and matmul, with now and then a call TF refuses. TF 2.21's results for each of the four
variants are in ``data/random_programs_golden.json``, recorded by ``record_random_programs.py`` in a
scratch venv (this test never imports TensorFlow):

* ``eager``, ``tape`` (the values, and the gradients of the float outputs' sum with respect to each
  float input), ``function`` (``tf.function`` called twice) and ``graph`` (``tf.Graph`` of placeholders
  with some unknown dimensions, run by ``Session``);
* a variant agrees when both give the same values (``allclose`` within a tolerance for the dtype;
  ``nan``, ``inf`` and their places exactly), dtypes and shapes, the same static shapes (graph and
  function: never more, never less known than TF's), and for errors the same class raised at the same
  stage: building the graph or tracing the function (``ValueError``, ``TypeError``) or running it
  (``InvalidArgumentError`` from a kernel).

At least 99.5% of the program-variants must agree, and every one that does not must be in
:data:`KNOWN_DIFFERENCES`, which says why each difference is deliberate (the engine's docstrings say so
too). A known difference that has started agreeing must leave the list.
"""
import json
import math
import os
import sys
import time

import numpy as np
import pytest

import engine as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import random_programs as rp  # noqa: E402

with open(os.path.join(HERE, "data", "random_programs_golden.json")) as _f:
    GOLDEN = json.load(_f)
PROGRAMS = GOLDEN["programs"]
REQUIRED_SHARE = 0.995

# (seed, variant) -> why the engine deliberately differs from TF 2.21 there (the engine's docstrings say so too).
_SOFTMAX_NAN = ("tf.nn.softmax of a row holding a NaN: TF 2.21's x86 CPU build runs Softmax through oneDNN, which "
                "gives 0 for the row's other entries; the engine gives NaN for the whole row, as TF does with "
                "TF_ENABLE_ONEDNN_OPTS=0 and on GPU (engine/ops/nn_ops.py, softmax)")
_POW_MINUS_ONE = ("tf.pow(integer tensor, -1) in a graph: Grappler rewrites Pow(x, -1) as Reciprocal, which has no "
                  "integer CPU kernel, so TF raises NotFoundError; the engine's optimizer does not make that "
                  "rewrite, and the Pow kernel raises its InvalidArgumentError ('Integers to negative integer "
                  "powers are not allowed'), as TF does eagerly (engine/ops/math_ops.py, pow)")
KNOWN_DIFFERENCES = {
    (101, "eager"): _SOFTMAX_NAN, (101, "function"): _SOFTMAX_NAN, (101, "tape"): _SOFTMAX_NAN,
    (101, "graph"): _SOFTMAX_NAN,
    (250, "function"): _POW_MINUS_ONE, (250, "graph"): _POW_MINUS_ONE,
}

# Tolerances per dtype: (rtol, atol). Float32 results of TF's Eigen kernels and of NumPy differ by a few
# ulps, and more after a reduction or a gradient that sums them.
# TF's float64 special functions are not all exact either (``erfc``, hence ``gelu`` and its gradient, is good to
# about 1e-8 in TF 2.21's CPU kernels), and oneDNN, on by default in TF's x86 builds, changes the order of sums.
TOLERANCES = {"float16": (1e-2, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-7, 1e-8)}


def _decode(values):
    return np.array([float(v) if isinstance(v, str) else v for v in values], dtype=np.float64)


def compare_tensor(want, got):
    """None if two ``[dtype, shape, flat values]`` records agree, else what differs."""
    if want[0] != got[0]:
        return f"dtype {got[0]}, TF {want[0]}"
    if want[1] != got[1]:
        return f"shape {got[1]}, TF {want[1]}"
    if want[0] in TOLERANCES:
        w, g = _decode(want[2]), _decode(got[2])
        rtol, atol = TOLERANCES[want[0]]
        if not np.array_equal(np.isnan(w), np.isnan(g)) or not np.allclose(w, g, rtol=rtol, atol=atol,
                                                                         equal_nan=True):
            return f"values {got[2]}, TF {want[2]}"
        return None
    if want[2] != got[2]:
        return f"values {got[2]}, TF {want[2]}"
    return None


def _compare_list(what, want, got):
    if want is None or got is None:
        return None if want is None and got is None else f"{what}: {got}, TF {want}"
    if len(want) != len(got):
        return f"{what}: {len(got)} of them, TF {len(want)}"
    for i, (w, g) in enumerate(zip(want, got)):
        if w is None or g is None:
            if not (w is None and g is None):
                return f"{what}[{i}]: {'None' if g is None else 'a tensor'}, TF {'None' if w is None else 'a tensor'}"
            continue
        diff = compare_tensor(w, g)
        if diff:
            return f"{what}[{i}]: {diff}"
    return None


def compare_record(want, got):
    """None if a variant's engine record agrees with TF's, else what differs."""
    if "error" in want or "error" in got:
        w = (want.get("error"), want.get("stage"))
        g = (got.get("error"), got.get("stage"))
        if w != g:
            return f"error {g}, TF {w}"
    for key in ("static",):
        if want.get(key) != got.get(key):
            return f"static shapes {got.get(key)}, TF {want.get(key)}"
    for key in ("out", "grads"):
        diff = _compare_list(key, want.get(key), got.get(key))
        if diff:
            return diff
    if "second" in want or "second" in got:
        first = {k: v for k, v in want.items() if k != "static"}
        diff = compare_record(want.get("second", first), got.get("second", {k: v for k, v in got.items()
                                                                             if k != "static"}))
        return diff and f"second call: {diff}"
    return None


def run_engine(seed):
    program = rp.generate(seed)
    records = {name: rp.run_variant(tf, np, program, name) for name in rp.VARIANTS}
    return rp.program_hash(program), records


@pytest.fixture(scope="module")
def outcome():
    start = time.perf_counter()
    diffs, stale_hashes = {}, []
    for seed_text, golden in PROGRAMS.items():
        seed = int(seed_text)
        digest, records = run_engine(seed)
        if digest != golden["hash"]:
            stale_hashes.append(seed)
            continue
        want = rp.expand({k: v for k, v in golden.items() if k != "hash"})
        for variant in rp.VARIANTS:
            diff = compare_record(want[variant], records[variant])
            if diff:
                diffs[(seed, variant)] = diff
    return {"diffs": diffs, "stale": stale_hashes, "seconds": time.perf_counter() - start}


def test_the_goldens_are_for_these_programs(outcome):
    """The generator still makes the programs the goldens were recorded for (else: re-record them)."""
    assert GOLDEN["tf_version"].startswith("2.21")
    assert len(PROGRAMS) >= 300
    assert not outcome["stale"], f"programs changed since recording: seeds {outcome['stale'][:10]}: run " \
                                 f"record_random_programs.py under TF 2.21"


def test_the_agreeing_share(outcome):
    total = len(PROGRAMS) * len(rp.VARIANTS)
    agreeing = total - len(outcome["diffs"])
    report = "\n".join(f"  seed {s} {v}: {d}" for (s, v), d in sorted(outcome["diffs"].items()))
    assert agreeing / total >= REQUIRED_SHARE, f"{agreeing} of {total} program-variants agree:\n{report}"


def test_every_difference_is_known_and_deliberate(outcome):
    unknown = {k: d for k, d in outcome["diffs"].items() if k not in KNOWN_DIFFERENCES}
    report = "\n".join(f"  seed {s} {v}: {d}" for (s, v), d in sorted(unknown.items()))
    assert not unknown, f"{len(unknown)} differences from TF 2.21 not in KNOWN_DIFFERENCES:\n{report}"
    stale = sorted(k for k in KNOWN_DIFFERENCES if k not in outcome["diffs"])
    assert not stale, f"these known differences agree now: remove them from KNOWN_DIFFERENCES: {stale}"


def test_it_runs_quickly(outcome):
    assert outcome["seconds"] < 45, f"the engine's four variants of every program took {outcome['seconds']:.0f} s"


@pytest.mark.parametrize("values", [[1.0, "nan", "inf"], [0.5, -0.25]])
def test_compare_tensor_is_strict_about_nan_inf_dtype_and_shape(values):
    rec = ["float32", [len(values)], values]
    assert compare_tensor(rec, rec) is None
    assert compare_tensor(rec, ["float32", [len(values)], [0.0] + values[1:]]) is not None
    assert compare_tensor(rec, ["float64", [len(values)], values]) is not None
    assert compare_tensor(rec, ["float32", [1, len(values)], values]) is not None
    assert compare_tensor(["float32", [1], ["nan"]], ["float32", [1], [math.nan]]) is None
