"""What makes RaggedTensors work: the composite-tensor mechanism, gradients, tracing, dispatch.

The printed behaviour is pinned by TF goldens (``test_ragged_guide.py``); these tests check the
mechanisms behind it: ``TypeSpec`` / ``CompositeTensor`` through ``tf.nest`` and ``tf.function``,
finite-difference gradients through ragged ops (they are ops on the component tensors), the
registration hooks other modules use, and properties of the encodings (hypothesis).
"""
import types

import numpy as np
import pytest
from gradcheck import check_gradients
from hypothesis import given, settings
from hypothesis import strategies as st

import engine as tf
from engine.framework.composite_tensor import CompositeTensor
from engine.framework.type_spec import TypeSpec
from engine.ops.ragged import ragged_dispatch
from engine.ops.ragged.ragged_tensor import RaggedTensor

SPLITS = [0, 2, 2, 5]


# --- the composite mechanism ------------------------------------------------------------------
def test_ragged_tensor_is_a_composite_with_a_type_spec():
    rt = tf.ragged.constant([[1, 2], [3]])
    assert isinstance(rt, CompositeTensor) and tf.RaggedTensor is RaggedTensor
    spec = rt._type_spec
    assert isinstance(spec, TypeSpec) and isinstance(tf.TensorSpec([2]), tf.TypeSpec)
    assert spec.value_type is tf.RaggedTensor
    assert hash(spec) == hash(tf.RaggedTensorSpec([2, None], tf.int32, 1)) and spec == tf.RaggedTensorSpec([2, None],
                                                                                                        tf.int32, 1)
    parts = spec._to_components(rt)
    assert [p.dtype for p in parts] == [tf.int32, tf.int64]
    assert spec._from_components(parts).to_list() == [[1, 2], [3]]
    assert spec._flat_tensor_specs == [tf.TensorSpec([None], tf.int32), tf.TensorSpec([3], tf.int64)]
    assert tf.RaggedTensorSpec([None, None], tf.int32).is_subtype_of(tf.RaggedTensorSpec([None, None], tf.int32))
    assert spec.is_subtype_of(tf.RaggedTensorSpec([None, None], tf.int32))
    assert not tf.RaggedTensorSpec([None, None], tf.int32).is_subtype_of(spec)


def test_nest_expands_composites_only_when_asked():
    rt = tf.ragged.constant([[[1], [2, 3]], [[4]]])
    structure = {"x": rt, "y": (tf.constant(1.0),)}
    assert len(tf.nest.flatten(structure)) == 2
    flat = tf.nest.flatten(structure, expand_composites=True)
    assert len(flat) == 4   # flat_values, two row_splits, y
    rebuilt = tf.nest.pack_sequence_as(structure, flat, expand_composites=True)
    assert rebuilt["x"].to_list() == rt.to_list() and rebuilt["x"].ragged_rank == 2
    tf.nest.assert_same_structure(structure, rebuilt, expand_composites=True)
    plus = tf.nest.map_structure(lambda t: t + 0, structure, expand_composites=True)
    assert plus["x"].to_list() == rt.to_list()
    spec_flat = tf.nest.flatten(rt._type_spec, expand_composites=True)
    assert all(isinstance(s, tf.TensorSpec) for s in spec_flat) and len(spec_flat) == 3


@pytest.mark.skipif(not hasattr(tf, "SparseTensor"), reason="no tf.SparseTensor")
def test_the_mechanism_is_general_a_sparse_tensor_goes_through_it_too():
    st = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
    assert len(tf.nest.flatten(st, expand_composites=True)) == 3

    @tf.function
    def twice(s):
        return s, tf.sparse.to_dense(s) * 2.0
    same, dense = twice(st)
    twice(tf.SparseTensor(indices=[[0, 1]], values=[5.0], dense_shape=[3, 4]))
    assert twice.experimental_get_tracing_count() == 1       # keyed on the SparseTensorSpec
    assert same.values.numpy().tolist() == [1.0, 2.0] and dense.numpy()[1, 2] == 4.0
    assert isinstance(tf.data.Dataset.from_tensors(st).element_spec, tf.TypeSpec)


# --- gradients: ops on the component tensors ---------------------------------------------------
def test_gradient_of_row_sums_of_scaled_ragged_values():
    w = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0], tf.float64)

    def f(values):
        rt = tf.RaggedTensor.from_row_splits(values, SPLITS)
        return tf.reduce_sum(rt * tf.RaggedTensor.from_row_splits(w, SPLITS), axis=1)
    theoretical = check_gradients(f, [0.5, -1.0, 2.0, 0.25, 3.0])
    np.testing.assert_allclose(theoretical[0], [[1, 2, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 3, 4, 5]])


@pytest.mark.parametrize("fn", [
    lambda rt: tf.reduce_mean(rt, axis=1)[::2],
    lambda rt: tf.reduce_max(rt, axis=1)[::2],
    lambda rt: rt.to_tensor(default_value=0.0),
    lambda rt: rt[:, -2:].flat_values * 3.0,
    lambda rt: tf.concat([rt, rt * rt], axis=1).flat_values,
    lambda rt: tf.reduce_sum(rt, axis=0),
    lambda rt: tf.math.square(rt).flat_values + tf.gather(rt, [2, 0]).flat_values.shape[0],
], ids=["mean", "max", "to_tensor", "slice", "concat", "reduce_rows", "square"])
def test_gradients_through_ragged_ops_match_finite_differences(fn):
    check_gradients(lambda v: fn(tf.RaggedTensor.from_row_splits(v, SPLITS)), [0.5, -1.0, 2.0, 0.25, 3.0])


def test_gradients_through_3d_reductions_and_dense_broadcasting():
    def f(values, per_row):
        rt = tf.RaggedTensor.from_nested_row_splits(values, ([0, 2, 3, 3], [0, 2, 3, 6]))
        return tf.reduce_sum(rt * tf.reshape(per_row, [3, 1, 1]), axis=1).flat_values
    check_gradients(f, [0.5, -1.0, 2.0, 0.25, 3.0, 1.5], [1.0, 2.0, 3.0])


def test_gradient_through_a_tf_function_taking_a_ragged_argument():
    @tf.function
    def row_sums(rt):
        return tf.reduce_sum(rt * rt, axis=1)
    values = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(values)
        out = row_sums(tf.RaggedTensor.from_row_lengths(values, [2, 1]))
    np.testing.assert_allclose(out.numpy(), [5.0, 9.0])
    np.testing.assert_allclose(tape.gradient(out, values).numpy(), [2.0, 4.0, 6.0])


# --- tf.function ---------------------------------------------------------------------------------
def test_function_traces_once_per_spec_and_rebuilds_the_ragged_tensor_inside():
    seen = []

    @tf.function
    def f(rt):
        seen.append((type(rt).__name__, rt.ragged_rank))
        return rt + 1
    a = f(tf.ragged.constant([[1, 2], [3]]))
    b = f(tf.ragged.constant([[4], [5, 6]]))        # same spec (2 rows): no new trace
    assert f.experimental_get_tracing_count() == 1 and seen == [("RaggedTensor", 1)]
    assert a.to_list() == [[2, 3], [4]] and b.to_list() == [[5], [6, 7]]
    concrete = f.get_concrete_function(tf.RaggedTensorSpec([None, None], tf.int32))
    assert [t.dtype for t in concrete.inputs] == [tf.int32, tf.int64]
    assert concrete(tf.ragged.constant([[1], [2], [3]])).to_list() == [[2], [3], [4]]


def test_function_using_a_captured_ragged_tensor_returns_it():
    rt = tf.ragged.constant([[1, 2], [3]])
    offsets = tf.constant([10, 20])

    @tf.function
    def f(x):
        return rt * x, offsets   # (the row splits, and offsets, are captured eager tensors returned as they are)
    scaled, same = f(tf.constant(3))
    assert scaled.to_list() == [[3, 6], [9]] and same.numpy().tolist() == [10, 20]


def test_input_signature_with_a_ragged_spec():
    @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32)])
    def total(rt):
        return tf.reduce_sum(rt)
    assert float(total(tf.ragged.constant([[1.0], [2.0, 3.0]]))) == 6.0
    assert float(total(tf.ragged.constant([[1.0, 1.0, 1.0]]))) == 3.0
    assert total.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match="Can not cast"):
        total(tf.ragged.constant([[1]]))


# --- validation ----------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [1, 3]),
    lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 3, 2, 3]),
    lambda: tf.RaggedTensor.from_row_lengths([1, 2, 3], [2, 2]),
    lambda: tf.RaggedTensor.from_value_rowids([1, 2, 3], [1, 0, 0]),
    lambda: tf.ragged.constant([[1, 2], [3]]) + tf.ragged.constant([[1], [2, 3]]),
    lambda: tf.concat([tf.ragged.constant([[1]]), tf.ragged.constant([[1], [2]])], axis=1),
])
def test_invalid_partitions_raise_invalid_argument_error(make):
    with pytest.raises(tf.errors.InvalidArgumentError):
        make()


@pytest.mark.parametrize("splits, what", [([0, 2, 1, 3], "monotonic"), ([1, 2, 3], "zero"),
                                          ([0, 1, 2], "_from_row_partition")])
def test_validation_inside_tf_function_runs_when_the_function_runs(splits, what):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32), tf.TensorSpec([None], tf.int64)])
    def dense(values, row_splits):
        return tf.RaggedTensor.from_row_splits(values, row_splits).to_tensor()
    values = tf.constant([1, 2, 3])
    assert dense(values, tf.constant([0, 1, 3], tf.int64)).numpy().tolist() == [[1, 0], [2, 3]]
    with pytest.raises(tf.errors.InvalidArgumentError, match=what):
        dense(values, tf.constant(splits, tf.int64))
    assert dense.experimental_get_tracing_count() == 1


def test_validate_false_skips_the_checks():
    rt = tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 1, 3], validate=False)
    assert rt.to_list() == [[1], [2, 3]]


# --- dispatch hooks for other modules ------------------------------------------------------------
def test_register_elementwise_api_maps_a_function_over_flat_values():
    def shout(input, suffix="!", name=None):
        return tf.constant([w + suffix.encode() for w in input.numpy().tolist()])
    module = types.SimpleNamespace(shout=shout)
    ragged_dispatch.register_elementwise_api(module, "shout", "input")
    words = tf.ragged.constant([["a", "b"], ["c"]])
    assert module.shout(words, suffix="?").to_list() == [[b"a?", b"b?"], [b"c?"]]
    assert module.shout(tf.constant(["x"])).numpy().tolist() == [b"x!"]   # dense: the function itself
    assert module.shout.__wrapped__ is shout


def test_dispatch_for_api_runs_the_ragged_version_only_for_ragged_arguments():
    def describe(value, name=None):
        return "dense"
    module = types.SimpleNamespace(describe=describe)

    @ragged_dispatch.dispatch_for_api(module, "describe", "value")
    def _ragged_describe(value, name=None):
        return f"ragged rank {value.ragged_rank}"
    assert module.describe(tf.constant([1])) == "dense"
    assert module.describe(value=tf.ragged.constant([[1]])) == "ragged rank 1"


def test_dense_elementwise_functions_stay_plain_and_reductions_keep_their_names():
    assert tf.add.__name__ == "add" and not hasattr(tf.add, "__wrapped__")
    assert tf.reduce_sum.__name__ == "reduce_sum" and tf.math.reduce_sum is tf.reduce_sum
    np.testing.assert_allclose(tf.reduce_sum(tf.constant([[1.0, 2.0], [3.0, 4.0]]), 1).numpy(), [3.0, 7.0])


# --- properties of the encodings (hypothesis) ------------------------------------------------------
rows = st.lists(st.lists(st.integers(-50, 50), max_size=5), min_size=1, max_size=6)


@settings(max_examples=40, deadline=None)
@given(rows)
def test_encodings_agree_with_python_lists(pylist):
    rt = tf.ragged.constant(pylist, dtype=tf.int64)
    assert rt.to_list() == pylist
    lengths = [len(r) for r in pylist]
    assert rt.row_lengths().numpy().tolist() == lengths
    assert rt.nrows().numpy() == len(pylist)
    assert rt.value_rowids().numpy().tolist() == [i for i, r in enumerate(pylist) for _ in r]
    assert tf.RaggedTensor.from_row_lengths(rt.values, lengths).to_list() == pylist
    assert tf.RaggedTensor.from_value_rowids(rt.values, rt.value_rowids(), nrows=len(pylist)).to_list() == pylist
    width = max(lengths)
    dense = [r + [0] * (width - len(r)) for r in pylist]
    assert rt.to_tensor().numpy().tolist() == dense
    assert tf.RaggedTensor.from_tensor(tf.constant(dense, tf.int64), lengths=lengths).to_list() == pylist
    assert tf.reduce_sum(rt, axis=1).numpy().tolist() == [sum(r) for r in pylist]


@settings(max_examples=40, deadline=None)
@given(rows, st.integers(-6, 6) | st.none(), st.integers(-6, 6) | st.none(), st.sampled_from([None, 1, 2, -1]))
def test_slicing_each_row_is_python_slicing(pylist, start, stop, step):
    rt = tf.ragged.constant(pylist, dtype=tf.int32)
    key = slice(start, stop, step)
    assert rt[:, key].to_list() == [r[key] for r in pylist]
    assert rt[key].to_list() == pylist[key]
    for i in range(-len(pylist), len(pylist)):
        assert rt[i].numpy().tolist() == pylist[i]


# --- the same ops inside tf.function -----------------------------------------------------------------
GRAPH_OPS = {
    "getitem": lambda r: (r[:, :2], r[1], r[-1], r[1:], r[:, -1:]),
    "to_tensor": lambda r: r.to_tensor(shape=[None, 5]),
    "from_tensor": lambda r: tf.RaggedTensor.from_tensor(r.to_tensor(), padding=0),
    "boolean_mask": lambda r: tf.ragged.boolean_mask(r, r > 1),
    "range": lambda r: tf.ragged.range(r.row_lengths()),
    "stack_tile": lambda r: (tf.ragged.stack([r, r]), tf.tile(r, [2, 2])),
    "reductions": lambda r: (tf.reduce_sum(r, 0), tf.reduce_max(r, 1), tf.reduce_mean(r), r.bounding_shape()),
    "gather_merge": lambda r: (tf.gather(r, [2, 0]), r.merge_dims(0, 1)),
    "broadcast_where": lambda r: (r + tf.constant([[10], [20], [30]]), tf.where(r > 2, r, -r)),
    "encodings": lambda r: tf.RaggedTensor.from_value_rowids(r.values, r.value_rowids(), nrows=r.nrows()),
}


@pytest.mark.parametrize("name", sorted(GRAPH_OPS))
def test_ragged_ops_give_the_same_results_inside_tf_function(name):
    fn = GRAPH_OPS[name]
    rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
    traced = tf.function(fn, input_signature=[tf.RaggedTensorSpec([None, None], tf.int32)])
    assert str(traced(rt)) == str(fn(rt))
