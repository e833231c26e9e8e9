"""tf.saved_model.save / load: graphs + checkpoint + signatures, loaded without the defining code.

Golden values (signature keys, output keys, values, gradients, error classes and
message fragments) were recorded with TensorFlow 2.21 running the same models.
"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import engine as tf
import engine.saved_model  # noqa: F401  (until engine/__init__.py imports it)
from engine.framework.errors import InvalidArgumentError


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[1.], [2.], [3.]], name="w")
        self.dense = tf.Module()
        self.dense.b = tf.Variable([0.5], name="b")
        self.counter = tf.Variable(0, trainable=False, name="counter")

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def predict(self, x):
        return tf.matmul(x, self.w) + self.dense.b

    @tf.function(input_signature=[])
    def increment(self):
        self.counter.assign_add(1)
        return self.counter.read_value()

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="inp"), tf.TensorSpec([], tf.int32)])
    def pair(self, a, b):
        return a * 2., tf.cast(b, tf.float32)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def named(self, x):
        return {"total": tf.reduce_sum(x), "double": x * 2.}

    @tf.function
    def scaled(self, x, scale=2.0):
        return {"y": x * scale, "z": x + 1.}

    @tf.function
    def never_called(self, x):
        return x


class One(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(3.0)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(self, x):
        return x * self.v, x + self.v


X = np.array([[1., 0., 2.], [0.5, -1., 1.]], np.float32)
SIGNATURES = ("predict", "increment", "pair", "named")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    model = Model()
    model.scaled(tf.constant([1., 2.]))
    path = str(tmp_path_factory.mktemp("model"))
    tf.saved_model.save(model, path, signatures={name: getattr(model, name) for name in SIGNATURES})
    return model, path


@pytest.fixture
def loaded(saved):
    return tf.saved_model.load(saved[1])


# --- signatures -------------------------------------------------------------------------------------
def test_signature_keys_inputs_and_outputs_match_tf(loaded):
    assert sorted(loaded.signatures) == ["increment", "named", "pair", "predict"]
    expected = {"increment": ([], ["output_0"]), "named": (["x"], ["double", "total"]),
                "pair": (["b", "inp"], ["output_0", "output_1"]), "predict": (["x"], ["output_0"])}
    for name, (inputs, outputs) in expected.items():
        signature = loaded.signatures[name]
        args, kwargs = signature.structured_input_signature
        assert args == () and sorted(kwargs) == inputs
        assert sorted(signature.structured_outputs) == outputs
    spec = loaded.signatures["predict"].structured_input_signature[1]["x"]
    assert (spec.dtype, spec.shape.as_list(), spec.name) == (tf.float32, [None, 3], "x")


def test_signature_call_returns_dict_of_tensors(saved, loaded):
    model, _ = saved
    out = loaded.signatures["predict"](x=tf.constant(X))
    assert list(out) == ["output_0"]
    np.testing.assert_array_equal(out["output_0"].numpy(), [[7.5], [2.]])            # TF 2.21
    np.testing.assert_array_equal(out["output_0"].numpy(), model.predict(X).numpy())
    assert out["output_0"].dtype == tf.float32
    single = loaded.signatures["predict"](tf.constant(X))    # TF accepts one positional input
    np.testing.assert_array_equal(single["output_0"].numpy(), [[7.5], [2.]])
    pair = loaded.signatures["pair"](inp=tf.constant([1., 2.]), b=tf.constant(3))
    np.testing.assert_array_equal(pair["output_0"].numpy(), [2., 4.])
    assert float(pair["output_1"].numpy()) == 3.0
    named = loaded.signatures["named"](x=[1., 2.])          # Python values are converted
    assert float(named["total"].numpy()) == 3.0
    np.testing.assert_array_equal(named["double"].numpy(), [2., 4.])


def test_restored_functions_return_structured_outputs(loaded):
    y = loaded.predict(tf.constant(X))
    assert isinstance(y, tf.Tensor)
    np.testing.assert_array_equal(y.numpy(), [[7.5], [2.]])
    np.testing.assert_array_equal(loaded.predict(x=X).numpy(), [[7.5], [2.]])
    first, second = loaded.pair(tf.constant([1., 2.]), 3)
    np.testing.assert_array_equal(first.numpy(), [2., 4.])
    assert float(second.numpy()) == 3.0
    out = loaded.scaled(tf.constant([3., 4.]))                # traced before saving for shape (2,)
    assert sorted(out) == ["y", "z"]
    np.testing.assert_array_equal(out["y"].numpy(), [6., 8.])
    np.testing.assert_array_equal(out["z"].numpy(), [4., 5.])


def test_stateful_function_updates_restored_variable(saved, loaded):
    model, _ = saved
    assert int(loaded.signatures["increment"]()["output_0"].numpy()) == 1
    assert int(loaded.signatures["increment"]()["output_0"].numpy()) == 2
    assert int(loaded.increment().numpy()) == 3                # the same restored variable
    assert int(loaded.counter.numpy()) == 3
    assert int(model.counter.numpy()) == 0                     # the original is untouched
    loaded.counter.assign(10)
    assert int(loaded.increment().numpy()) == 11


def test_gradient_through_loaded_function(loaded):
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(loaded.predict(x) ** 2)
    dx, dw, db = tape.gradient(y, [x, loaded.w, loaded.dense.b])
    np.testing.assert_allclose(dx.numpy(), [[15., 30., 45.], [4., 8., 12.]])            # TF 2.21
    np.testing.assert_allclose(dw.numpy(), [[17.], [-4.], [34.]])
    np.testing.assert_allclose(db.numpy(), [19.])


def test_default_signature_is_the_single_function_with_input_signature(tmp_path):
    tf.saved_model.save(One(), str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    assert list(loaded.signatures) == ["serving_default"]
    out = loaded.signatures["serving_default"](x=tf.constant([1., 2.]))
    assert sorted(out) == ["output_0", "output_1"]
    np.testing.assert_array_equal(out["output_0"].numpy(), [3., 6.])                    # TF 2.21
    np.testing.assert_array_equal(out["output_1"].numpy(), [4., 5.])


def test_no_default_signature_when_several_candidates(tmp_path):
    tf.saved_model.save(Model(), str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    assert len(loaded.signatures) == 0                         # TF 2.21: []
    assert hasattr(loaded, "predict")


# --- variables ------------------------------------------------------------------------------------------
class Holder(tf.Module):
    def __init__(self):
        super().__init__()
        self.a = tf.Variable(np.arange(6, dtype=np.float64).reshape(2, 3) / 7.)
        self.i = tf.Variable(np.array([1, -2], np.int64), trainable=False)
        self.flag = tf.Variable(True)
        self.items = [tf.Variable(1.5, name="first"), tf.Module()]
        self.items[1].deep = {"k": tf.Variable(np.float32(np.pi), name="deep")}


def test_variables_restored_exactly(tmp_path):
    holder = Holder()
    tf.saved_model.save(holder, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    pairs = [(holder.a, loaded.a), (holder.i, loaded.i), (holder.flag, loaded.flag),
             (holder.items[0], loaded.items[0]), (holder.items[1].deep["k"], loaded.items[1].deep["k"])]
    for original, restored in pairs:
        assert restored is not original
        assert restored.dtype == original.dtype and restored.shape == original.shape
        assert restored.name == original.name and restored.trainable == original.trainable
        np.testing.assert_array_equal(restored.numpy(), original.numpy())
        assert np.asarray(restored.numpy()).tobytes() == np.asarray(original.numpy()).tobytes()
    assert [(v.name, v.dtype, v.trainable) for v in (loaded.a, loaded.i, loaded.flag, loaded.items[0])] == [
        ("Variable:0", tf.float64, True), ("Variable:0", tf.int64, False), ("Variable:0", tf.bool, True),
        ("first:0", tf.float32, True)]                                                   # TF 2.21
    assert [v.name for v in loaded.variables] == [v.name for v in holder.variables]
    assert len(loaded.trainable_variables) == len(holder.trainable_variables) == 4


# --- the files ------------------------------------------------------------------------------------------
def test_directory_layout_and_rewritten_variable_handles(saved):
    model, path = saved
    assert sorted(os.listdir(path)) == ["saved_model.json", "variables"]
    assert os.listdir(os.path.join(path, "variables")) == ["variables.npz"]
    assert tf.saved_model.contains_saved_model(path)
    assert not tf.saved_model.contains_saved_model(os.path.join(path, "variables"))
    with open(os.path.join(path, "saved_model.json")) as f:
        doc = json.load(f)
    assert (doc["format"], doc["version"], doc["tags"]) == ("engine.SavedModel", 1, ["serve"])
    assert [v["key"] for v in doc["variables"]] == ["counter", "w", "dense/b"]
    with np.load(os.path.join(path, "variables", "variables.npz")) as checkpoint:
        np.testing.assert_array_equal(checkpoint["dense/b"], [0.5])
    predict = doc["functions"][doc["signatures"]["predict"]["function"]]
    handles = [n for n in predict["graph_def"]["node"] if n["op"] == "VarHandleOp"]
    assert sorted(n["attr"]["shared_name"]["s"] for n in handles) == ["dense/b", "w"]
    assert all("eager_variable" not in n["attr"] for n in handles)
    assert doc["signatures"]["predict"]["inputs"] == [
        {"name": "x", "dtype": "float32", "shape": [None, 3], "tensor": "x:0"}]
    assert doc["object_graph"]["children"]["never_called"]["concrete_functions"] == []


def test_gradient_ops_built_into_a_function_graph_are_not_saved(tmp_path):
    one = One()
    tf.saved_model.save(one, str(tmp_path / "before"))
    x = tf.constant([1., 2.])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = one.f(x)
    tape.gradient(y, x)                                   # builds gradient ops into f's FuncGraph
    tf.saved_model.save(one, str(tmp_path / "after"))
    graphs = []
    for name in ("before", "after"):
        with open(tmp_path / name / "saved_model.json") as f:
            doc = json.load(f)
        graphs.append([n["name"] for fn in doc["functions"].values() for n in fn["graph_def"]["node"]])
    assert graphs[0] == graphs[1]


# --- a fresh process -------------------------------------------------------------------------------------
_CHILD = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    import engine as tf
    import engine.saved_model
    loaded = tf.saved_model.load(sys.argv[2])
    x = tf.constant(json.loads(sys.argv[3]), dtype=tf.float32)
    out = loaded.signatures["predict"](x=x)
    counts = [int(loaded.signatures["increment"]()["output_0"].numpy()) for _ in range(3)]
    tests_dir = sys.argv[1] + "/tests"
    foreign = sorted(name for name, m in sys.modules.items()
                     if (getattr(m, "__file__", None) or "").startswith(tests_dir))
    print(json.dumps({"predict": out["output_0"].numpy().tolist(), "dtype": out["output_0"].dtype.name,
                      "direct": loaded.predict(x).numpy().tolist(), "counts": counts,
                      "counter": int(loaded.counter.numpy()), "foreign": foreign,
                      "defines_model": any(hasattr(m, "Model") and hasattr(m, "Holder")
                                           for m in list(sys.modules.values()))}))
""")


def test_load_and_call_in_a_fresh_process(saved):
    model, path = saved
    root = os.path.dirname(os.path.dirname(os.path.abspath(tf.__file__)))
    result = subprocess.run([sys.executable, "-I", "-c", _CHILD, root, path, json.dumps(X.tolist())],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    child = json.loads(result.stdout.strip().splitlines()[-1])
    assert child["foreign"] == [] and child["defines_model"] is False   # the defining code was never imported
    assert child["dtype"] == "float32"
    np.testing.assert_array_equal(np.array(child["predict"], np.float32), model.predict(X).numpy())
    np.testing.assert_array_equal(np.array(child["direct"], np.float32), model.predict(X).numpy())
    assert child["counts"] == [1, 2, 3] and child["counter"] == 3
    assert int(model.counter.numpy()) == 0


# --- errors ----------------------------------------------------------------------------------------------
def test_load_errors(saved, tmp_path):
    with pytest.raises(OSError, match="SavedModel file does not exist at: .*nothere"):
        tf.saved_model.load(str(tmp_path / "nothere"))
    with pytest.raises(ValueError, match=r"Got an incompatible argument to `tags`: \['train'\]"):
        tf.saved_model.load(saved[1], tags=["train"])
    assert tf.saved_model.load(saved[1], tags="serve") is not None
    (tmp_path / "saved_model.json").write_text('{"format": "something else"}')
    with pytest.raises(ValueError, match="Not a SavedModel"):
        tf.saved_model.load(str(tmp_path))


def test_missing_signature_is_key_error(loaded):
    with pytest.raises(KeyError, match="missing"):
        loaded.signatures["missing"]


def test_signature_argument_errors(loaded):
    predict = loaded.signatures["predict"]
    with pytest.raises(InvalidArgumentError, match=r"input #0\(zero-based\) was expected to be a float"):
        predict(x=tf.constant([[1, 2, 3]]))
    with pytest.raises(InvalidArgumentError, match=r"\(None, 3\).*\(1, 2\)"):
        predict(x=tf.constant([[1., 2.]]))                   # TF fails in MatMul, also InvalidArgumentError
    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        predict(y=tf.constant(X))
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'y'"):
        predict(x=tf.constant(X), y=tf.constant(X))
    with pytest.raises(TypeError, match="too many positional arguments"):
        loaded.signatures["pair"](tf.constant([1.]), tf.constant(1))


def test_restored_function_argument_errors(loaded):
    with pytest.raises(TypeError, match="Binding inputs to tf.function failed due to `Can not cast"):
        loaded.predict(tf.constant([[1, 2, 3]]))
    with pytest.raises(ValueError, match="Could not find matching concrete function to call loaded from the "
                                         r"SavedModel(.|\n)*Option 1:"):
        loaded.scaled(tf.constant([1., 2., 3.]))             # only shape (2,) was traced
    with pytest.raises(ValueError, match="Found zero restored functions for caller function"):
        loaded.never_called(tf.constant(1.))


def test_save_errors(tmp_path):
    model = Model()
    with pytest.raises(ValueError, match="Only `tf.functions` with an input signature or concrete functions "
                                         "can be used as a signature"):
        tf.saved_model.save(model, str(tmp_path), signatures=model.scaled)
    with pytest.raises(ValueError, match="Expected an object of type `Trackable`"):
        tf.saved_model.save(3, str(tmp_path))

    class Nested(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def f(self, x):
            return {"a": (x, x)}
    with pytest.raises(ValueError, match="Got a non-Tensor value .* for key 'a' .* signature 'serving_default'"):
        tf.saved_model.save(Nested(), str(tmp_path), signatures=Nested().f)

    outside = tf.Variable(5.0)

    class Untracked(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def f(self, x):
            return x * outside
    with pytest.raises(AssertionError, match="references an 'untracked' resource"):
        tf.saved_model.save(Untracked(), str(tmp_path))
    assert not os.path.exists(tmp_path / "saved_model.json")   # nothing half-written


def test_a_keras_model_saves_after_fit(tmp_path):
    """fit() leaves compiled step functions on the model (they capture metric variables); like Keras,
    the SavedModel does not export them, and the model's weights are saved and restored."""
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3), tf.keras.layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    model.fit(np.ones((8, 4), np.float32), np.ones((8, 2), np.float32), epochs=1, verbose=0)
    tf.saved_model.save(model, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    assert sorted(v.numpy().tolist() == w.numpy().tolist() for v, w in
                  zip(loaded.trainable_variables, model.trainable_variables)) == [True] * 4
