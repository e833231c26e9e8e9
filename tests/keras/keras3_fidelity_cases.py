"""Cases for ``test_keras3_fidelity.py``: functions of ``tf`` (real TF 2.21, whose ``tf.keras`` is Keras 3,
or the engine) returning JSON values the two must agree on.

``record_keras3_fidelity_goldens.py`` runs them under real TF (``/tmp/tfvenv``) into
``keras3_fidelity_goldens.json``; the test runs them under the engine. Not collected by pytest.
From the guides (intro_to_modules, basic_training_loops, custom_training_walkthrough, autodiff's Keras
cells) as TF 2.21 runs them: ``tf.keras.losses.Reduction``, ``Lambda``, registering serializable
objects, Keras 3's variable names and paths, what a layer tracks, ``summary()``, the errors of ``call``,
saving a model to ``.keras`` and loading it.
"""
import os
import re
import tempfile

import numpy as np

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def error(fn):
    """``[class name, message]`` of what ``fn()`` raises (``None`` if it returns)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, str(e)]
    return None


def _raises_type_error(fn):
    """Does ``fn()`` raise a ``TypeError`` (TF's class; the engine's error is a subclass)?"""
    try:
        fn()
    except TypeError:
        return True
    except Exception:  # noqa: BLE001
        return False
    return False


def _set_text(message):
    """A message that prints a Python set: its items sorted (set order depends on the hash seed)."""
    return re.sub(r"\{([^{}]*)\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", message)


@case
def losses_reduction(tf):
    R = tf.keras.losses.Reduction
    mse = tf.keras.losses.MeanSquaredError(reduction=R.SUM)
    none = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=R.NONE)
    auto = error(lambda: tf.keras.losses.MeanSquaredError(reduction=R.AUTO))
    return {"members": [R.AUTO, R.NONE, R.SUM, R.SUM_OVER_BATCH_SIZE], "all": list(R.all()),
            "sum": float(mse([[1.0], [2.0]], [[0.0], [0.0]])), "reduction": mse.reduction,
            "none": none(tf.constant([1, 0]), tf.constant([[0.0, 2.0], [1.0, 0.0]])).numpy().round(5).tolist(),
            "auto": [auto[0], _set_text(auto[1])], "validate": error(lambda: R.validate("mean")),
            "validate_ok": R.validate("sum")}


@case
def lambda_layer(tf):
    lam = tf.keras.layers.Lambda(lambda x: x * 2.0 + 1.0)
    scaled = tf.keras.layers.Lambda(lambda x, k: x * k, arguments={"k": 3.0}, name="scale")
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, kernel_initializer="ones"),
                                 tf.keras.layers.Lambda(lambda t: tf.reduce_sum(t, axis=-1, keepdims=True))])
    x = np.arange(6, dtype="float32").reshape(2, 3)
    return {"name": lam.name, "value": lam(tf.constant([1.0, 2.0])).numpy().tolist(),
            "arguments": scaled(tf.constant([1.0])).numpy().tolist(), "scale_name": scaled.name,
            "config_keys": sorted(scaled.get_config()), "config_arguments": scaled.get_config()["arguments"],
            "model": model(x).numpy().tolist(), "output_shape": list(model.output_shape),
            "weights": len(lam.weights)}


@case
def registering_serializables(tf):
    @tf.keras.utils.register_keras_serializable(package="MyLayers")
    class CustomLayer(tf.keras.layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

        def get_config(self):
            config = super().get_config()
            config["factor"] = self.factor
            return config

    @tf.keras.utils.register_keras_serializable()
    def my_activation(x):
        return x * 3

    @tf.keras.utils.register_keras_serializable(package="P", name="renamed")
    def other(x):
        return x

    utils = tf.keras.utils
    layer = CustomLayer(4.0, name="custom")
    config = utils.serialize_keras_object(layer)
    rebuilt = utils.deserialize_keras_object(config)
    return {"name": utils.get_registered_name(CustomLayer),
            "object": utils.get_registered_object("MyLayers>CustomLayer") is CustomLayer,
            "builtin_name": utils.get_registered_name(tf.keras.layers.Dense),
            "unknown": utils.get_registered_object("Nope"),
            "function": utils.get_registered_name(my_activation), "renamed": utils.get_registered_name(other),
            "custom_objects": utils.get_registered_object("Local", custom_objects={"Local": CustomLayer}) is CustomLayer,
            "in_global": "MyLayers>CustomLayer" in utils.get_custom_objects(),
            "int": error(lambda: utils.register_keras_serializable()(3)),
            "serialized": {k: config[k] for k in ("class_name", "registered_name")},
            "config_factor": config["config"]["factor"],
            "rebuilt": [type(rebuilt).__name__, rebuilt.factor, rebuilt.name]}


@case
def variable_names_and_paths(tf):
    dense = tf.keras.layers.Dense(2, name="dd", kernel_initializer="ones")
    dense.build((None, 2))
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(2, name="a"),
                                 tf.keras.layers.Dense(1, name="b")], name="seq")

    class Block(tf.keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.inner = tf.keras.layers.Dense(1, name="inner")

        def build(self, shape):
            self.inner.build(shape)

        def call(self, x):
            return self.inner(x)

    block = Block(name="blk")
    block(tf.ones((1, 3)))
    with tf.name_scope("outer"):
        scoped = tf.keras.layers.Dense(1, name="e")
        scoped.build((None, 1))
    return {"name": dense.kernel.name, "path": dense.kernel.path, "repr": repr(dense.kernel),
            "weights": [[w.name, w.path] for w in dense.weights], "model": [w.path for w in model.weights],
            "model_names": [w.name for w in model.weights], "nested": [w.path for w in block.weights],
            "tf_name_scope_ignored": scoped.kernel.path}


@case
def raw_variables_are_not_layer_weights(tf):
    class Scale(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.raw = tf.Variable(2.0)
            self.w = self.add_weight(shape=(), initializer="ones", name="w")

        def call(self, x):
            return x * self.raw * self.w

    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.scale = Scale()
            self.bias = tf.Variable(1.0)

        def call(self, x):
            return self.scale(x) + self.bias

    layer = Scale()
    net = Net()
    net(tf.ones((1, 1)))
    return {"weights": [w.name for w in layer.weights], "trainable": len(layer.trainable_variables),
            "variables": len(layer.variables), "trainable_weights": len(layer.trainable_weights),
            "model_weights": [w.name for w in net.weights], "model_trainable": len(net.trainable_variables),
            "count_params": net.count_params()}


@case
def summary_text(tf):
    lines = []
    seq = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3, name="d"),
                               tf.keras.layers.Dense(1, name="out")], name="seq")
    seq.summary(print_fn=lines.append)
    narrow = []
    seq.summary(line_length=70, print_fn=narrow.append)
    inp = tf.keras.Input((4,), name="x")
    out = tf.keras.layers.Dense(2, name="head")(tf.keras.layers.Lambda(lambda t: t * 2.0, name="twice")(inp))
    functional = []
    tf.keras.Model(inp, out, name="func").summary(print_fn=functional.append)
    with_bn = []
    tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, name="d2"),
                         tf.keras.layers.BatchNormalization(name="bn")], name="bnseq").summary(print_fn=with_bn.append)
    return {"sequential": lines, "narrow": narrow, "functional": functional, "batch_norm": with_bn}


@case
def errors_inside_call(tf):
    class Bad(tf.keras.layers.Layer):
        def call(self, x):
            raise ValueError("boom")

    class Outer(tf.keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.bad = Bad()

        def call(self, inputs, training=None):
            return self.bad(inputs)

    class Kw(tf.keras.layers.Layer):
        def call(self, x, scale=2, flags=None):
            raise TypeError("bad type")

    return {"eager": error(lambda: Bad()(tf.ones((1,)))),
            "nested_innermost_only": error(lambda: Outer()(tf.ones((2, 3)))),
            "kwargs": error(lambda: Kw()(tf.ones((2,)), scale=3, flags=[1, 2]))}


@case
def save_and_load_keras_file(tf):
    @tf.keras.utils.register_keras_serializable(package="Fidelity")
    class Times(tf.keras.layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

        def get_config(self):
            return dict(super().get_config(), factor=self.factor)

    class Unregistered(tf.keras.layers.Layer):
        def call(self, x):
            return x + 1.0

    d = tempfile.mkdtemp()
    x = np.arange(6, dtype="float32").reshape(2, 3)
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2), Times(3.0)])
    before = model(x).numpy()
    model.save(os.path.join(d, "m.keras"))
    loaded = tf.keras.models.load_model(os.path.join(d, "m.keras"))
    same_weights = all(np.array_equal(a, b) for a, b in zip(model.get_weights(), loaded.get_weights()))
    other = tf.keras.Sequential([tf.keras.Input((3,)), Unregistered(name="u")])
    other.save(os.path.join(d, "u.keras"))
    with_objects = tf.keras.models.load_model(os.path.join(d, "u.keras"), custom_objects={"Unregistered": Unregistered})
    with tf.keras.utils.custom_object_scope({"Unregistered": Unregistered}):
        in_scope = tf.keras.models.load_model(os.path.join(d, "u.keras"))
    lam = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Lambda(lambda t: t * 2.0)])
    lam.save(os.path.join(d, "l.keras"))
    unsafe = tf.keras.models.load_model(os.path.join(d, "l.keras"), safe_mode=False)
    return {"built": loaded.built, "same_predictions": bool(np.allclose(loaded(x).numpy(), before)),
            "same_weights": same_weights, "layers": [type(layer).__name__ for layer in loaded.layers],
            "factor": loaded.layers[1].factor,
            "custom_objects": type(with_objects.layers[0]).__name__, "scope": type(in_scope.layers[0]).__name__,
            "unregistered": _raises_type_error(lambda: tf.keras.models.load_model(os.path.join(d, "u.keras"))),
            "lambda_safe_mode": error(lambda: tf.keras.models.load_model(os.path.join(d, "l.keras"))),
            "lambda_unsafe": unsafe(x).numpy().tolist()}


def run(tf, name):
    return CASES[name](tf)


if __name__ == "__main__":
    import json
    import sys
    if sys.argv[1] == "tf":
        import tensorflow as tf_module
    else:
        import engine as tf_module
    print(json.dumps(run(tf_module, sys.argv[2]), indent=1, default=str, ensure_ascii=False))
