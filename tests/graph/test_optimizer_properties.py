"""Property: an optimized graph computes exactly what the unoptimized graph computes.

Hypothesis draws small random graphs: placeholders (one with an unknown batch
dimension), constants (often 0 and 1, in shapes that broadcast or not),
variables, elementwise ops, MatMul + BiasAdd + Relu, reductions, transposes,
reshapes, casts, identities and control dependencies. It fetches a random
subset of the values (so fusions meet fetched intermediates), sometimes feeds
an intermediate tensor, and switches random passes off. The optimized plan must
return the same values (bit for bit: no pass reassociates arithmetic) with the
same dtypes as the plan compiled with every pass off.

``OPTIMIZER_EXAMPLES=5000 pytest tests/graph/test_optimizer_properties.py`` searches harder.
"""
import os

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine as tf
from engine.framework.executor import compile_plan

v1 = tf.compat.v1
OFF = {"disable_meta_optimizer": True}
SHAPES = [(), (3,), (1, 3), (2, 3)]
UNARY = ["neg", "abs", "tanh", "square", "exp", "relu", "sigmoid", "identity", "stop_gradient", "sin", "neg_neg",
         "transpose_twice", "reshape_same", "cast_round_trip", "sum_keepdims"]
BINARY = ["add", "sub", "mul", "maximum", "minimum", "div"]
SPECIAL = [0.0, 1.0, -1.0, 0.5, 2.0]

_value = st.one_of(st.sampled_from(SPECIAL), st.floats(-3, 3, allow_nan=False, width=32))
_instruction = st.one_of(
    st.tuples(st.just("unary"), st.sampled_from(UNARY), st.integers(0, 99)),
    st.tuples(st.just("binary"), st.sampled_from(BINARY), st.integers(0, 99), st.integers(0, 99)),
    st.tuples(st.just("const"), st.sampled_from(SHAPES), _value, st.booleans()),
    st.tuples(st.just("dense"), st.integers(0, 99), st.sampled_from(["none", "relu", "add"]), st.integers(0, 9)),
    st.tuples(st.just("control"), st.sampled_from(UNARY[:6]), st.integers(0, 99), st.integers(0, 99)),
    st.tuples(st.just("variable"), st.sampled_from(SHAPES), _value),
)


def _unary(kind, x):
    if kind == "neg_neg":
        return tf.negative(tf.negative(x))
    if kind == "transpose_twice":
        return tf.transpose(tf.transpose(x)) if x.shape.rank == 2 else tf.identity(x)
    if kind == "reshape_same":
        return tf.reshape(x, x.shape.as_list()) if x.shape.is_fully_defined() else tf.abs(x)
    if kind == "cast_round_trip":
        return tf.cast(tf.cast(x, tf.float32), tf.float64)
    if kind == "sum_keepdims":
        return tf.reduce_sum(x, axis=0, keepdims=True) if x.shape.rank == 2 else tf.reduce_sum(x)
    fn = {"neg": tf.negative, "abs": tf.abs, "tanh": tf.tanh, "square": tf.square, "exp": tf.exp,
          "relu": tf.nn.relu, "sigmoid": tf.sigmoid, "identity": tf.identity, "stop_gradient": tf.stop_gradient,
          "sin": tf.sin}[kind]
    return fn(x)


def _binary(kind, a, b):
    return {"add": tf.add, "sub": tf.subtract, "mul": tf.multiply, "maximum": tf.maximum, "minimum": tf.minimum,
            "div": tf.math.divide}[kind](a, b)


def build(recipe, rng):
    """The graph of ``recipe``: returns (graph, placeholders, their values, every value built)."""
    g = tf.Graph()
    eager_vars = {i: tf.Variable(np.full(step[1], step[2], np.float64))     # eager variables, read by the graph
                  for i, step in enumerate(recipe) if step[0] == "variable"}
    with g.as_default():
        p0 = v1.placeholder(tf.float64, [2, 3], name="p0")
        p1 = v1.placeholder(tf.float64, [None, 3], name="p1")
        p2 = v1.placeholder(tf.float64, [3], name="p2")
        pool = [p0, p1, p2, tf.constant(1.0, tf.float64), tf.constant(np.zeros((1, 3)))]
        for i, step in enumerate(recipe):
            kind = step[0]
            if kind == "unary":
                pool.append(_unary(step[1], pool[step[2] % len(pool)]))
            elif kind == "binary":
                pool.append(_binary(step[1], pool[step[2] % len(pool)], pool[step[3] % len(pool)]))
            elif kind == "const":
                _, shape, value, filled = step
                array = np.full(shape, value) if filled else rng.standard_normal(shape) * value
                pool.append(tf.constant(array, tf.float64))
            elif kind == "dense":
                x = pool[step[1] % len(pool)]
                if x.shape.rank != 2:
                    x = tf.reshape(tf.tile(tf.reshape(x, [-1]), [6])[:6], [2, 3])
                w = tf.constant(rng.standard_normal((3, 3)))
                b = tf.constant(rng.standard_normal(3) * step[3])
                z = tf.matmul(x, w)
                z = z + b if step[2] == "add" else tf.nn.bias_add(z, b)
                pool.append(tf.nn.relu(z) if step[2] != "none" else z)
            elif kind == "control":
                with tf.control_dependencies([pool[step[3] % len(pool)].op]):
                    pool.append(_unary(step[1], pool[step[2] % len(pool)]))
            else:
                pool.append(eager_vars[i].read_value() * 1.0)
    values = [rng.standard_normal((2, 3)), rng.standard_normal((2, 3)), rng.standard_normal(3)]
    g._test_variables = eager_vars   # keep the eager variables alive with the graph
    return g, [p0, p1, p2], values, pool


def assert_same(got, want):
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert np.asarray(a).dtype == np.asarray(b).dtype and np.shape(a) == np.shape(b)
        np.testing.assert_array_equal(a, b)


@settings(max_examples=int(os.environ.get("OPTIMIZER_EXAMPLES", 120)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(recipe=st.lists(_instruction, min_size=1, max_size=14), fetch_seed=st.integers(0, 2**16),
       toggles=st.fixed_dictionaries({k: st.booleans() for k in ("constant_folding", "arithmetic_optimization",
                                                                  "remapping", "memory_optimization")}),
       feed_intermediate=st.booleans())
def test_optimized_graphs_compute_the_same_values(recipe, fetch_seed, toggles, feed_intermediate):
    rng = np.random.default_rng(fetch_seed)
    g, placeholders, values, pool = build(recipe, rng)
    built = pool[5:] or pool[:1]
    count = int(rng.integers(1, min(4, len(built)) + 1))
    fetches = [built[i] for i in rng.choice(len(built), size=count, replace=False)]
    feeds, feed_values = list(placeholders), list(values)
    if feed_intermediate and len(built) > 1:
        fed = built[int(rng.integers(len(built)))]
        (shape_value,) = compile_plan([fed], [], feeds, options=OFF)(feed_values)
        feeds.append(fed)
        feed_values.append(rng.standard_normal(np.shape(shape_value)).astype(fed.dtype.as_numpy_dtype)[()])
    want = compile_plan(fetches, [], feeds, options=OFF)(feed_values)
    for options in ({}, toggles):
        plan = compile_plan(fetches, [], feeds, options=options)
        assert_same(plan(feed_values), want)
        assert_same(plan(feed_values), want)       # a second run: reused buffers, cached constants
        plan.program.check()
    for v in feed_values:                          # nothing wrote into the fed arrays
        assert not isinstance(v, np.ndarray) or v.flags.writeable
    np.testing.assert_array_equal(feed_values[0], values[0])


# --- elementwise chains with broadcasting and unknown dimensions: the in-place buffer logic -----------------
CHAIN_INPUTS = [([None, 3], (2, 3)), ([3], (3,)), ([None, 1], (2, 1)), ([], ()), ([2, 3], (2, 3)),
                ([None, None], (2, 3)), ([1, None], (1, 3)), (None, (2, 3))]
CHAIN_UNARY = [tf.negative, tf.abs, tf.tanh, tf.square, tf.sin, tf.nn.relu, tf.sigmoid, tf.floor, tf.sign,
               lambda x: tf.sqrt(tf.abs(x)), lambda x: tf.math.rsqrt(tf.abs(x) + 1.0),
               lambda x: tf.math.log1p(tf.abs(x)), lambda x: tf.exp(tf.tanh(x)), tf.nn.relu6, tf.nn.elu]
CHAIN_BINARY = [tf.add, tf.subtract, tf.multiply, tf.maximum, tf.minimum, tf.math.divide,
                tf.math.squared_difference, tf.math.divide_no_nan, lambda a, b: tf.pow(tf.abs(a), b)]
_chain_step = st.one_of(st.tuples(st.just(1), st.integers(0, len(CHAIN_UNARY) - 1), st.integers(0, 99)),
                        st.tuples(st.just(2), st.integers(0, len(CHAIN_BINARY) - 1), st.integers(0, 99),
                                  st.integers(0, 99)))


@settings(max_examples=int(os.environ.get("OPTIMIZER_EXAMPLES", 120)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(_chain_step, min_size=2, max_size=16), dtype=st.sampled_from([tf.float32, tf.float64]),
       extra_fetch=st.integers(-1, 20), seed=st.integers(0, 2**16))
def test_fused_elementwise_kernels_equal_the_ops_they_replace(steps, dtype, extra_fetch, seed):
    rng = np.random.default_rng(seed)
    g = tf.Graph()
    with g.as_default():
        inputs = [v1.placeholder(dtype, shape) for shape, _ in CHAIN_INPUTS]
        pool = list(inputs)
        recent = len(pool)
        for step in steps:
            pick = lambda k: pool[k % len(pool)] if k % 3 else pool[-1]   # noqa: E731 (mostly: chain on)
            if step[0] == 1:
                pool.append(CHAIN_UNARY[step[1]](pick(step[2])))
            else:
                pool.append(CHAIN_BINARY[step[1]](pick(step[2]), pick(step[3])))
    fetches = [pool[-1]] + ([pool[recent + extra_fetch]] if 0 <= extra_fetch < len(steps) - 1 else [])
    values = [rng.standard_normal(shape).astype(dtype.as_numpy_dtype)[()] for _, shape in CHAIN_INPUTS]
    saved = [np.copy(v) for v in values]
    want = compile_plan(fetches, [], inputs, options=OFF)(values)
    for reuse in (True, False):
        plan = compile_plan(fetches, [], inputs, options={"memory_optimization": reuse})
        assert_same(plan(values), want)
        assert_same(plan(values), want)
    for v, s in zip(values, saved):
        np.testing.assert_array_equal(v, s)
