"""A3 (trace a function) beyond the generic assignment tests.

* The grader's expected values follow TF's documented retracing rules (the fixed core's trace counts).
* The reference tracer plugged in through the seam (with the seam's optional ``accepts``/``relax``)
  reproduces the engine's own ``tf.function`` on every generated call sequence: the seam's
  protocol can carry the whole of the retracing rules.
* An honest A3 written differently from the solution gets full marks.
* In the sandbox's engine, ``tf.function`` runs only through the student's tracer.
"""
import os
import shutil
import subprocess
import sys

import pytest

import assignment_kit as kit
from autograder import absence, grading
from autograder.assignments import a3
from autograder.harness import a3 as harness
from autograder.sandbox import REPO


def _counts(case):
    import engine as tf
    return [step[0] for step in harness.run_sequence(tf, case, None)["steps"]]


def _core(what):
    return next(c for c in a3.TRACER_CORE if c["what"] == what)


def test_the_fixed_core_follows_tfs_retracing_rules():
    # same shape: reuse; new shape, new Python value, new dtype: retrace; the first shape again: reuse
    assert _counts(_core("shapes, dtypes and Python values")) == [1, 1, 2, 3, 3, 4, 5, 6, 6]
    # input_signature: a new batch size reuses the trace; a list is converted; a rank-2 call raises TypeError
    import engine as tf
    steps = harness.run_sequence(tf, _core("input_signature"), None)["steps"]
    assert [s[0] for s in steps] == [1, 1, 1, 1, 1] and steps[3][1] == "error:TypeError"
    # reduce_retracing: (2,) traces, (3,) traces once more as (None,), (4,) reuses it, (2,) its own trace,
    # (2, 3) another rank: unknown rank, (4, 5) reuses that, int32 another dtype, (9,) reuses (None,)
    assert _counts(_core("reduce_retracing")) == [1, 2, 2, 2, 3, 3, 4, 4]
    # variables by dtype and shape: another variable reuses; the same variable twice, or another shape, retraces
    assert _counts(_core("variable arguments")) == [1, 1, 1, 2, 3, 4]


@pytest.mark.parametrize("seed", range(8))
def test_the_reference_tracer_through_the_seam_is_tf_function(seed):
    import engine as tf
    from engine.tracing.function import FunctionTracer
    task = a3.make_plan(seed, n=6)["tasks"][-1]
    assert task["name"] == "tracer"
    for case, expected in zip(task["cases"], a3.expected(task)):
        got = harness.run_sequence(tf, case, FunctionTracer)
        assert a3.check_case("tracer", case, expected, got) is None, case


LEAF_KEY = '''
_PYTHON = (type(None), bool, int, float, str, bytes)

def leaf_key(x):
    if isinstance(x, tf.Variable):
        return "variable", tf.as_dtype(x.dtype), tf.TensorShape(x.shape)
    if isinstance(x, (tf.Tensor, tf.TensorSpec, np.ndarray)):
        s = spec_of(x)
        return "tensor", s.dtype, s.shape
    if isinstance(x, _PYTHON) or isinstance(x, np.generic):
        return "value", x
    return "object", id(x)
'''

TRACE_KEY = '''
def _nesting(x):
    if type(x) is dict or isinstance(x, dict):
        return "dict", tuple(sorted((k, _nesting(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return type(x).__name__, tuple(map(_nesting, x))
    return None

def trace_key(args, kwargs):
    flat = tf.nest.flatten((args, kwargs))
    where = {}
    keys = []
    for position, leaf in enumerate(flat):
        k = leaf_key(leaf)
        if k[0] == "variable":
            if id(leaf) not in where:
                where[id(leaf)] = position
            k = (*k, where[id(leaf)])
        keys.append(k)
    return (_nesting(args), _nesting(kwargs)), tuple(keys)
'''

TRACE = '''
def trace(python_function, args, kwargs):
    g = FuncGraph("traced")

    def stand_in(leaf):
        if is_tensor(leaf):
            s = spec_of(leaf)
            return g.add_input(s.dtype, s.shape)
        if isinstance(leaf, tf.Variable):
            variable_input(g, leaf)
        return leaf

    symbolic = tf.nest.map_structure(stand_in, (args, kwargs))
    with g.as_default():
        out = python_function(*symbolic[0], **symbolic[1])
    g.set_outputs(out)
    return ConcreteFunction(g)
'''

RULES = '''
def shape_accepts(traced, shape):
    return traced.rank is None or (traced.rank == shape.rank and traced.is_compatible_with(shape) and
                                   all(t is None or t == d for t, d in zip(traced, shape)))

def _same_kind(a, b):
    return a[0] == b[0] == "tensor" and a[1] == b[1]

def accepts(traced_key, key):
    same = traced_key[0] == key[0] and len(traced_key[1]) == len(key[1])
    return same and all(shape_accepts(a[2], b[2]) if _same_kind(a, b) else a == b
                        for a, b in zip(traced_key[1], key[1]))

def relax_shape(a, b):
    return a.most_specific_compatible_shape(b)

def relax_key(traced_key, key):
    if traced_key[0] != key[0] or len(traced_key[1]) != len(key[1]):
        return None
    if any(not _same_kind(a, b) and a != b for a, b in zip(traced_key[1], key[1])):
        return None
    return key[0], tuple((b[0], b[1], relax_shape(a[2], b[2])) if _same_kind(a, b) else b
                         for a, b in zip(traced_key[1], key[1]))
'''

TRACER = '''
class Tracer:
    def __init__(self, python_function):
        self.fn = python_function

    def cache_key(self, args, kwargs):
        return trace_key(args, kwargs)

    def trace(self, args, kwargs):
        return trace(self.fn, args, kwargs)

    def accepts(self, traced_key, key):
        return accepts(traced_key, key)

    def relax(self, traced_key, key, args, kwargs):
        general = relax_key(traced_key, key)
        if general is None:
            return None
        specs = iter(general[1])

        def swap(leaf):
            k = next(specs)
            return tf.TensorSpec(k[2], k[1]) if k[0] == "tensor" else leaf
        return tf.nest.map_structure(swap, (args, kwargs))
'''


def test_an_honest_variant_gets_full_marks(tmp_path):
    replace = {"leaf_key": LEAF_KEY, "trace_key": TRACE_KEY, "trace": TRACE, "rules": RULES, "tracer": TRACER}
    path = kit.submission("A3", str(tmp_path / "A3.ipynb"), replace=replace)
    res = kit.grade("A3", path, seed=11, n=4)
    assert kit.scores(res, "A3") == {t.name: t.points for t in a3.TASKS}, grading.report(res, "A3")


def test_in_the_sandbox_engine_tf_function_runs_only_through_a_tracer(tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(os.path.join(REPO, "engine"), root / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    absence.apply(str(root / "engine"), a3.ABSENT, "A3")
    cells = grading.source_cells("A3")
    code = "\n".join([cells["setup"], cells["leaf_key"], cells["trace_key"], cells["trace"], cells["rules"],
                      cells["tracer"], '''
f = tf.function(lambda x: x * 2.0)
try:
    f(tf.constant(1.0))
    raise SystemExit("the reference tracer is still there")
except NotImplementedError as e:
    assert "absent" in str(e) and "A3" in str(e)
with seams.using(tracer=Tracer):
    assert f(tf.constant(1.0)).numpy() == 2.0 and f(tf.constant(3.0)).numpy() == 6.0
assert f.experimental_get_tracing_count() == 1
print("OK")
'''])
    env = {"PYTHONPATH": f"{root}{os.pathsep}{os.path.dirname(os.path.dirname(__import__('numpy').__file__))}",
           "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-S", "-c", code], cwd=root, capture_output=True, text=True, timeout=120,
                         env=env)
    assert out.returncode == 0 and "OK" in out.stdout, out.stderr[-2000:]
