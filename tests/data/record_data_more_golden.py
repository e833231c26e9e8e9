"""Recorder (run with /work/tfref/bin/python, TF 2.21 / Keras 3.15; never imported by the tests): prints the
golden values pasted into the matching test / golden module."""
import numpy as np, tensorflow as tf
D = tf.data.Dataset
out = {}
out["window"] = [w.numpy().tolist() for w in D.range(7).window(3, shift=2).flat_map(lambda w: w.batch(3))]
out["window_drop"] = [w.numpy().tolist() for w in D.range(7).window(3, shift=2, stride=2, drop_remainder=True).flat_map(lambda w: w.batch(3))]
out["window_default"] = [w.numpy().tolist() for w in D.range(5).window(2).flat_map(lambda w: w.batch(2))]
ds = D.zip((D.range(4), D.range(10, 14))).window(3, shift=1, drop_remainder=True)
out["window_spec"] = repr(ds.element_spec)
out["window_card"] = int(D.range(7).window(3, shift=2).cardinality()), int(D.range(7).window(3, shift=2, drop_remainder=True).cardinality())
out["window_tuple"] = [(a.numpy().tolist(), b.numpy().tolist()) for a, b in ds.flat_map(lambda a, b: D.zip((a.batch(3), b.batch(3))))]
out["choose"] = [int(x) for x in D.choose_from_datasets([D.from_tensors(1).repeat(), D.from_tensors(2).repeat(3)], D.from_tensor_slices(np.array([0, 1, 1, 0, 1, 1], "int64")))]
out["choose_stop"] = [int(x) for x in D.choose_from_datasets([D.range(2), D.range(10, 11)], D.from_tensor_slices(np.array([0, 1, 1, 0, 0], "int64")), stop_on_empty_dataset=True)]
out["choose_nostop"] = [int(x) for x in D.choose_from_datasets([D.range(2), D.range(10, 11)], D.from_tensor_slices(np.array([0, 1, 1, 0, 0], "int64")), stop_on_empty_dataset=False)]
out["scan"] = [int(x) for x in D.range(5).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * 10))]
out["scan_spec"] = repr(D.range(5).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, (s, tf.cast(x, tf.float32)))).element_spec)
out["unique"] = [int(x) for x in D.from_tensor_slices([1, 3, 1, 2, 3, 5]).unique()]
out["unique_str"] = [x for x in D.from_tensor_slices([b"a", b"b", b"a"]).unique().as_numpy_iterator()]
out["take_while"] = [int(x) for x in D.range(10).take_while(lambda x: x < 4)]
out["take_while_card"] = int(D.range(10).take_while(lambda x: x < 4).cardinality())
out["rebatch"] = [x.numpy().tolist() for x in D.range(10).batch(4).rebatch(3)]
out["rebatch_drop"] = [x.numpy().tolist() for x in D.range(10).batch(4).rebatch(3, drop_remainder=True)]
out["rebatch_spec"] = repr(D.range(10).batch(4).rebatch(3, drop_remainder=True).element_spec)
out["ignore"] = [float(x) for x in D.from_tensor_slices([1., 2., 0., 4.]).map(lambda x: tf.debugging.check_numerics(1. / x, "error")).ignore_errors()]
it = iter(D.range(2))
o = [it.get_next_as_optional() for _ in range(3)]
out["optional"] = [(bool(x.has_value()), int(x.get_value()) if x.has_value() else None) for x in o]
try: o[2].get_value()
except Exception as e: out["optional_err"] = (type(e).__name__, str(e)[:120])
out["optional_spec"] = repr(o[0].element_spec)
opts = tf.data.Options(); opts.deterministic = False; opts.experimental_optimization.map_parallelization = True
d2 = D.range(3).with_options(opts)
out["options"] = (d2.options().deterministic, [int(x) for x in d2])
try: opts.bogus = 1
except Exception as e: out["options_err"] = (type(e).__name__, str(e))
s = D.sample_from_datasets([D.from_tensors(0).repeat(50), D.from_tensors(1).repeat(50)], weights=[0.5, 0.5], seed=3)
out["sample_len"] = len(list(s))
out["sample_card"] = int(s.cardinality())
print("G =", out)
