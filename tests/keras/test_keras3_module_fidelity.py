"""Keras 3 layers are not ``tf.Module`` s, and ``.keras`` files find classes by Keras 3's rules.

Guide ``intro_to_modules`` (cells 33 and 37). Every golden value below was recorded from TF 2.21 with
Keras 3 (``/tmp/tfvenv``), by running the same code with ``import tensorflow as tf``.
"""
import json
import os
import subprocess
import sys
import textwrap
import warnings
import zipfile

import numpy as np
import pytest

from kerastest import assert_close, keras, tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# TF 2.21: Keras 3's message when a class is neither registered nor in custom_objects (then the full config)
NOT_FOUND = ("Could not locate class '{}'. Make sure custom classes and functions are decorated with "
             "`@keras.saving.register_keras_serializable()`. If they are already decorated, make sure they are all "
             "imported so that the decorator is run before trying to load them. Full object config: ")


class FlexibleDense(keras.layers.Layer):
    def __init__(self, out_features, **kwargs):
        super().__init__(**kwargs)
        self.out_features = out_features

    def build(self, input_shape):
        self.w = tf.Variable(tf.random.normal([input_shape[-1], self.out_features]), name="w")
        self.b = tf.Variable(tf.zeros([self.out_features]), name="b")

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b


class MySequentialModel(keras.Model):
    def __init__(self, name=None, **kwargs):
        super().__init__(**kwargs)
        self.dense_1 = FlexibleDense(out_features=3)
        self.dense_2 = FlexibleDense(out_features=2)

    def call(self, x):
        return self.dense_2(self.dense_1(x))


# --- 1. Keras 3 layers and models are not tf.Modules ----------------------------------------------------
# TF 2.21: which of tf.Module's attributes a Keras 3 layer / model has
MODULE_ATTRIBUTES = {"submodules": False, "name_scope": False, "with_name_scope": False, "_flatten": False,
                     "_scope_name": False, "trainable_variables": True, "non_trainable_variables": True,
                     "variables": True, "name": True}


def _layers_and_models():
    model = MySequentialModel(name="the_model")
    model(tf.constant([[2.0, 2.0, 2.0]]))
    dense = keras.layers.Dense(2)
    dense.build((None, 3))
    return [dense, model, keras.Sequential([keras.layers.Dense(1)]), keras.layers.Layer()]


def test_layers_are_not_tf_modules():
    for obj in _layers_and_models():
        assert not isinstance(obj, tf.Module), type(obj).__name__     # TF 2.21: False for all four
    assert not issubclass(keras.layers.Layer, tf.Module)
    assert not issubclass(keras.Model, tf.Module)
    assert isinstance(tf.Module(), tf.Module)


@pytest.mark.parametrize("attribute", sorted(MODULE_ATTRIBUTES))
def test_module_attributes_present_and_absent_as_in_keras3(attribute):
    for obj in _layers_and_models():
        assert hasattr(obj, attribute) is MODULE_ATTRIBUTES[attribute], (type(obj).__name__, attribute)
    assert hasattr(keras.layers.Layer, "with_name_scope") is False


def test_submodules_raises_attribute_error_naming_the_class():
    model = MySequentialModel(name="the_model")
    model(tf.constant([[2.0, 2.0, 2.0]]))
    with pytest.raises(AttributeError) as info:
        model.submodules        # noqa: B018 (the guide's cell 33)
    assert str(info.value) == "'MySequentialModel' object has no attribute 'submodules'"   # TF 2.21
    with pytest.raises(AttributeError) as info:
        keras.Sequential([keras.layers.Dense(1)]).submodules   # noqa: B018
    assert str(info.value) == "'Sequential' object has no attribute 'submodules'"
    with pytest.raises(AttributeError) as info:
        keras.layers.Dense(2).name_scope   # noqa: B018
    assert str(info.value) == "'Dense' object has no attribute 'name_scope'"


def test_variables_are_lists_in_keras_order():
    dense = keras.layers.Dense(2, name="d")
    dense.build((None, 3))
    assert type(dense.trainable_variables) is list and type(dense.variables) is list    # TF 2.21: list
    assert [v.path for v in dense.variables] == ["d/kernel", "d/bias"]


def test_a_tf_module_does_not_walk_into_a_keras_layer():
    class Holder(tf.Module):
        def __init__(self):
            super().__init__()
            self.d = keras.layers.Dense(2)
            self.d.build((None, 3))
            self.v = tf.Variable(1.0)

    holder = Holder()
    assert [v.name for v in holder.trainable_variables] == ["Variable:0"]   # TF 2.21: the layer's are not listed
    assert holder.submodules == ()


def test_a_layer_holding_a_tf_module_checkpoints_it(tmp_path):
    class L(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.m = tf.Module()
            self.m.v = tf.Variable(2.0, name="mv")
            self.v = tf.Variable(3.0, name="lv")

    layer = L()
    assert layer.weights == [] and layer.variables == [] and layer.trainable_variables == []   # TF 2.21
    path = tf.train.Checkpoint(l=layer).save(str(tmp_path / "c"))
    assert tf.train.list_variables(path) == [           # TF 2.21
        ("_CHECKPOINTABLE_OBJECT_GRAPH", []), ("l/m/v/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("l/v/.ATTRIBUTES/VARIABLE_VALUE", []), ("save_counter/.ATTRIBUTES/VARIABLE_VALUE", [])]


def test_checkpoint_of_a_keras_model_round_trips(tmp_path):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="d")])
    x = np.ones((1, 3), np.float32)
    want = model(x).numpy()
    path = tf.train.Checkpoint(model=model).save(str(tmp_path / "ck"))
    names = [name for name, _ in tf.train.list_variables(path)]
    assert any(name.endswith("kernel/.ATTRIBUTES/VARIABLE_VALUE") for name in names), names
    for w in model.weights:
        w.assign(tf.zeros_like(w))
    tf.train.Checkpoint(model=model).restore(path)
    assert_close(model(x), want)


def test_saved_model_of_a_module_holding_a_keras_model(tmp_path):
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="d")])

    class Served(tf.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
        def serve(self, x):
            return self.model(x)

    export_dir = str(tmp_path / "sm")
    tf.saved_model.save(Served(model), export_dir)
    loaded = tf.saved_model.load(export_dir)
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    assert_close(loaded.serve(tf.constant(x)), model(x).numpy())
    tf.saved_model.save(model, str(tmp_path / "sm2"))   # a Keras model itself is a Trackable: exportable


def test_layer_names_follow_keras3_rules():
    assert keras.layers.Dense(2, name="a b").name == "a b"     # TF 2.21: any string without "/"
    with pytest.raises(ValueError) as info:
        keras.layers.Dense(2, name="a/b")
    assert str(info.value) == ("Argument `name` must be a string and cannot contain character `/`. "
                               "Received: name=a/b (of type <class 'str'>)")    # TF 2.21


# --- 2. Finding classes again: Keras 3's _retrieve_class_or_fn -----------------------------------------------
def test_deserialize_follows_keras3_lookup_rules():
    des = keras.saving.deserialize_keras_object
    assert type(des({"class_name": "Dense", "config": {"units": 2}, "module": "keras.layers"})).__name__ == "Dense"
    config = {"class_name": "Dense", "config": {"units": 2}, "module": None}
    with pytest.raises(TypeError) as info:
        des(config)
    assert str(info.value) == NOT_FOUND.format("Dense") + str(config)          # TF 2.21
    config = {"class_name": "Dense", "config": {"units": 2}, "module": "keras.layers", "registered_name": "Custom>Dense"}
    with pytest.raises(ValueError) as info:
        des(config)
    assert str(info.value) == (                                                   # TF 2.21
        "`registered_name='Custom>Dense'` was provided in the config, but 'keras.layers.Dense' resolved to a Keras "
        f"built-in and does not use registered names. Remove the `registered_name` field from the config. Full "
        f"object config: {config}")
    config = {"class_name": "Nope", "config": {}, "module": "keras_hub.foo"}
    with pytest.raises(TypeError) as info:
        des(config)
    assert str(info.value) == ("Could not deserialize class 'Nope' because its parent module keras_hub.foo cannot "
                               f"be imported. Full object config: {config}")     # TF 2.21
    config = {"class_name": "path", "config": {}, "module": "os"}   # not a Keras package: not imported
    with pytest.raises(TypeError) as info:
        des(config)
    assert str(info.value) == NOT_FOUND.format("path") + str(config)           # TF 2.21


def test_serialize_a_users_class_as_keras3_does():
    class Main(keras.layers.Layer):
        pass
    Main.__module__ = "__main__"
    config = keras.saving.serialize_keras_object(Main())
    assert (config["module"], config["class_name"], config["registered_name"]) == (None, "Main", "Main")  # TF 2.21
    Main.__module__ = "my_package.layers"
    assert keras.saving.serialize_keras_object(Main())["module"] == "my_package.layers"
    assert "registered_name" not in keras.saving.serialize_keras_object(keras.layers.Dense(1))


def test_custom_objects_find_an_unregistered_class():
    layer = FlexibleDense(3, name="fd")
    config = keras.saving.serialize_keras_object(layer)
    assert config["registered_name"] == "FlexibleDense"
    with pytest.raises(TypeError, match="Could not locate class 'FlexibleDense'"):
        keras.saving.deserialize_keras_object(config)
    rebuilt = keras.saving.deserialize_keras_object(config, custom_objects={"FlexibleDense": FlexibleDense})
    assert type(rebuilt) is FlexibleDense and rebuilt.out_features == 3


# The three cases run in a fresh process, as the guide does: the class is defined in ``__main__`` (registered or
# not), or in an importable module of the user's. TF 2.21 finds only the registered one (or any, through
# custom_objects): Keras 3 imports the saved module only for its own packages (keras, keras_hub, ...).
_SCRIPT = """
import json, sys, zipfile
sys.path.insert(0, {root!r}); sys.path.insert(0, {moddir!r})
import numpy as np
import engine as tf
import engine.keras as keras
from mymods import Unreg

class Main(tf.keras.Model):
    def __init__(self, **kw):
        super().__init__(**kw); self.d = tf.keras.layers.Dense(2)
    def call(self, x): return self.d(x)

@keras.saving.register_keras_serializable()
class Reg(tf.keras.Model):
    def __init__(self, **kw):
        super().__init__(**kw); self.d = tf.keras.layers.Dense(2)
    def call(self, x): return self.d(x)

out = {{}}
x = np.ones((1, 3), np.float32)
for cls in (Main, Unreg, Reg):
    m = cls(); y = m(x).numpy(); path = {tmp!r} + "/" + cls.__name__ + ".keras"; m.save(path)
    config = json.loads(zipfile.ZipFile(path).read("config.json"))
    rec = {{k: config.get(k) for k in ("module", "class_name", "registered_name", "build_config")}}
    try:
        r = tf.keras.models.load_model(path)
        rec["loaded"] = [type(r).__name__, bool(np.allclose(r(x).numpy(), y))]
    except TypeError as e:
        rec["error"] = str(e)
    r = tf.keras.models.load_model(path, custom_objects={{cls.__name__: cls}})
    rec["custom"] = [type(r).__name__, bool(np.allclose(r(x).numpy(), y))]
    out[cls.__name__] = rec
print(json.dumps(out))
"""

_MODULE = """
import engine as tf

class Unreg(tf.keras.Model):
    def __init__(self, **kw):
        super().__init__(**kw); self.d = tf.keras.layers.Dense(2)
    def call(self, x): return self.d(x)
"""


def test_load_model_finds_classes_by_keras3_rules_in_a_fresh_process(tmp_path):
    moddir = tmp_path / "mods"
    moddir.mkdir()
    (moddir / "mymods.py").write_text(textwrap.dedent(_MODULE))
    script = tmp_path / "script.py"
    script.write_text(_SCRIPT.format(root=ROOT, moddir=str(moddir), tmp=str(tmp_path)))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    # TF 2.21's config.json keys (module None for __main__, registered_name, build_config) and load results
    assert {k: got["Main"][k] for k in ("module", "class_name", "registered_name", "build_config")} == {
        "module": None, "class_name": "Main", "registered_name": "Main", "build_config": {"input_shape": [1, 3]}}
    assert got["Main"]["error"].startswith(NOT_FOUND.format("Main") + "{'module': None, 'class_name': 'Main'")
    assert {k: got["Unreg"][k] for k in ("module", "class_name", "registered_name", "build_config")} == {
        "module": "mymods", "class_name": "Unreg", "registered_name": "Unreg", "build_config": {"input_shape": [1, 3]}}
    assert got["Unreg"]["error"].startswith(NOT_FOUND.format("Unreg") + "{'module': 'mymods', 'class_name': 'Unreg'")
    assert {k: got["Reg"][k] for k in ("module", "class_name", "registered_name", "build_config")} == {
        "module": None, "class_name": "Reg", "registered_name": "Custom>Reg", "build_config": {"input_shape": [1, 3]}}
    assert got["Reg"]["loaded"] == ["Reg", True]            # TF 2.21: loads, same predictions
    for name in ("Main", "Unreg", "Reg"):
        assert got[name]["custom"] == [name, True], name   # TF 2.21: custom_objects finds every one


def test_guide_cells_31_to_38_round_trip(tmp_path):
    """The guide's registered subclassed model, saved and loaded (its weights are plain tf.Variables, not
    Keras weights: the file holds none, and the loaded model makes new ones at its first call, as in TF)."""
    registered = keras.saving.register_keras_serializable()(MySequentialModel)
    model = registered(name="the_model")
    model(tf.constant([[2.0, 2.0, 2.0]]))
    assert model.variables == []               # TF 2.21: attributes, not add_weight: not Keras weights
    path = str(tmp_path / "exname_of_file.keras")
    model.save(path)
    config = json.loads(zipfile.ZipFile(path).read("config.json"))
    assert (config["module"], config["registered_name"]) == (
        None if MySequentialModel.__module__ == "__main__" else MySequentialModel.__module__,
        "Custom>MySequentialModel")
    with warnings.catch_warnings():
        # the engine saves a build_config here (TF 2.21 does not: its symbolic build of this model fails), and
        # its symbolic build fails as Keras' would, with Keras' warning; the model builds at its first call
        warnings.simplefilter("ignore")
        reconstructed = keras.models.load_model(path)
    assert type(reconstructed) is MySequentialModel
    assert reconstructed(tf.constant([[2.0, 2.0, 2.0]])).shape == (1, 2)


@keras.saving.register_keras_serializable(package="ModuleFidelity")
class Triple(keras.layers.Layer):
    def call(self, x):
        return x * 3.0


def test_a_registered_layer_inside_functional_and_sequential_models_loads(tmp_path):
    inputs = keras.Input((3,))
    functional = keras.Model(inputs, Triple(name="t")(keras.layers.Dense(2, name="d")(inputs)))
    sequential = keras.Sequential([keras.Input((3,)), Triple(name="t")])
    x = np.ones((1, 3), np.float32)
    for model, name in ((functional, "f.keras"), (sequential, "s.keras")):
        path = str(tmp_path / name)
        model.save(path)
        loaded = keras.models.load_model(path)      # TF 2.21: found by its registered name, no custom_objects
        assert type(loaded.get_layer("t")) is Triple
        assert_close(loaded(x), model(x).numpy())
