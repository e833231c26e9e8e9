"""Record TF 2.21's static output shapes and dtypes for every case of tests/graph/op_catalog.py.

Run from the project root with Python that has tensorflow-cpu 2.21 installed (a scratch venv;
TensorFlow is never a dependency of the project):
    TF_PYTHON tests/graph/record_tf_static_shapes.py > tests/graph/tf_static_shapes.py
The catalog is imported with ``engine`` replaced by ``tensorflow`` (and the few engine-internal
functions it calls by their ``tf.raw_ops`` twins), then every case is built in a TF1 graph from
placeholders, exactly as test_graph_vs_eager.py builds it with the engine.
"""
import os
import sys
import types

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf  # noqa: E402

raw = tf.raw_ops
ops_pkg = types.ModuleType("engine.ops")
array_ops = types.ModuleType("engine.ops.array_ops")
array_ops.broadcast_gradient_args = lambda a, b: raw.BroadcastGradientArgs(s0=a, s1=b)
nn_ops = types.ModuleType("engine.ops.nn_ops")
nn_ops.relu_grad = lambda g, f: raw.ReluGrad(gradients=g, features=f)
nn_ops.relu6_grad = lambda g, f: raw.Relu6Grad(gradients=g, features=f)
nn_ops.elu_grad = lambda g, y: raw.EluGrad(gradients=g, outputs=y)
nn_ops.conv2d_backprop_filter = lambda x, sizes, g, strides, padding: raw.Conv2DBackpropFilter(
    input=x, filter_sizes=sizes, out_backprop=g, strides=strides, padding=padding)
ops_pkg.array_ops, ops_pkg.nn_ops = array_ops, nn_ops
tf.invert_permutation = tf.math.invert_permutation  # the engine also exports it at the top level
sys.modules["engine"] = tf
sys.modules["engine.ops"] = ops_pkg
sys.modules["engine.ops.array_ops"] = array_ops
sys.modules["engine.ops.nn_ops"] = nn_ops
sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "tests/graph")
import op_catalog  # noqa: E402

v1 = tf.compat.v1


def placeholder_shape(shape, mode):
    if mode == "known" or not shape:
        return list(shape)
    if mode == "batch":
        return [None] + list(shape[1:])
    if mode == "rank":
        return None
    return [None] * len(shape)


def flat(outs):
    return list(outs) if isinstance(outs, (list, tuple)) else [outs]


table = {}
for case in op_catalog.CASES:
    for mode in ("known",) + case.partial:
        g = tf.Graph()
        with g.as_default():
            try:
                phs = [v1.placeholder(tf.as_dtype(a.dtype), placeholder_shape(a.shape, mode)) for a in case.inputs]
                outs = flat(case.fn(*phs))
                table[(case.id, mode)] = tuple((o.dtype.name, None if o.shape.rank is None else
                                                tuple(o.shape.as_list())) for o in outs)
            except Exception as e:  # noqa: BLE001
                table[(case.id, mode)] = type(e).__name__

print('"""TF 2.21\'s static output shapes and dtypes for the cases of ``op_catalog.py`` (recorded, not computed).')
print()
print("``SHAPES[(case id, placeholder mode)]``: one ``(dtype name, shape)`` per output (shape ``None``: unknown")
print("rank, ``None`` dims: unknown), or the name of the exception TF raised while building the graph.")
print("Recorded with TF 2.21 by building each case from placeholders, as ``test_graph_vs_eager.py`` does:")
print("``TF_PYTHON tests/graph/record_tf_static_shapes.py > tests/graph/tf_static_shapes.py`` (TF_PYTHON: a scratch")
print("venv with tensorflow-cpu 2.21)")
print("(run from the repository root; rerun it after adding cases to the catalog).")
print('"""')
print()
print("SHAPES = {")
for key, value in table.items():
    print(f"    {key!r}: {value!r},")
print("}")
