"""Datasets in graphs: Dataset.reduce, the AutoGraph `for` protocol, iter/next inside tf.function.

TF 2.21 values: reduce results and error messages, a `for` over a dataset in a tf.function traces
once and reads the data on every call, `next` past the end raises OutOfRangeError at run time.
"""
import numpy as np
import pytest

import engine as tf
import engine.data  # noqa: F401
from engine.data import graph_ops

R = tf.data.Dataset.range


def op_types(concrete):
    return [op.type for op in concrete.graph.get_operations()]


# --------------------------------------------------------------------------------------
# Dataset.reduce
# --------------------------------------------------------------------------------------
def test_reduce_eagerly():
    assert int(R(5).reduce(np.int64(0), lambda s, x: s + x)) == 10
    assert int(R(0).reduce(tf.constant(7, tf.int64), lambda s, x: s + x)) == 7
    pairs = tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4]))
    a, b = pairs.reduce((0, 0), lambda s, e: (s[0] + e[0], s[1] + e[1]))
    assert (int(a), int(b)) == (3, 7) and a.dtype == tf.int32
    d = R(3).reduce({"a": tf.constant(0, tf.int64)}, lambda s, x: {"a": s["a"] + x})
    assert list(d) == ["a"] and int(d["a"]) == 3


def test_reduce_relaxes_a_growing_state_shape():
    out = R(3).reduce(tf.zeros([1], tf.int64), lambda s, x: tf.concat([s, tf.reshape(x, [1])], 0))
    assert out.numpy().tolist() == [0, 0, 1, 2]                 # TF: [0 0 1 2], shape (4,)


def test_reduce_traces_once():
    calls = []

    def f(s, x):
        calls.append(1)
        return s + x
    R(10).reduce(tf.constant(0, tf.int64), f)
    assert calls == [1]


def test_reduce_errors_match_tf():
    with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type int64 that does not match type int32"):
        R(5).reduce(0, lambda s, x: s + x)
    with pytest.raises(TypeError, match=r"^The element types for the new state must match the initial state. "
                                        r"Expected <dtype: 'float32'> but got <dtype: 'int32'>.$"):
        R(3).reduce(tf.constant(0.0), lambda s, x: tf.cast(x, tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"The number of components of the initial state and the reduce function output does "
                             r"not match. \(initial_state=2, output=1\)."):
        R(3).reduce((tf.constant(0, tf.int64), tf.constant(0, tf.int64)), lambda s, x: s[0])


def test_reduce_reads_variables_at_run_time():
    v = tf.Variable(12, dtype=tf.int64)
    assert int(R(4).reduce(tf.constant(0, tf.int64), lambda s, x: s + x + v)) == 54   # TF: 54


def test_reduce_inside_a_function_runs_on_every_call_with_captures():
    @tf.function
    def total(w):
        return R(4).reduce(tf.constant(0, tf.int64), lambda s, x: s + x * w)
    assert int(total(tf.constant(3, tf.int64))) == 18
    assert int(total(tf.constant(2, tf.int64))) == 12
    assert total.experimental_get_tracing_count() == 1
    assert "ReduceDataset" in op_types(total.get_concrete_function(tf.constant(1, tf.int64)))


def test_a_shuffled_dataset_gets_a_new_order_on_every_call():
    ds = R(12).shuffle(12, seed=3)

    @tf.function
    def order():
        return ds.reduce(tf.zeros([0], tf.int64), lambda s, x: tf.concat([s, tf.reshape(x, [1])], 0))
    first, second = order().numpy().tolist(), order().numpy().tolist()
    assert sorted(first) == sorted(second) == list(range(12))
    assert first != second                  # the loop iterates at run time, not at trace time
    assert order.experimental_get_tracing_count() == 1


def test_map_side_effects_happen_per_call_not_at_trace():
    v = tf.Variable(0, dtype=tf.int64)

    def bump(x):
        v.assign_add(1)
        return x
    ds = R(5).map(bump)

    @tf.function
    def f():
        return ds.reduce(tf.constant(0, tf.int64), lambda s, x: s + x)
    assert int(v.numpy()) == 0
    f()
    f()
    assert int(v.numpy()) == 10


# --------------------------------------------------------------------------------------
# The AutoGraph for-loop protocol (what AutoGraph's for_stmt calls)
# --------------------------------------------------------------------------------------
def sum_loop(ds, w, break_above=None):
    """What AutoGraph makes of:  s = 0 (int64); for x in ds: [if x > k: break]; s += x * w"""
    s = tf.constant(0, tf.int64)
    stop = False

    def get_state():
        return s, stop

    def set_state(values):
        nonlocal s, stop
        s, stop = values

    def body(x):
        nonlocal s, stop
        if break_above is not None:
            stop = tf.logical_or(stop, x > break_above) if tf.is_tensor(stop) or tf.is_tensor(x) else stop
        s = s + tf.where(stop, tf.constant(0, tf.int64), x * w)

    extra_test = (lambda: tf.logical_not(stop) if tf.is_tensor(stop) else not stop) if break_above is not None \
        else None
    ds._autograph_for_stmt(extra_test, body, get_state, set_state, ("s", "stop"), {})
    return s


def test_for_protocol_in_a_function():
    f = tf.function(sum_loop)
    ds = R(4)
    assert int(f(ds, tf.constant(3, tf.int64))) == 18                  # TF: 18
    assert int(f(ds, tf.constant(1, tf.int64))) == 6
    assert f.experimental_get_tracing_count() == 1
    assert "ReduceDataset" in op_types(f.get_concrete_function(ds, tf.constant(1, tf.int64)))
    # A dataset argument is keyed by its DatasetSpec (element_spec), as TF 2.21 keys it: another
    # dataset of the same element_spec reuses the trace, and the loop reads the dataset passed.
    assert int(f(R(5), tf.constant(1, tf.int64))) == 10 and f.experimental_get_tracing_count() == 1


def test_for_protocol_with_break_stops_pulling_elements():
    v = tf.Variable(0, dtype=tf.int64)

    def bump(x):
        v.assign_add(1)
        return x
    ds = R(10).map(bump)
    f = tf.function(lambda ds, w: sum_loop(ds, w, break_above=2))
    assert int(f(ds, tf.constant(1, tf.int64))) == 3                   # TF: 0 + 1 + 2 = 3
    assert int(v.numpy()) == 4                                         # elements 0..3 pulled, then the loop ended


def test_for_protocol_eagerly_is_a_python_loop():
    assert int(sum_loop(R(4), tf.constant(3, tf.int64))) == 18
    assert int(sum_loop(R(10), tf.constant(1, tf.int64), break_above=2)) == 3


def test_for_protocol_nested_loops_capture_the_outer_element():
    @tf.function
    def nested(ds):
        s = tf.constant(0, tf.int64)

        def get_outer():
            return (s,)

        def set_outer(values):
            nonlocal s
            (s,) = values

        def outer_body(x):
            nonlocal s
            t = s

            def get_inner():
                return (t,)

            def set_inner(values):
                nonlocal t
                (t,) = values

            def inner_body(y):
                nonlocal t
                t = t + x * y                      # x: the outer loop's element, captured
            ds._autograph_for_stmt(None, inner_body, get_inner, set_inner, ("t",), {})
            s = t
        ds._autograph_for_stmt(None, outer_body, get_outer, set_outer, ("s",), {})
        return s
    assert int(nested(R(3))) == 9                                      # TF: 9


def test_for_protocol_with_no_loop_variables_runs_side_effects():
    v = tf.Variable(0, dtype=tf.int64)

    @tf.function
    def f(ds):
        def body(x):
            v.assign_add(x)
        ds._autograph_for_stmt(None, body, lambda: (), lambda values: None, (), {})
        return v.read_value()
    assert int(f(R(4))) == 6 and int(f(R(4))) == 12                    # TF: 6, 12


def test_for_protocol_rejects_non_tensor_loop_variables():
    @tf.function
    def f(ds):
        items = []

        def body(x):
            items.append(x)
        ds._autograph_for_stmt(None, body, lambda: (items,), lambda values: None, ("items",), {})
        return tf.constant(0)
    with pytest.raises(TypeError, match="'items' is modified in a `for` loop over a tf.data.Dataset"):
        f(R(3))


# --------------------------------------------------------------------------------------
# iter() / next() inside a function, and plain Python loops without AutoGraph
# --------------------------------------------------------------------------------------
def test_next_inside_a_function_reads_at_run_time():
    ds = R(5)

    @tf.function
    def first_two():
        it = iter(ds)
        return next(it) + next(it)
    assert int(first_two()) == 1 and int(first_two()) == 1              # a fresh iterator per call (TF: 1)
    types = op_types(first_two.get_concrete_function())
    assert types.count("IteratorGetNext") == 2 and "AnonymousIteratorV3" in types


def test_next_past_the_end_raises_out_of_range_when_run():
    @tf.function
    def g():
        it = iter(R(1))
        a = it.get_next()
        b = it.get_next()
        return a + b
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        g()


def test_python_for_without_autograph_unrolls_known_cardinality():
    ds = R(6).shuffle(6, seed=1)

    @tf.function(autograph=False)
    def order():
        return tf.stack([x for x in ds])   # (a dataset the function captures: its cardinality is known)
    first, second = order().numpy().tolist(), order().numpy().tolist()
    assert sorted(first) == sorted(second) == list(range(6)) and first != second
    assert order.experimental_get_tracing_count() == 1


def test_python_for_without_autograph_over_a_dataset_argument_is_refused(monkeypatch):
    """A dataset argument is known only when the function runs: its loop cannot be unrolled (TF 2.21
    raises ValueError too, "An unusually high number of `tf.data.Iterator.get_next()` calls")."""
    monkeypatch.setattr(graph_ops, "MAX_UNROLL", 5)

    @tf.function(autograph=False)
    def order(ds):
        return tf.stack([x for x in ds])
    with pytest.raises(ValueError, match="unknown cardinality was unrolled 5 times"):
        order(R(6))


def test_python_for_over_an_unbounded_dataset_refuses_to_unroll_forever(monkeypatch):
    monkeypatch.setattr(graph_ops, "MAX_UNROLL", 5)

    endless = R(3).repeat()

    @tf.function(autograph=False)
    def f():
        s = tf.constant(0, tf.int64)
        for x in endless:
            s += x
        return s
    with pytest.raises(ValueError, match="infinite cardinality was unrolled 5 times"):
        f()


def test_same_dataset_argument_reuses_the_trace():
    ds = R(4)

    @tf.function
    def total(ds):
        return ds.reduce(tf.constant(0, tf.int64), lambda s, x: s + x)
    assert int(total(ds)) == 6 and int(total(ds)) == 6
    assert total.experimental_get_tracing_count() == 1
