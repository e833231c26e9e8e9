"""Graph mode must agree with eager mode, op by op: values, static shapes and gradients.

For every case of ``op_catalog.CASES`` (which together cover every registered op):

(a) the value computed eagerly equals the value a ``Session`` computes from a graph
    fed through placeholders of the same dtype, with fully known shapes, with an
    unknown first (batch) dimension, with every dimension unknown and with unknown
    rank; the graph's static shapes and dtypes agree with the eager result, and
    know at least as much as TF 2.21's (recorded in ``tf_static_shapes.py``);
(b) the tape's gradient of a randomly weighted sum of the outputs equals
    ``tf.compat.v1.gradients`` of the same target in the graph, for the same
    placeholder shapes;
(c) the same for second derivatives (the gradient of a weighted sum of the
    first gradients), which runs the gradient functions of the gradient ops.

Random and stateful ops are checked separately at the end of this file.
"""
import numpy as np
import pytest

import engine as tf
from engine.framework.executor import compile_plan
from engine.framework.registry import registered_ops
from op_catalog import CASES, EXCLUDED, INDIRECT
from tf_static_shapes import SHAPES as TF_SHAPES

v1 = tf.compat.v1
_BY_ID = {c.id: c for c in CASES}


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------
def _flat(outputs):
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


def _placeholder_shape(shape, mode):
    if mode == "known" or not shape:
        return list(shape)
    if mode == "batch":
        return [None] + list(shape[1:])
    if mode == "rank":
        return None
    return [None] * len(shape)


def _weights(arrays, seed):
    """One fixed random array per floating-point value (None for the others)."""
    rng = np.random.default_rng(seed)
    return [None if a is None or np.asarray(a).dtype.kind != "f" else
            rng.standard_normal(np.shape(a)).astype(np.asarray(a).dtype) for a in arrays]


def _weighted_sum(tensors, weights):
    """``sum_k reduce_sum(t_k * w_k)`` over the tensors that have a weight; None if there are none."""
    terms = [tf.reduce_sum(tf.multiply(t, tf.constant(w))) for t, w in zip(tensors, weights)
             if t is not None and w is not None]
    if not terms:
        return None
    return terms[0] if len(terms) == 1 else tf.add_n(terms)


def _eager(case, order=0):
    """Eager outputs, first gradients and (order 2) second gradients, as NumPy values."""
    xs = [tf.constant(a) for a in case.inputs]
    sources = [xs[i] for i in case.grad]
    with tf.GradientTape() as outer:
        outer.watch(sources)
        with tf.GradientTape() as inner:
            inner.watch(sources)
            outs = _flat(case.fn(*xs))
            values = [o.numpy() for o in outs]
            target = _weighted_sum(outs, _weights(values, 1)) if order else None
        if order == 0:
            return values, None, None
        g1 = inner.gradient(target, sources) if target is not None else [None] * len(sources)
        if order == 1:
            return values, [_np(g) for g in g1], None
        target2 = _weighted_sum(g1, _weights([_np(g) for g in g1], 2))
    g2 = outer.gradient(target2, sources) if target2 is not None else [None] * len(sources)
    return values, [_np(g) for g in g1], [_np(g) for g in g2]


def _np(g):
    """A gradient as a NumPy value (gather's eager gradient is a tf.IndexedSlices, as in TF: densified)."""
    return None if g is None else tf.convert_to_tensor(g).numpy()


def _build(case, mode, order=0, eager_values=None, eager_g1=None):
    """Build the case in a new graph: (graph, placeholders, outputs, first gradients, second gradients)."""
    g = tf.Graph()
    g1 = g2 = None
    with g.as_default():
        phs = [v1.placeholder(tf.as_dtype(a.dtype), _placeholder_shape(a.shape, mode)) for a in case.inputs]
        outs = _flat(case.fn(*phs))
        if order >= 1:
            sources = [phs[i] for i in case.grad]
            target = _weighted_sum(outs, _weights(eager_values, 1))
            g1 = v1.gradients(target, sources) if target is not None else [None] * len(sources)
            if order == 2:
                target2 = _weighted_sum(g1, _weights(eager_g1, 2))
                g2 = v1.gradients(target2, sources) if target2 is not None else [None] * len(sources)
    return g, phs, outs, g1, g2


def _run(graph, phs, case, tensors):
    fetch = [t for t in tensors if t is not None]
    with v1.Session(graph=graph) as sess:
        values = iter(sess.run(fetch, {p: a for p, a in zip(phs, case.inputs)}))
    return [None if t is None else next(values) for t in tensors]


def _assert_same(case, what, eager, graph, tensor, mode):
    """Values, dtypes and static shapes of one graph tensor against its eager twin."""
    assert (eager is None) == (graph is None), f"{what}: eager gives {eager!r}, graph gives {graph!r}"
    if eager is None:
        assert tensor is None
        return
    eager, graph = np.asarray(eager), np.asarray(graph)
    assert graph.dtype == eager.dtype, f"{what}: dtype {graph.dtype} in the graph, {eager.dtype} eagerly"
    assert graph.shape == eager.shape, f"{what}: shape {graph.shape} in the graph, {eager.shape} eagerly"
    assert tensor.dtype.as_numpy_dtype == eager.dtype, f"{what}: static dtype {tensor.dtype.name} vs {eager.dtype}"
    assert tensor.shape.is_compatible_with(eager.shape), \
        f"{what}: static shape {tensor.shape} is incompatible with the value's shape {eager.shape}"
    if mode == "known" and mode in case.static:
        assert tensor.shape.as_list() == list(eager.shape), \
            f"{what}: static shape {tensor.shape} should be fully known: {eager.shape}"
    elif mode in case.static:
        assert tensor.shape.rank == eager.ndim, f"{what}: static rank of {tensor.shape} should be known"
    if eager.dtype.kind == "f":
        np.testing.assert_allclose(graph, eager, rtol=case.rtol, atol=case.atol, err_msg=what)
    else:
        np.testing.assert_array_equal(graph, eager, err_msg=what)


# Where the engine's static shape is knowingly less precise than TF's, and why.
_LESS_PRECISE_THAN_TF = {
    ("BroadcastTo-fed_shape", "known"): "tests/ops/test_array_infer.py pins [None, None] for BroadcastTo([3], "
                                        "unknown [2]); TF infers [None, 3]",
}


def _assert_as_precise_as_tf(case, mode, outs):
    """The graph's static dtypes equal TF's, and its static shapes know at least what TF's know."""
    expected = TF_SHAPES[(case.id, mode)]
    assert not isinstance(expected, str), f"TF raises {expected} building {case.id} ({mode} shapes): the engine " \
                                          f"builds it; remove the mode from the case or match TF"
    assert len(outs) == len(expected)
    for k, (t, (dtype, shape)) in enumerate(zip(outs, expected)):
        assert t.dtype.name == dtype, f"{case.id} output {k} ({mode}): static dtype {t.dtype.name}, TF's {dtype}"
        if shape is None or (case.id, mode) in _LESS_PRECISE_THAN_TF:
            continue
        dims = t.shape.as_list() if t.shape.rank is not None else None
        assert dims is not None and len(dims) == len(shape) and all(
            d == e for d, e in zip(dims, shape) if e is not None), \
            f"{case.id} output {k} ({mode} shapes): static shape {t.shape} knows less than TF's {shape}"


def _params(modes_of):
    return [pytest.param(c, m, id=f"{c.id}-{m}") for c in CASES for m in modes_of(c)]


_ALL_MODES = _params(lambda c: ("known",) + c.partial)
_SECOND_MODES = _params(lambda c: (("known",) + tuple(m for m in c.partial if m == "dims")) if c.second else ())


# --------------------------------------------------------------------------------------------
# (a) values and static shapes, (b) gradients, (c) second derivatives
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case, mode", _ALL_MODES)
def test_value(case, mode):
    eager, _, _ = _eager(case)
    graph, phs, outs, _, _ = _build(case, mode)
    assert len(outs) == len(eager)
    _assert_as_precise_as_tf(case, mode, outs)
    for k, (e, v, t) in enumerate(zip(eager, _run(graph, phs, case, outs), outs)):
        _assert_same(case, f"{case.id} output {k} ({mode} shapes)", e, v, t, mode)


@pytest.mark.parametrize("case, mode", _ALL_MODES)
def test_gradient(case, mode):
    values, eager_g1, _ = _eager(case, order=1)
    graph, phs, _, g1, _ = _build(case, mode, order=1, eager_values=values)
    for i, e, v, t in zip(case.grad, eager_g1, _run(graph, phs, case, g1), g1):
        _assert_same(case, f"{case.id}: gradient for input {i} ({mode} shapes)", e, v, t, mode)


@pytest.mark.parametrize("case, mode", _SECOND_MODES)
def test_second_order_gradient(case, mode):
    values, eager_g1, eager_g2 = _eager(case, order=2)
    graph, phs, _, _, g2 = _build(case, mode, order=2, eager_values=values, eager_g1=eager_g1)
    for i, e, v, t in zip(case.grad, eager_g2, _run(graph, phs, case, g2), g2):
        _assert_same(case, f"{case.id}: second gradient for input {i} ({mode} shapes)", e, v, t, mode)


# --------------------------------------------------------------------------------------------
# Coverage: every registered op is in the catalog, built by it, or excluded for a reason
# --------------------------------------------------------------------------------------------
def test_every_registered_op_is_accounted_for():
    graph, phs, outs, _, _ = _build(CASES[0], "known")
    _run(graph, phs, CASES[0], outs)   # running a graph loads the graph optimizer, which registers its fused ops
    registered = set(registered_ops())
    direct = {c.op for c in CASES}
    missing = registered - direct - set(INDIRECT) - set(EXCLUDED)
    assert not missing, (f"Registered ops with no graph-vs-eager coverage: {sorted(missing)}. Add a Case to "
                         f"tests/graph/op_catalog.py (or list the op in INDIRECT/EXCLUDED with a reason).")
    unknown = (direct | set(INDIRECT) | set(EXCLUDED)) - registered
    assert not unknown, f"The catalog names ops that are not registered: {sorted(unknown)}"
    assert not (direct | set(INDIRECT)) & set(EXCLUDED), "an op is both tested and excluded"


def test_tf_static_shapes_are_recorded_for_every_case():
    wanted = {(c.id, m) for c in CASES for m in ("known",) + c.partial}
    missing = sorted(wanted - set(TF_SHAPES))
    assert not missing, (f"No TF static shapes recorded for {missing[:5]}...: rerun `TF_PYTHON "
                         f"tests/graph/record_tf_static_shapes.py > tests/graph/tf_static_shapes.py` with a "
                         f"scratch venv that has tensorflow-cpu 2.21")


def test_case_ids_are_unique():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_case_builds_its_op(case):
    graph, _, _, _, _ = _build(case, "known")
    types = {op.type for op in graph.get_operations()}
    assert case.op in types, f"{case.id} does not build a {case.op} node; it builds {sorted(types)}"


@pytest.mark.parametrize("op_type", sorted(INDIRECT))
def test_indirect_op_is_built(op_type):
    case_id, where = INDIRECT[op_type]
    case = _BY_ID[case_id]
    if where == "plan":
        graph, phs, outs, _, _ = _build(case, "known")
        plan = compile_plan(outs, [], phs)
        assert op_type in {node.type for node in plan.ops}, f"{case_id}'s plan runs no {op_type}: {plan.source}"
        return
    values, eager_g1, _ = _eager(case, order=2 if where == "grad2" else 1)
    before = set()
    if where != "graph":
        graph, _, _, _, _ = _build(case, "known")
        before = {op.type for op in graph.get_operations()}
    graph, _, _, _, _ = _build(case, "known", order=2 if where == "grad2" else 1, eager_values=values,
                               eager_g1=eager_g1)
    types = {op.type for op in graph.get_operations()}
    assert op_type in types - before, f"{case_id}'s {where} graph builds no new {op_type} node"


# --------------------------------------------------------------------------------------------
# Random ops: shapes, dtypes, and determinism of seeded graphs
# --------------------------------------------------------------------------------------------
_RANDOM = {
    "RandomUniform": lambda: tf.random.uniform([2, 3], dtype=tf.float64, seed=7),
    "RandomStandardNormal": lambda: tf.random.normal([2, 3], seed=7),
    "TruncatedNormal": lambda: tf.random.truncated_normal([3, 2], dtype=tf.float64, seed=7),
    "RandomUniformInt": lambda: tf.random.uniform([4], minval=0, maxval=100, dtype=tf.int64, seed=7),
    "RandomShuffle": lambda: tf.random.shuffle(tf.range(10), seed=7),
}


def _random_graph(make):
    g = tf.Graph()
    with g.as_default():
        tf.random.set_seed(3)
        out = make()
    return g, out


@pytest.mark.parametrize("op_type", sorted(_RANDOM))
def test_random_ops_in_graphs(op_type):
    tf.random.set_seed(3)
    eager = _RANDOM[op_type]().numpy()
    tf.random.set_seed(None)
    g, out = _random_graph(_RANDOM[op_type])
    assert op_type in {op.type for op in g.get_operations()}
    assert out.dtype.as_numpy_dtype == eager.dtype and out.shape.as_list() == list(eager.shape)
    with v1.Session(graph=g) as sess:
        first, second = sess.run(out), sess.run(out)
    assert first.dtype == eager.dtype and first.shape == eager.shape
    np.testing.assert_array_equal(first, eager)  # the same seeds start the same sequence, as in TF
    assert not np.array_equal(first, second), "a random node must advance its stream between runs"
    with v1.Session(graph=g) as sess:             # a new Session starts every sequence again, as in TF
        np.testing.assert_array_equal(sess.run(out), first)
    g2, out2 = _random_graph(_RANDOM[op_type])   # the same graph built again: the same sequence
    with v1.Session(graph=g2) as sess:
        again = [sess.run(out2), sess.run(out2)]
    np.testing.assert_array_equal(again[0], first)
    np.testing.assert_array_equal(again[1], second)
    if op_type == "RandomShuffle":
        assert sorted(first.tolist()) == list(range(10))


def test_random_ops_in_graphs_cover_every_random_op():
    random_ops = {name for name, op in registered_ops().items() if op.stateful and name.startswith(
        ("Random", "TruncatedNormal"))}
    assert random_ops == set(_RANDOM)


# --------------------------------------------------------------------------------------------
# Variables: reads, assignments and gradients through ReadVariableOp agree with eager mode
# --------------------------------------------------------------------------------------------
def _variable_program(v, x):
    y = tf.reduce_sum(tf.tanh(tf.matmul(x, v)) * tf.constant([[1.0, -2.0]], dtype=tf.float64))
    return y


def test_variables_graph_vs_eager():
    w0 = np.arange(6.0).reshape(3, 2) / 10
    x0 = np.linspace(-1, 1, 12).reshape(4, 3)
    delta = np.full((3, 2), 0.25)

    v = tf.Variable(w0)
    with tf.GradientTape() as tape:
        y = _variable_program(v, tf.constant(x0))
    eager_grad = tape.gradient(y, v).numpy()
    v.assign_add(delta)
    v.assign_sub(2 * delta)
    eager_after = v.numpy().copy()
    v.assign(w0 * 3)
    eager_final = _variable_program(v, tf.constant(x0)).numpy()

    g = tf.Graph()
    with g.as_default():
        gv = tf.Variable(w0)
        x = v1.placeholder(tf.float64, [None, 3])
        gy = _variable_program(gv, x)
        (grad,) = v1.gradients(gy, [gv])
        add, sub, assign = gv.assign_add(delta), gv.assign_sub(2 * delta), gv.assign(w0 * 3)
        init = v1.global_variables_initializer()
    types = {op.type for op in g.get_operations()}
    assert {"VarHandleOp", "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
            "NoOp"} <= types
    with v1.Session(graph=g) as sess:
        sess.run(init)
        np.testing.assert_allclose(sess.run(gy, {x: x0}), y.numpy(), rtol=1e-12)
        np.testing.assert_allclose(sess.run(grad, {x: x0}), eager_grad, rtol=1e-12)
        sess.run(add)
        sess.run(sub)
        np.testing.assert_allclose(sess.run(gv), eager_after, rtol=1e-12)
        sess.run(assign)
        np.testing.assert_allclose(sess.run(gy, {x: x0}), eager_final, rtol=1e-12)


# --------------------------------------------------------------------------------------------
# PrintV2: no value to compare, but the same text
# --------------------------------------------------------------------------------------------
def test_print_graph_vs_eager():
    import io

    from engine.ops import logging_ops
    x0 = np.array([[1.5, -2.0, 3.25], [0.0, 4.0, 5.0]])
    eager_text = io.StringIO()
    logging_ops.print("x:", tf.constant(x0), "sum", tf.reduce_sum(tf.constant(x0)), output_stream=eager_text)
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float64, [None, 3])
        graph_text = io.StringIO()
        op = logging_ops.print("x:", x, "sum", tf.reduce_sum(x), output_stream=graph_text)
    assert op.type == "PrintV2" and graph_text.getvalue() == ""   # building prints nothing
    with v1.Session(graph=g) as sess:
        sess.run(op, {x: x0})
    assert graph_text.getvalue() == eager_text.getvalue() != ""


# --------------------------------------------------------------------------------------------
# Seeds and unconnected sources: tf.gradients' grad_ys and unconnected_gradients against the tape's
# --------------------------------------------------------------------------------------------
def test_grad_ys_and_unconnected_gradients_match_the_tape():
    x0, w0 = np.linspace(-1, 1, 8).reshape(2, 4), np.arange(4.0) / 4
    seeds = [np.array([[1.0, -2.0], [0.5, 3.0]]), np.array([[2.0, 1.0], [-1.0, 0.0]])]

    def program(x, w, unused):
        a, b = tf.split(tf.tanh(x * w), 2, axis=1)
        return [a, b * b]

    xs = [tf.constant(x0), tf.constant(w0), tf.constant(1.0, tf.float64)]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        outs = program(*xs)
    eager = tape.gradient(outs, xs, output_gradients=[tf.constant(s) for s in seeds],
                          unconnected_gradients=tf.UnconnectedGradients.ZERO)

    g = tf.Graph()
    with g.as_default():
        phs = [v1.placeholder(tf.float64, [None, 4]), v1.placeholder(tf.float64, [4]), v1.placeholder(tf.float64, [])]
        grads = v1.gradients(program(*phs), phs, grad_ys=[tf.constant(s) for s in seeds],
                             unconnected_gradients="zero")
        none = v1.gradients(program(*phs), phs[2])
    assert none == [None]
    with v1.Session(graph=g) as sess:
        values = sess.run(grads, {p: x.numpy() for p, x in zip(phs, xs)})
    for e, v in zip(eager, values):
        np.testing.assert_allclose(v, e.numpy(), rtol=1e-12)
    assert values[2] == 0.0 and np.asarray(values[2]).dtype == np.float64
