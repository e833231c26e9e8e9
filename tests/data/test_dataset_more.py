"""window/flat_map, choose_from_datasets, sample_from_datasets, scan, unique, take_while, rebatch,
ignore_errors, Options/with_options and get_next_as_optional against values recorded from TF 2.21
(data_more_golden.py)."""
import numpy as np
import pytest

import engine as tf
from data_more_golden import G

D = tf.data.Dataset


def ints(ds):
    return [x.numpy().tolist() for x in ds]


def test_window_flat_map_idiom():
    assert ints(D.range(7).window(3, shift=2).flat_map(lambda w: w.batch(3))) == G["window"]
    assert ints(D.range(7).window(3, shift=2, stride=2, drop_remainder=True).flat_map(lambda w: w.batch(3))) == \
        G["window_drop"]
    assert ints(D.range(5).window(2).flat_map(lambda w: w.batch(2))) == G["window_default"]
    assert (int(D.range(7).window(3, shift=2).cardinality()),
            int(D.range(7).window(3, shift=2, drop_remainder=True).cardinality())) == G["window_card"]


def test_window_of_tuples():
    ds = D.zip((D.range(4), D.range(10, 14))).window(3, shift=1, drop_remainder=True)
    assert repr(ds.element_spec).replace("tf.", "") == G["window_spec"].replace("tf.", "")
    got = [(a.numpy().tolist(), b.numpy().tolist())
           for a, b in ds.flat_map(lambda a, b: D.zip((a.batch(3), b.batch(3))))]
    assert got == [tuple(p) for p in G["window_tuple"]]


def test_choose_from_datasets():
    picks = D.from_tensor_slices(np.array([0, 1, 1, 0, 1, 1], "int64"))
    assert ints(D.choose_from_datasets([D.from_tensors(1).repeat(), D.from_tensors(2).repeat(3)], picks)) == \
        G["choose"]
    picks = D.from_tensor_slices(np.array([0, 1, 1, 0, 0], "int64"))
    assert ints(D.choose_from_datasets([D.range(2), D.range(10, 11)], picks, stop_on_empty_dataset=True)) == \
        G["choose_stop"]
    assert ints(D.choose_from_datasets([D.range(2), D.range(10, 11)], picks, stop_on_empty_dataset=False)) == \
        G["choose_nostop"]
    with pytest.raises(TypeError, match="choice_dataset"):
        D.choose_from_datasets([D.range(2)], D.range(3).map(lambda x: tf.cast(x, tf.int32)))


def test_sample_from_datasets_seeded():
    def make(seed):
        return D.sample_from_datasets([D.from_tensors(0).repeat(50), D.from_tensors(1).repeat(50)],
                                      weights=[0.5, 0.5], seed=seed)
    first = ints(make(3))
    assert len(first) == G["sample_len"] and int(make(3).cardinality()) == G["sample_card"]
    assert sorted(first) == [0] * 50 + [1] * 50          # exhausted inputs are dropped, nothing is lost
    assert first == ints(make(3))                         # same seed, same order (not TF's order)
    assert first != ints(make(4)) and first[:50] != [0] * 50
    only = ints(D.sample_from_datasets([D.range(3), D.range(10, 13)], weights=[1.0, 0.0], seed=1))
    assert only == [0, 1, 2]


def test_scan_unique_take_while():
    assert ints(D.range(5).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * 10))) == G["scan"]
    spec = D.range(5).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, (s, tf.cast(x, tf.float32)))).element_spec
    assert repr(spec).replace("tf.", "") == G["scan_spec"].replace("tf.", "")
    with pytest.raises(TypeError, match="new state must match the initial state"):
        D.range(3).scan(tf.constant(0, tf.int64), lambda s, x: (tf.cast(s, tf.float32), x))
    assert ints(D.from_tensor_slices([1, 3, 1, 2, 3, 5]).unique()) == G["unique"]
    assert list(D.from_tensor_slices([b"a", b"b", b"a"]).unique().as_numpy_iterator()) == G["unique_str"]
    with pytest.raises(TypeError, match="unique"):
        D.from_tensor_slices([1.0, 2.0]).unique()
    ds = D.range(10).take_while(lambda x: x < 4)
    assert ints(ds) == G["take_while"] and int(ds.cardinality()) == G["take_while_card"]


def test_rebatch_and_ignore_errors():
    assert ints(D.range(10).batch(4).rebatch(3)) == G["rebatch"]
    ds = D.range(10).batch(4).rebatch(3, drop_remainder=True)
    assert ints(ds) == G["rebatch_drop"]
    assert ds.element_spec == tf.TensorSpec([3], tf.int64)       # TF: TensorSpec(shape=(3,), dtype=tf.int64)
    ds = D.from_tensor_slices([1., 2., 0., 4.]).map(lambda x: tf.debugging.check_numerics(1. / x, "error"))
    with pytest.raises(tf.errors.InvalidArgumentError):
        list(ds)
    assert [float(x) for x in ds.ignore_errors()] == G["ignore"]


def test_options_and_optional():
    opts = tf.data.Options()
    opts.deterministic = False
    opts.experimental_optimization.map_parallelization = True
    ds = D.range(3).with_options(opts).map(lambda x: x)
    assert (ds.options().deterministic, ints(ds)) == tuple(G["options"])
    assert ds.options().experimental_optimization.map_parallelization is True
    assert D.range(3).options().deterministic is None
    cls, msg = G["options_err"]
    with pytest.raises(AttributeError, match=msg):
        opts.bogus = 1
    it = iter(D.range(2))
    optionals = [it.get_next_as_optional() for _ in range(3)]
    got = [(bool(o.has_value()), int(o.get_value()) if o.has_value() else None) for o in optionals]
    assert got == [tuple(p) for p in G["optional"]]
    assert optionals[0].element_spec == tf.TensorSpec([], tf.int64)
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not have a value"):
        optionals[2].get_value()
    assert G["optional_err"][0] == "InvalidArgumentError"
